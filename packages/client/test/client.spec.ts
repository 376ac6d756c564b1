// Issue 21, item 1: the client's hand-written layer, against a real HTTP server
// on loopback (no stand-in for fetch): the bearer token it fetches and renews,
// its Idempotency-Keys, which refusals it retries and how long it waits, the
// ApiError it throws, cursor iteration, and one method for every operation of
// the OpenAPI document.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ApiError, deriveIdempotencyKey, MoneyMovement, waitFor, type MoneyMovementOptions } from '../src';
import { API_KEY, API_SECRET, errorBody, LocalApi, type Received } from './local-api';

let api: LocalApi;
beforeEach(async () => {
  api = await LocalApi.start();
});
afterEach(async () => {
  await api.stop();
});

const client = (options: Partial<MoneyMovementOptions> = {}) =>
  new MoneyMovement({ apiKey: API_KEY, apiSecret: API_SECRET, baseUrl: api.baseUrl, ...options });
const CUSTOMER = { id: 'cst_1', object: 'customer' };
const header = (r: Received, name: string) => r.headers[name.toLowerCase()];
const thrown = async (promise: Promise<unknown>): Promise<ApiError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
};

describe('the bearer token', () => {
  it('is fetched once with the key pair and sent on every request, however many ask for it at once', async () => {
    api.on(() => ({ body: CUSTOMER }));
    const mm = client();
    await Promise.all([mm.customers.get('cst_1'), mm.customers.get('cst_2'), mm.wallets.get('wlt_1')]);
    await mm.customers.get('cst_3');
    expect(api.tokenRequests).toHaveLength(1);
    expect(JSON.parse(api.tokenRequests[0].body)).toEqual({ apiKey: API_KEY, apiSecret: API_SECRET });
    expect(api.calls.map((r) => header(r, 'authorization'))).toEqual(Array(4).fill('Bearer token-1'));
  });

  it('is renewed before it expires: once less than a minute of it is left, the next request gets a new one', async () => {
    api.on(() => ({ body: CUSTOMER }));
    const mm = client();
    api.tokenLifetime = 45;
    await mm.customers.get('cst_1');
    api.tokenLifetime = 3600;
    await mm.customers.get('cst_1');
    await mm.customers.get('cst_1');
    expect(api.tokens).toEqual(['token-1', 'token-2']);
    expect(api.calls.map((r) => header(r, 'authorization'))).toEqual([
      'Bearer token-1',
      'Bearer token-2',
      'Bearer token-2',
    ]);
  });

  it('is renewed once when the API answers 401, and the request sent again with the new one', async () => {
    api.on(() => ({ body: CUSTOMER }));
    const mm = client();
    await mm.customers.get('cst_1');
    api.refused.add('token-1');
    await expect(mm.customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Lovelace' })).resolves.toEqual(
      CUSTOMER,
    );
    expect(api.tokens).toEqual(['token-1', 'token-2']);
    const [, refused, again] = api.calls;
    expect([header(refused, 'authorization'), header(again, 'authorization')]).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
    // The same request, key included.
    expect(header(again, 'idempotency-key')).toBe(header(refused, 'idempotency-key'));
  });

  it('is renewed only once: a second 401 is thrown', async () => {
    api.on(() => ({
      status: 401,
      body: { ...errorBody(401, 'invalid_token', 1000, 'invalid token').body, error_description: 'invalid token' },
    }));
    const error = await thrown(client().customers.get('cst_1'));
    expect({
      status: error.status,
      error: error.error,
      code: error.code,
      errorDescription: error.errorDescription,
    }).toEqual({ status: 401, error: 'invalid_token', code: 1000, errorDescription: 'invalid token' });
    expect(api.calls).toHaveLength(2);
    expect(api.tokens).toHaveLength(2);
  });

  it('is never shown: the secret is in no log line, inspection, JSON or error of the client', async () => {
    const written: string[] = [];
    const spies = [
      ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
        jest
          .spyOn(console, level)
          .mockImplementation((...args: unknown[]) => void written.push(args.map(String).join(' '))),
      ),
      jest
        .spyOn(process.stdout, 'write')
        .mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true)),
      jest
        .spyOn(process.stderr, 'write')
        .mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true)),
    ];
    try {
      api.on(() => ({ body: CUSTOMER }));
      const mm = client();
      await mm.customers.get('cst_1');
      const refused = await thrown(
        new MoneyMovement({ apiKey: API_KEY, apiSecret: `${API_SECRET}-wrong`, baseUrl: api.baseUrl }).customers.get(
          'cst_1',
        ),
      );
      expect({
        status: refused.status,
        error: refused.error,
        cause: refused.cause,
        errorDescription: refused.errorDescription,
      }).toEqual({
        status: 401,
        error: 'Unauthorized',
        cause: 'signature',
        errorDescription: 'invalid API key or secret',
      });
      const shown = [
        ...written,
        inspect(mm, { depth: 10, showHidden: true }),
        JSON.stringify(mm),
        refused.message,
        refused.stack ?? '',
        inspect(refused, { depth: 10 }),
      ].join('\n');
      expect(shown).not.toContain(API_SECRET);
      expect(shown).not.toContain('token-1');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});

/**
 * The API's idempotency as the unit tests need it: a POST with a key it has seen is answered with what the
 * first made; a new key makes a new resource. `dropFirst` loses the first answer after the resource is made
 * (the connection drops on its way back), as a proxy or a network can.
 */
function keepsKeys(api: LocalApi, options: { dropFirst?: boolean } = {}): { made: string[] } {
  const made: string[] = [];
  const answers = new Map<string, { status: number; body: unknown }>();
  let dropped = false;
  api.on((request) => {
    const key = header(request, 'idempotency-key') as string;
    let answer = answers.get(key);
    if (!answer) {
      made.push(`res_${made.length + 1}`);
      answer = { status: 201, body: { id: made[made.length - 1] } };
      answers.set(key, answer);
    }
    if (options.dropFirst && !dropped) {
      dropped = true;
      return { hangUp: true };
    }
    return answer;
  });
  return { made };
}

describe('Idempotency-Key', () => {
  it('is new for every call: two calls with the same body are two operations (issue 42, item 4)', async () => {
    api.on(() => ({ status: 201, body: {} }));
    const mm = client();
    const john = { customerId: 'cst_1', entityType: 'individual' as const, firstName: 'John', lastName: 'Smith' };
    const bank = {
      owner: { kind: 'customer' as const, customerId: 'cst_1' },
      type: 'bankUs' as const,
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    };
    const address = {
      customerId: 'cst_1',
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: 'ext_1' },
      payout: { rail: 'ach' },
    } as const;
    const account = {
      customerId: 'cst_1',
      source: { asset: 'usd', network: 'ach' },
      destination: { type: 'walletOms', walletId: 'wlt_1' },
      accountHolder: 'customer',
      type: 'bankUs',
    } as const;
    for (let i = 0; i < 2; i++) {
      await mm.customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Lovelace' });
      await mm.customers.requestEndorsement('cst_1', { name: 'usd' });
      await mm.wallets.create('cst_1', { asset: 'usdc', network: 'meridianchain' });
      await mm.counterparties.create(john);
      await mm.externalAccounts.create(bank);
      await mm.webhooks.create({ url: 'https://example.com/hooks', subscriptions: ['*'] });
      await mm.depositAddresses.create(address);
      await mm.virtualAccounts.create(account);
      await mm.transactions.create({ quoteId: 'qt_1' });
      await mm.sandbox.cashIns.deposit('ci_1', { amount: '10.00' });
      await mm.sandbox.transactions.cashPickup('txn_1', { outcome: 'collected' });
      await mm.externalAccounts.update('ext_1', { label: 'x' });
      await mm.sandbox.clock.advance({ seconds: 60 });
    }
    const keys = api.calls.map((r) => header(r, 'idempotency-key') as string);
    expect(keys).toHaveLength(26);
    expect(new Set(keys).size).toBe(26);
    for (const key of keys)
      expect(key).toMatch(/^mm_call_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("is the same across one call's retries: after a 503, a 409 in flight and a lost connection", async () => {
    api.on((_, n) =>
      n === 1
        ? { ...errorBody(503, 'ServiceUnavailable', 1503), headers: { 'retry-after': '0' } }
        : n === 2
          ? errorBody(409, 'IdempotencyKeyInFlight', 1113)
          : n === 3
            ? { hangUp: true }
            : { status: 201, body: CUSTOMER },
    );
    await expect(
      client().customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Lovelace' }),
    ).resolves.toEqual(CUSTOMER);
    expect(api.calls).toHaveLength(4);
    expect(new Set(api.calls.map((r) => header(r, 'idempotency-key'))).size).toBe(1);
  });

  it('makes one resource of a call whose answer was lost, and two of two calls with the same body, against a server that keeps keys', async () => {
    const { made } = keepsKeys(api, { dropFirst: true });
    const mm = client();
    const body = { customerId: 'cst_1', entityType: 'individual' as const, firstName: 'John', lastName: 'Smith' };
    const first = await mm.counterparties.create(body);
    // The first answer never arrived; the retry carried the same key and got what the first made.
    expect(api.calls).toHaveLength(2);
    expect(made).toEqual(['res_1']);
    expect(first).toEqual({ id: 'res_1' });
    // Another John Smith: another counterparty.
    const second = await mm.counterparties.create(body);
    expect(second).toEqual({ id: 'res_2' });
    expect(made).toEqual(['res_1', 'res_2']);
  });

  it("is the caller's when given: a job run again with the key of its own operation finds what the first run made", async () => {
    const { made } = keepsKeys(api);
    const body = { type: 'individual' as const, firstName: 'Ada', lastName: 'Lovelace' };
    const firstRun = await client().customers.create(body, { idempotencyKey: 'signup-42' });
    const secondRun = await client().customers.create(body, { idempotencyKey: 'signup-42' });
    expect(secondRun).toEqual(firstRun);
    expect(made).toHaveLength(1);
    expect(api.calls.map((r) => header(r, 'idempotency-key'))).toEqual(['signup-42', 'signup-42']);
  });

  it("is the caller's when given, and never sent on GET or DELETE", async () => {
    api.on(() => ({ body: {} }));
    const mm = client();
    await mm.customers.create(
      { type: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
      { idempotencyKey: 'customer-42' },
    );
    await mm.webhooks.update('wh_1', { description: 'x' }, { idempotencyKey: 'describe-wh_1' });
    await mm.webhooks.get('wh_1');
    await mm.webhooks.delete('wh_1');
    expect(api.calls.map((r) => [r.method, header(r, 'idempotency-key')])).toEqual([
      ['POST', 'customer-42'],
      ['PATCH', 'describe-wh_1'],
      ['GET', undefined],
      ['DELETE', undefined],
    ]);
  });

  it('can be derived from the request by deriveIdempotencyKey, an opt-in helper whose value is the same in every version of the client', async () => {
    expect(deriveIdempotencyKey('POST', '/v0.13/sandbox/wallets/wlt_1/fund', { amount: '100.00' })).toBe(
      'mm_56aca7179e87a1d758998c05775b9c2ad8860db57e2297053d60c9a98f6e61e9',
    );
    expect(deriveIdempotencyKey('POST', '/v0.13/customers', { lastName: 'Lovelace', firstName: 'Ada' })).toBe(
      deriveIdempotencyKey('post', '/v0.13/customers', { firstName: 'Ada', lastName: 'Lovelace' }),
    );
    api.on(() => ({ status: 201, body: CUSTOMER }));
    const body = { type: 'individual' as const, firstName: 'Ada', lastName: 'Lovelace' };
    await client().customers.create(body, { idempotencyKey: deriveIdempotencyKey('POST', '/v0.13/customers', body) });
    expect(header(api.calls[0], 'idempotency-key')).toMatch(/^mm_[0-9a-f]{64}$/);
  });
});

describe('retries', () => {
  it('wait out a 503 on a POST, sending it again with the same key, for as long as Retry-After says', async () => {
    api.on((_, n) =>
      n === 1
        ? { ...errorBody(503, 'ServiceUnavailable', 1503), headers: { 'retry-after': '1' } }
        : { status: 201, body: CUSTOMER },
    );
    const started = Date.now();
    await expect(
      client().customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Lovelace' }),
    ).resolves.toEqual(CUSTOMER);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const [first, second] = api.calls;
    expect(api.calls).toHaveLength(2);
    expect(second.body).toBe(first.body);
    expect(header(second, 'idempotency-key')).toBe(header(first, 'idempotency-key'));
  });

  it('wait out a 429 and a 409 IdempotencyKeyInFlight, backing off when there is no Retry-After', async () => {
    api.on((_, n) =>
      n === 1
        ? { ...errorBody(429, 'RateLimited', 1120), headers: { 'retry-after': '0' } }
        : n === 2
          ? errorBody(409, 'IdempotencyKeyInFlight', 1113)
          : { body: { data: { balance: '1.00' } } },
    );
    await client().sandbox.wallets.fund('wlt_1', { amount: '1.00' });
    expect(api.calls).toHaveLength(3);
    expect(new Set(api.calls.map((r) => header(r, 'idempotency-key'))).size).toBe(1);
  });

  it('do not repeat a 409 that is not about a request in flight, nor any other refusal', async () => {
    api.on(() => errorBody(409, 'QuoteExpired', 13002, 'the quote expired'));
    const error = await thrown(client().transactions.create({ quoteId: 'qt_1' }));
    expect(error.error).toBe('QuoteExpired');
    api.on(() => errorBody(422, 'ValidationFailed', 1001));
    await thrown(client().customers.get('cst_1'));
    expect(api.calls).toHaveLength(2);
  });

  it('stop after maxRetries, and throw the last refusal', async () => {
    api.on(() => ({ ...errorBody(503, 'ServiceUnavailable', 1503), headers: { 'retry-after': '0' } }));
    const error = await thrown(client({ maxRetries: 2 }).customers.get('cst_1'));
    expect({ status: error.status, error: error.error, retryAfterSeconds: error.retryAfterSeconds }).toEqual({
      status: 503,
      error: 'ServiceUnavailable',
      retryAfterSeconds: 0,
    });
    expect(api.calls).toHaveLength(3);
  });

  it('do not wait longer than maxRetryDelaySeconds: a longer Retry-After is thrown at once', async () => {
    api.on(() => ({ ...errorBody(503, 'VirtualAccountCloseUnavailable', 15105), headers: { 'retry-after': '120' } }));
    const error = await thrown(client().virtualAccounts.delete('va_1'));
    expect({ error: error.error, retryAfterSeconds: error.retryAfterSeconds }).toEqual({
      error: 'VirtualAccountCloseUnavailable',
      retryAfterSeconds: 120,
    });
    expect(api.calls).toHaveLength(1);
  });

  it('repeat a DELETE after a 503, which did not apply it, but not after a lost connection, which may have', async () => {
    api.on((_, n) =>
      n === 1
        ? { ...errorBody(503, 'VirtualAccountCloseUnavailable', 15105), headers: { 'retry-after': '0' } }
        : { status: 202, body: { id: 'va_1', status: 'deleting' } },
    );
    await expect(client().virtualAccounts.delete('va_1')).resolves.toMatchObject({ status: 'deleting' });
    expect(api.calls).toHaveLength(2);
    api.on(() => ({ hangUp: true }));
    await expect(client().webhooks.delete('wh_1')).rejects.toThrow();
    expect(api.calls).toHaveLength(3);
  });

  it('send a read or a POST with its key again after a lost connection', async () => {
    api.on((_, n) => (n === 1 || n === 3 ? { hangUp: true } : { body: CUSTOMER }));
    const mm = client();
    await expect(mm.customers.get('cst_1')).resolves.toEqual(CUSTOMER);
    await expect(mm.customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Lovelace' })).resolves.toEqual(
      CUSTOMER,
    );
    expect(api.calls.map((r) => r.method)).toEqual(['GET', 'GET', 'POST', 'POST']);
    expect(header(api.calls[3], 'idempotency-key')).toBe(header(api.calls[2], 'idempotency-key'));
  });

  it('wait out a 429 of the token endpoint too', async () => {
    api.tokenReplies.push({ ...errorBody(429, 'RateLimited', 1120), headers: { 'retry-after': '0' } });
    api.on(() => ({ body: CUSTOMER }));
    await client().customers.get('cst_1');
    expect(api.tokenRequests).toHaveLength(2);
  });

  it('are off with maxRetries 0', async () => {
    api.on(() => ({ ...errorBody(503, 'ServiceUnavailable', 1503), headers: { 'retry-after': '0' } }));
    await thrown(client({ maxRetries: 0 }).customers.get('cst_1'));
    expect(api.calls).toHaveLength(1);
  });
});

describe('ApiError', () => {
  it("carries the error body, the status and the response's request id", async () => {
    api.on(() => ({
      ...errorBody(404, 'CustomerNotFound', 10001, 'no customer cst_9 in this project'),
      headers: { 'x-request-id': 'req_abc' },
    }));
    const error = await thrown(client().customers.get('cst_9'));
    expect({
      name: error.name,
      error: error.error,
      code: error.code,
      msg: error.msg,
      cause: error.cause,
      status: error.status,
      requestId: error.requestId,
    }).toEqual({
      name: 'ApiError',
      error: 'CustomerNotFound',
      code: 10001,
      msg: 'msg of CustomerNotFound',
      cause: 'no customer cst_9 in this project',
      status: 404,
      requestId: 'req_abc',
    });
    expect(error.message).toBe(
      '404 CustomerNotFound (10001): msg of CustomerNotFound: no customer cst_9 in this project [request req_abc]',
    );
    expect(error).toBeInstanceOf(Error);
  });

  it("says what came back when a response has no error body (a proxy's page)", async () => {
    api.on(() => ({ status: 502, body: '<html>Bad Gateway</html>', headers: { 'content-type': 'text/html' } }));
    const error = await thrown(client().customers.get('cst_1'));
    expect({ status: error.status, error: error.error, code: error.code, cause: error.cause }).toEqual({
      status: 502,
      error: 'UnexpectedResponse',
      code: 0,
      cause: '<html>Bad Gateway</html>',
    });
  });
});

describe('cursor lists', () => {
  const items = ['txn_5', 'txn_4', 'txn_3', 'txn_2', 'txn_1'].map((id) => ({ id }));
  const pages = (request: Received) => {
    const url = new URL(request.path, 'http://x');
    const from = Number(url.searchParams.get('cursor') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const data = items.slice(from, from + limit);
    const hasMore = from + limit < items.length;
    return { body: { data, hasMore, nextCursor: hasMore ? String(from + limit) : null } };
  };

  it("are iterated item by item across every page, with the caller's filters on each", async () => {
    api.on(pages);
    const seen: string[] = [];
    for await (const t of client().transactions.list({ customerId: 'cst_1', limit: 2 })) seen.push(t.id);
    expect(seen).toEqual(['txn_5', 'txn_4', 'txn_3', 'txn_2', 'txn_1']);
    expect(api.calls.map((r) => r.path)).toEqual([
      '/v0.13/transactions?customerId=cst_1&limit=2',
      '/v0.13/transactions?customerId=cst_1&limit=2&cursor=2',
      '/v0.13/transactions?customerId=cst_1&limit=2&cursor=4',
    ]);
  });

  it('ask for no page beyond what is used', async () => {
    api.on(pages);
    const list = client().transactions.list({ limit: 2 });
    expect((await list.toArray(3)).map((t) => t.id)).toEqual(['txn_5', 'txn_4', 'txn_3']);
    expect(api.calls).toHaveLength(2);
    expect(await list.firstPage()).toEqual({
      data: [{ id: 'txn_5' }, { id: 'txn_4' }],
      hasMore: true,
      nextCursor: '2',
    });
  });

  it('start from a cursor when given one', async () => {
    api.on(pages);
    expect((await client().transactions.list({ limit: 2, cursor: '2' }).toArray()).map((t) => t.id)).toEqual([
      'txn_3',
      'txn_2',
      'txn_1',
    ]);
  });
});

describe('the client', () => {
  it("takes the banner's API address with or without the version, and refuses another version", async () => {
    api.on(() => ({ body: CUSTOMER }));
    await client({ baseUrl: api.baseUrl.replace('/v0.13', '/') }).customers.get('cst_1');
    await client({ baseUrl: `${api.baseUrl}/` }).customers.get('cst_1');
    expect(api.calls.map((r) => r.path)).toEqual(['/v0.13/customers/cst_1', '/v0.13/customers/cst_1']);
    expect(() => client({ baseUrl: api.baseUrl.replace('v0.13', 'v0.12') })).toThrow(
      'this client speaks v0.13; baseUrl names v0.12',
    );
    expect(() => client({ baseUrl: 'localhost:3000' })).toThrow(/absolute http\(s\) URL|http\(s\) URL/);
    expect(() => new MoneyMovement({ apiKey: API_KEY, apiSecret: '', baseUrl: api.baseUrl })).toThrow(
      'MoneyMovement needs apiSecret',
    );
  });

  it("sends the publishable-key route and the issuer's keys without a token, retried all the same", async () => {
    api.on((_, n) =>
      n === 1
        ? { ...errorBody(503, 'RiskConfigUnavailable', 1200), headers: { 'retry-after': '0' } }
        : { body: { provider: 'x' } },
    );
    const mm = client();
    await mm.risk.config('pk_sdbx_1');
    await mm.auth.jwks();
    expect(api.calls.map((r) => [r.path, header(r, 'api-key'), header(r, 'authorization')])).toEqual([
      ['/v0.13/risk/config', 'pk_sdbx_1', undefined],
      ['/v0.13/risk/config', 'pk_sdbx_1', undefined],
      ['/v0.13/.well-known/jwks.json', undefined, undefined],
    ]);
    expect(api.tokenRequests).toHaveLength(0);
  });

  it('has one method for every partner operation of the OpenAPI document', async () => {
    api.on((request) => ({ body: request.method === 'GET' ? { data: [], hasMore: false, nextCursor: null } : {} }));
    const mm = client();
    // Call every method of every resource with placeholder ids and bodies; lists are read to their first page.
    const calls: Array<Promise<unknown>> = [];
    const walk = (namespace: Record<string, unknown>, at: string) => {
      for (const [name, value] of Object.entries(namespace)) {
        if (typeof value === 'function') {
          if (`${at}.${name}` === 'webhooks.verify') continue;
          const result = (value as (...args: unknown[]) => unknown)('id_1', 'id_2', {}, {});
          calls.push(
            result && typeof (result as { firstPage?: unknown }).firstPage === 'function'
              ? (result as { firstPage: () => Promise<unknown> }).firstPage()
              : (result as Promise<unknown>),
          );
        } else if (value && typeof value === 'object')
          walk(value as Record<string, unknown>, `${at}.${name}`.replace(/^\./, ''));
      }
    };
    walk(mm as unknown as Record<string, unknown>, '');
    await Promise.all(calls);
    const document = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith('/v0.13/admin/'))
      .flatMap(([path, item]) =>
        Object.keys(item).map((method) => ({
          method: method.toUpperCase(),
          path,
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        })),
      );
    const reached = (method: string, path: string) =>
      api.received.filter(
        (r) =>
          r.method === method &&
          operations.find((o) => o.method === method && o.pattern.test(r.path.split('?')[0]))?.path === path,
      );
    expect(
      operations.filter((o) => reached(o.method, o.path).length === 0).map((o) => `${o.method} ${o.path}`),
    ).toEqual([]);
    // One method each: the token endpoint is also where the client gets its own token.
    expect(
      operations
        .filter((o) => reached(o.method, o.path).length > (o.path.endsWith('/auth/token') ? 2 : 1))
        .map((o) => `${o.method} ${o.path}`),
    ).toEqual([]);
  });
});

describe('waitFor', () => {
  it('reads until done and answers what it read then', async () => {
    api.on((_, n) => ({ body: { id: 'ext_1', status: n < 3 ? 'pending' : 'active' } }));
    const mm = client();
    await expect(
      waitFor(
        () => mm.externalAccounts.get('ext_1'),
        (a) => a.status === 'active',
        { intervalMs: 10 },
      ),
    ).resolves.toEqual({ id: 'ext_1', status: 'active' });
    expect(api.calls).toHaveLength(3);
  });

  it('gives up after timeoutMs, saying what it last read', async () => {
    api.on(() => ({ body: { id: 'ext_1', status: 'pending' } }));
    const mm = client();
    await expect(
      waitFor(
        () => mm.externalAccounts.get('ext_1'),
        (a) => a.status === 'active',
        { timeoutMs: 100, intervalMs: 10 },
      ),
    ).rejects.toThrow(/not done after 100 ms; last read: \{"id":"ext_1","status":"pending"\}/);
  });
});
