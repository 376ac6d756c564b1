// Issue 5, "no input reaches a 500": bodies, path and query parameters an
// attacker would send are refused with a 4xx in the API's error body before
// any handler or query runs, and nothing is stored.
import { randomUUID } from 'node:crypto';
import {
  BOOTSTRAP_KEY,
  BOOTSTRAP_SECRET,
  expectError,
  GATEWAY_ALONE,
  type RequestOptions,
  START_TIMEOUT_MS,
  TestPlatform,
} from './support/test-platform';
import { rowCounts, settledRowCounts } from './support/row-counts';

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('hostile input', () => {
  let platform: TestPlatform;
  let token: string;
  let walletId: string;

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
    const customer = await platform.endorsedCustomer(token, {}, ['cryptoCustody']);
    const wallet = await platform.request('POST', `/v0.13/customers/${customer.id}/wallets`, {
      token,
      body: { asset: 'usdc', network: 'meridianchain' },
    });
    walletId = wallet.body.id;
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  /** The request is refused as expected and no table gained or lost a row. */
  async function refused(
    method: string,
    path: string,
    options: RequestOptions,
    status: number,
    error: string,
    cause?: RegExp,
  ) {
    const before = await settledRowCounts(platform);
    const res = await platform.request(method, path, options);
    expectError(res, status, error);
    if (cause) expect(res.body.cause).toMatch(cause);
    expect(await rowCounts(platform)).toEqual(before);
    return res;
  }

  /** Bytes as they are, which fetch would otherwise re-encode from a string. */
  async function rawBytes(path: string, body: Uint8Array, contentType = 'application/json') {
    const res = await fetch(`${platform.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  describe('JSON nested deeper than the limit is a 400 before anything recursive runs', () => {
    it.each([
      ['the token exchange (no auth)', '/v0.13/auth/token', null],
      ['a partner route', '/v0.13/customers', 'partner'],
      ['an operator route', '/v0.13/admin/projects', 'admin'],
    ])('%s', async (_label, path, auth) => {
      const options = {
        rawBody: deep(1300),
        token: auth === 'partner' ? token : auth === 'admin' ? 'test-admin-token-0123456789' : null,
      };
      await refused('POST', path, options, 400, 'InvalidRequest', /deeper than 32 levels/);
    });

    it('arrays too, and inside a field', async () => {
      await refused(
        'POST',
        '/v0.13/customers',
        { token, rawBody: `{"type":"individual","firstName":${'['.repeat(40)}${']'.repeat(40)}}` },
        400,
        'InvalidRequest',
        /deeper/,
      );
    });
  });

  describe('NUL characters and unpaired surrogates are a field-level 400', () => {
    it.each([
      [
        'a NUL in the token exchange',
        '/v0.13/auth/token',
        '{"apiKey":"sk_sdbx_\\u0000","apiSecret":"x"}',
        /^apiKey: .*NUL/,
      ],
      [
        'a lone high surrogate',
        '/v0.13/customers',
        '{"type":"individual","firstName":"\\ud800","lastName":"B"}',
        /^firstName: .*unpaired/,
      ],
      [
        'a lone low surrogate in an array',
        '/v0.13/customers',
        '{"type":"individual","firstName":"A","lastName":"B","endorsements":["usd","\\udc00"]}',
        /^endorsements\[1\]: .*unpaired/,
      ],
      [
        'a NUL in a key',
        '/v0.13/customers',
        '{"type":"individual","firstName":"A","lastName":"B","x\\u0000":1}',
        /the key .*NUL/,
      ],
    ])('%s', async (_label, path, rawBody, cause) => {
      await refused('POST', path, { token, rawBody }, 400, 'InvalidRequest', cause);
    });

    it.each([
      ['DELETE', '/v0.13/admin/api-keys/%00', 'admin', /^path parameter apiKey: .*NUL/],
      ['DELETE', '/v0.13/admin/publishable-keys/pk_sdbx_%00', 'admin', /^path parameter publishableKey: .*NUL/],
      ['GET', '/v0.13/admin/projects/%00', 'admin', /^path parameter projectId/],
      ['GET', '/v0.13/customers/cst_%00', 'partner', /^path parameter id/],
      ['GET', '/v0.13/wallets?customerId=%00', 'partner', /^query parameter customerId: .*NUL/],
      ['GET', '/v0.13/customers?cursor=abc%00', 'partner', /^query parameter cursor/],
      ['GET', '/v0.13/customers?limit=1&limit=%00', 'partner', /^query parameter limit/],
      ['GET', '/v0.13/customers?%00=1', 'partner', /query parameter name .*NUL/],
      ['GET', '/v0.13/risk/config?x=%00', 'none', /^query parameter x/],
    ])('%s %s', async (method, path, auth, cause) => {
      await refused(
        method,
        path,
        { token: auth === 'admin' ? 'test-admin-token-0123456789' : auth === 'partner' ? token : null },
        400,
        'InvalidRequest',
        cause,
      );
    });
  });

  it('refuses duplicate keys, naming the key, instead of letting the last win', async () => {
    const balance = async () =>
      (await platform.request('GET', `/v0.13/wallets/${walletId}/balance`, { token })).body.data.balance;
    const before = await balance();
    await refused(
      'POST',
      `/v0.13/sandbox/wallets/${walletId}/fund`,
      { token, rawBody: '{"amount":"1.00","amount":"999999"}' },
      400,
      'InvalidRequest',
      /^amount: duplicate key/,
    );
    await refused(
      'POST',
      '/v0.13/customers',
      { token, rawBody: '{"type":"individual","firstName":"A","lastName":"B","\\u0066irstName":"C"}' },
      400,
      'InvalidRequest',
      /^firstName: duplicate key/,
    );
    expect(await balance()).toBe(before);
  });

  it.each([
    ['spaces', { firstName: '   ' }, /^firstName: /],
    ['tabs and newlines', { lastName: '\t\n' }, /^lastName: /],
    ['no-break and zero-width spaces', { firstName: '\u00a0\u200b\u3000' }, /^firstName: /],
  ])('refuses whitespace-only names: %s', async (_label, names, cause) => {
    await refused(
      'POST',
      '/v0.13/customers',
      { token, body: { type: 'individual', firstName: 'Ada', lastName: 'Lovelace', ...names } },
      400,
      'InvalidRequest',
      cause,
    );
  });

  it('refuses a whitespace-only project name', async () => {
    await refused(
      'POST',
      '/v0.13/admin/projects',
      { token: 'test-admin-token-0123456789', body: { name: ' \t ' } },
      400,
      'InvalidRequest',
      /^name: /,
    );
  });

  describe('charsets', () => {
    it.each(['utf-16', 'UTF-16LE', 'latin1', 'iso-8859-1', '"utf-32"'])(
      'refuses charset=%s with 415',
      async (charset) => {
        await refused(
          'POST',
          '/v0.13/customers',
          { token, rawBody: '{}', headers: { 'content-type': `application/json; charset=${charset}` } },
          415,
          'UnsupportedMediaType',
          /UTF-8/,
        );
      },
    );

    it.each(['utf-8', 'UTF-8', '"utf-8"', 'utf8'])('accepts charset=%s', async (charset) => {
      const res = await platform.request('POST', '/v0.13/customers', {
        token,
        body: { type: 'individual', firstName: 'Zoë', lastName: 'Ångström' },
        headers: { 'content-type': `application/json; charset=${charset}` },
      });
      expect(res.status).toBe(201);
      expect(res.body.firstName).toBe('Zoë');
    });

    it('refuses a UTF-16 body sent without a charset as malformed, not mojibake', async () => {
      const before = await settledRowCounts(platform);
      const utf16 = Buffer.from('\ufeff{"type":"individual","firstName":"A","lastName":"B"}', 'utf16le');
      const res = await rawBytes('/v0.13/customers', utf16);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('MalformedJson');
      expect(await rowCounts(platform)).toEqual(before);
    });

    it('refuses bytes that are not UTF-8 with 400 instead of replacing them', async () => {
      const before = await settledRowCounts(platform);
      const bytes = Buffer.concat([
        Buffer.from('{"type":"individual","firstName":"'),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('","lastName":"B"}'),
      ]);
      const res = await rawBytes('/v0.13/customers', bytes);
      expect(res).toEqual({
        status: 400,
        body: expect.objectContaining({ error: 'MalformedJson', cause: 'the body is not valid UTF-8' }),
      });
      // An encoded surrogate (CESU-8) is not UTF-8 either.
      const cesu = await rawBytes(
        '/v0.13/customers',
        Buffer.concat([Buffer.from('{"firstName":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
      );
      expect(cesu.status).toBe(400);
      expect(await rowCounts(platform)).toEqual(before);
    });
  });

  it('still refuses prototype poisoning', async () => {
    await refused(
      'POST',
      '/v0.13/customers',
      {
        token,
        rawBody: '{"type":"individual","firstName":"A","lastName":"B","constructor":{"prototype":{"admin":true}}}',
      },
      400,
      'MalformedJson',
    );
    await refused(
      'POST',
      '/v0.13/auth/token',
      { rawBody: '{"apiKey":"a","apiSecret":"b","\\u005f_proto__":{"x":1}}' },
      400,
      'MalformedJson',
    );
  });

  it('refuses a body with 60,000 unknown keys before validation, in a short error', async () => {
    const body = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1]));
    const res = await refused(
      'POST',
      '/v0.13/customers',
      { token, body: { type: 'individual', firstName: 'A', lastName: 'B', ...body } },
      400,
      'InvalidRequest',
      /more than 1000 keys/,
    );
    expect(res.text.length).toBeLessThan(1000);
  });

  it('lists the first validation problems and counts the rest', async () => {
    const body = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, 1]));
    const res = await refused(
      'POST',
      '/v0.13/customers',
      { token, body: { type: 'individual', firstName: 'A', lastName: 'B', ...body } },
      400,
      'InvalidRequest',
      /^k0: unknown field; .*; and \d+ more$/,
    );
    expect(res.text.length).toBeLessThan(1000);
  });

  it('refuses a body of more than 10,000 values', async () => {
    await refused(
      'POST',
      '/v0.13/customers',
      { token, body: { type: 'individual', firstName: 'A', lastName: 'B', endorsements: Array(20_000).fill(1) } },
      400,
      'InvalidRequest',
      /more than 10000 values/,
    );
  });

  it('bounds a cause that echoes a huge key', async () => {
    const res = await refused(
      'POST',
      '/v0.13/customers',
      { token, body: { type: 'individual', firstName: 'A', lastName: 'B', ['x'.repeat(500_000)]: 1 } },
      400,
      'InvalidRequest',
    );
    expect(res.body.cause.length).toBeLessThan(600);
  });

  describe('413 and 415 from the framework are in the API error body', () => {
    it('413 on an operator route', async () => {
      await refused(
        'POST',
        '/v0.13/admin/projects',
        { token: 'test-admin-token-0123456789', rawBody: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }) },
        413,
        'PayloadTooLarge',
      );
    });

    it('413 for a chunked body (no Content-Length) over the limit', async () => {
      const res = await fetch(`${platform.url}/v0.13/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new ReadableStream({
          start: (c) => {
            c.enqueue(new Uint8Array(2 * 1024 * 1024).fill(0x20));
            c.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: 'PayloadTooLarge', code: 1103 });
    });

    it('415 for a JSON-suffixed media type no parser takes', async () => {
      await refused(
        'POST',
        '/v0.13/customers',
        { token, rawBody: '{}', headers: { 'content-type': 'application/merge-patch+json' } },
        415,
        'UnsupportedMediaType',
      );
    });
  });

  it(
    "answers 429 in the API's own words, with Retry-After",
    async () => {
      // A gateway of its own with a small allowance: the shared one's is other files' to spend.
      const limited = await TestPlatform.start(
        { MM_TOKEN_RATE_LIMIT: '5', MM_TOKEN_RATE_WINDOW_SECONDS: '60' },
        undefined,
        GATEWAY_ALONE,
      );
      try {
        let res;
        for (let i = 0; i < 10; i++) {
          res = await limited.request('POST', '/v0.13/auth/token', {
            body: { apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET },
          });
          if (res.status === 429) break;
        }
        expectError(res!, 429, 'RateLimited', 1120);
        expect(res!.body.cause).not.toMatch(/Throttler/);
        expect(res!.body.cause).toMatch(/Retry-After/);
        expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await limited.stop();
      }
    },
    START_TIMEOUT_MS,
  );
});
