// ARCHITECTURE / API-CONTRACT: error body everywhere, Idempotency-Key
// semantics, bad input never reaches a 500 and never changes state.
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import {
  ADMIN_TOKEN,
  E2E_MODE,
  expectError,
  START_TIMEOUT_MS,
  TestPlatform,
  type Response,
} from './support/test-platform';

describe('HTTP conventions', () => {
  let platform: TestPlatform;
  let token: string;
  // This file's project only: on the shared platform other files create customers meanwhile.
  const countCustomers = async () =>
    Number(
      (
        await platform.db.query(`SELECT count(*) AS n FROM accounts.customers WHERE project_id = $1`, [
          platform.projectId,
        ])
      )[0].n,
    );
  const countEvents = async () =>
    Number(
      (
        await platform.db.query(`SELECT count(*) AS n FROM accounts.events WHERE metadata->>'projectId' = $1`, [
          platform.projectId,
        ])
      )[0].n,
    );
  const newCustomer = { type: 'individual', firstName: 'Grace', lastName: 'Hopper' };

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  describe('Idempotency-Key', () => {
    it('is required on POST and PATCH: 400 without it, nothing stored', async () => {
      const before = await countCustomers();
      const res = await platform.request('POST', '/v0.13/customers', {
        token,
        body: newCustomer,
        idempotencyKey: null,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'IdempotencyKeyRequired', code: 1110, status: 400 });
      expect(await countCustomers()).toBe(before);
    });

    it('rejects a key that is too long or not printable', async () => {
      const res = await platform.request('POST', '/v0.13/customers', {
        token,
        body: newCustomer,
        idempotencyKey: 'x'.repeat(256),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('IdempotencyKeyInvalid');
    });

    it('replays the stored status and body for the same key and body, with Idempotent-Replayed', async () => {
      const key = randomUUID();
      const first = await platform.request('POST', '/v0.13/customers', {
        token,
        body: newCustomer,
        idempotencyKey: key,
      });
      const before = await countCustomers();
      const second = await platform.request('POST', '/v0.13/customers', {
        token,
        body: { lastName: 'Hopper', firstName: 'Grace', type: 'individual' },
        idempotencyKey: key,
      });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await countCustomers()).toBe(before);
    });

    it('answers 422 for the same key with a different body, and changes nothing', async () => {
      const key = randomUUID();
      await platform.request('POST', '/v0.13/customers', { token, body: newCustomer, idempotencyKey: key });
      const before = await countCustomers();
      const res = await platform.request('POST', '/v0.13/customers', {
        token,
        body: { ...newCustomer, firstName: 'Other' },
        idempotencyKey: key,
      });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ error: 'IdempotencyKeyReused', code: 1112, status: 422 });
      expect(await countCustomers()).toBe(before);
    });

    it('scopes keys per project', async () => {
      const other = await platform.newProject('other-tenant');
      const key = randomUUID();
      const a = await platform.request('POST', '/v0.13/customers', { token, body: newCustomer, idempotencyKey: key });
      const b = await platform.request('POST', '/v0.13/customers', {
        token: other.token,
        body: { ...newCustomer, firstName: 'Different' },
        idempotencyKey: key,
      });
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(b.body.id).not.toBe(a.body.id);
    });

    it('gives concurrent duplicates exactly one effect: the others are 409 in flight or replays', async () => {
      const key = randomUUID();
      const before = await countCustomers();
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          platform.request('POST', '/v0.13/customers', { token, body: newCustomer, idempotencyKey: key }),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      const created = responses.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of responses.filter((r) => r.status === 409))
        expect(r.body).toMatchObject({ error: 'IdempotencyKeyInFlight', code: 1113 });
      expect(await countCustomers()).toBe(before + 1);
      // Once the first has finished, the key replays.
      const after = await platform.request('POST', '/v0.13/customers', {
        token,
        body: newCustomer,
        idempotencyKey: key,
      });
      expect(after.status).toBe(201);
      expect(after.body.id).toBe(created[0].body.id);
    });

    it('does not store failed requests: a retry with the same key runs again', async () => {
      const key = randomUUID();
      const failed = await platform.request('POST', '/v0.13/customers/cst_01h455vb4pex5vsknk084sn02q/endorsements', {
        token,
        body: { name: 'usd' },
        idempotencyKey: key,
      });
      expect(failed.status).toBe(404);
      const again = await platform.request('POST', '/v0.13/customers/cst_01h455vb4pex5vsknk084sn02q/endorsements', {
        token,
        body: { name: 'usd' },
        idempotencyKey: key,
      });
      expect(again.status).toBe(404);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
    });
  });

  describe('bad input gets a 4xx error body and changes nothing', () => {
    const cases: Array<
      [string, { rawBody?: string; body?: unknown; headers?: Record<string, string> }, number, string]
    > = [
      ['malformed JSON', { rawBody: '{"type": "individual",' }, 400, 'MalformedJson'],
      // A route that takes a body: none at all is a missing body, not malformed JSON.
      ['an empty JSON body', { rawBody: '', headers: { 'content-type': 'application/json' } }, 400, 'InvalidRequest'],
      ['a JSON array', { body: [newCustomer] }, 400, 'InvalidRequest'],
      ['JSON null', { rawBody: 'null' }, 400, 'InvalidRequest'],
      ['a string', { rawBody: '"customer"' }, 400, 'InvalidRequest'],
      ['a wrong type', { body: { ...newCustomer, firstName: 42 } }, 400, 'InvalidRequest'],
      ['a missing field', { body: { type: 'individual', firstName: 'A' } }, 400, 'InvalidRequest'],
      ['an unknown field', { body: { ...newCustomer, role: 'admin' } }, 400, 'InvalidRequest'],
      ['a wrong enum value', { body: { ...newCustomer, type: 'business' } }, 400, 'InvalidRequest'],
      ['a bad email', { body: { ...newCustomer, email: 'not-an-email' } }, 400, 'InvalidRequest'],
      ['an unknown endorsement', { body: { ...newCustomer, endorsements: ['gold'] } }, 400, 'InvalidRequest'],
      ['a nested object for a string', { body: { ...newCustomer, lastName: { $ne: '' } } }, 400, 'InvalidRequest'],
      [
        'a prototype-pollution key',
        { rawBody: '{"type":"individual","firstName":"A","lastName":"B","__proto__":{"admin":true}}' },
        400,
        'MalformedJson',
      ],
      [
        'a huge body',
        { rawBody: JSON.stringify({ ...newCustomer, firstName: 'x'.repeat(2 * 1024 * 1024) }) },
        413,
        'PayloadTooLarge',
      ],
      [
        'a form body',
        { rawBody: 'type=individual', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        415,
        'UnsupportedMediaType',
      ],
      ['a text body', { rawBody: '{}', headers: { 'content-type': 'text/plain' } }, 415, 'UnsupportedMediaType'],
    ];

    it.each(cases)('%s', async (_label, input, status, error) => {
      const customers = await countCustomers();
      const events = await countEvents();
      const res = await platform.request('POST', '/v0.13/customers', { token, ...input });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({
        error,
        code: expect.any(Number),
        msg: expect.any(String),
        cause: expect.any(String),
      });
      expect(await countCustomers()).toBe(customers);
      expect(await countEvents()).toBe(events);
    });

    it.each([
      ['POST', '/v0.13/customers', { type: 'individual', firstName: 'Ada' }, 'lastName: is required'],
      ['POST', '/v0.13/customers', { type: 'individual' }, 'firstName: is required; lastName: is required'],
      ['POST', '/v0.13/webhooks', { url: 'https://example.com/hooks' }, 'subscriptions: is required'],
      [
        'POST',
        '/v0.13/cash-ins',
        {},
        'customerId: is required; source: is required; destination: is required; cash: is required',
      ],
      ['POST', '/v0.13/auth/token', { apiKey: 'sk_sdbx_someKey' }, 'apiSecret: is required'],
    ])(
      'a missing required field is one "is required", not a message per rule (%s %s %j)',
      async (method, path, body, cause) => {
        const res = await platform.request(method, path, {
          token: path.endsWith('/auth/token') ? undefined : token,
          body,
        });
        expect({ status: res.status, error: res.body.error, cause: res.body.cause }).toEqual({
          status: 400,
          error: 'InvalidRequest',
          cause,
        });
      },
    );

    it('beside a missing field, one that is present but wrong gets one message: what it must be and what was sent (issue 42, item 9)', async () => {
      const res = await platform.request('POST', '/v0.13/customers', {
        token,
        body: { type: 'individual', lastName: 7 },
      });
      expect(res.body.cause).toBe('firstName: is required; lastName: must be a string, not a number');
    });

    it('names the offending fields in cause', async () => {
      const res = await platform.request('POST', '/v0.13/customers', {
        token,
        body: { type: 'individual', firstName: 7, extra: true },
      });
      expect(res.body.cause).toMatch(/firstName/);
      expect(res.body.cause).toMatch(/lastName/);
      expect(res.body.cause).toMatch(/extra: unknown field/);
    });

    it.each([
      ['GET', '/v0.13/customers/not-an-id', 400, 'InvalidCustomerID', 10000],
      ['GET', '/v0.13/customers/wlt_01h455vb4pex5vsknk084sn02q', 400, 'InvalidCustomerID', 10000],
      ['GET', '/v0.13/customers/cst_01h455vb4pex5vsknk084sn02q', 404, 'CustomerNotFound', 10001],
      ['GET', '/v0.13/customers/%ff%fe', 400, 'InvalidRequest', 1100],
      ['GET', '/v0.13/wallets/abc', 400, 'InvalidWalletID', 11000],
      ['GET', '/v0.13/wallets/wlt_01h455vb4pex5vsknk084sn02q', 404, 'WalletNotFound', 11001],
      ['GET', '/v0.13/customers?limit=0', 400, 'InvalidRequest', 1100],
      ['GET', '/v0.13/customers?limit=101', 400, 'InvalidRequest', 1100],
      ['GET', '/v0.13/customers?limit=abc', 400, 'InvalidRequest', 1100],
      ['GET', '/v0.13/customers?cursor=bogus', 400, 'InvalidCursor', 1150],
      ['GET', '/v0.13/nothing-here', 404, 'NotFound', 1104],
      ['GET', '/nothing-here', 404, 'NotFound', 1104],
      ['DELETE', '/v0.13/customers', 405, 'MethodNotAllowed', 1105],
    ])('%s %s -> %i %s', async (method, path, status, error, code) => {
      const res = await platform.request(method, path, { token });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error, code, msg: expect.any(String), cause: expect.any(String) });
    });
  });

  describe('a request body: an empty one is none, and authentication comes first', () => {
    let webhookId: string;
    const cashInId = 'ci_01h455vb4pex5vsknk084sn02q';

    /**
     * A request as a client library sends it, with exactly these headers: `Content-Length: 0`, or
     * `Transfer-Encoding: chunked` and the given chunks (none: an empty chunked body).
     */
    function send(
      method: string,
      path: string,
      options: { headers: Record<string, string>; chunks?: Array<string | Buffer>; token?: string },
    ): Promise<Response> {
      const url = new URL(`${platform.url}${path}`);
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (method === 'POST' || method === 'PATCH') headers['idempotency-key'] ??= randomUUID();
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              const responseHeaders = new Headers();
              for (const [name, value] of Object.entries(res.headers))
                if (typeof value === 'string') responseHeaders.set(name, value);
              resolve({
                status: res.statusCode!,
                headers: responseHeaders,
                text,
                body: text ? JSON.parse(text) : undefined,
              });
            });
          },
        );
        req.on('error', reject);
        for (const chunk of options.chunks ?? []) req.write(chunk);
        req.end();
      });
    }
    const lengthZero = { 'content-type': 'application/json', 'content-length': '0' };
    const chunked = { 'content-type': 'application/json', 'transfer-encoding': 'chunked' };

    beforeAll(async () => {
      webhookId = (
        await platform.request('POST', '/v0.13/webhooks', {
          token,
          body: { url: 'http://127.0.0.1:9/empty-body', subscriptions: ['cashIn.created'] },
        })
      ).body.id;
    });

    it.each([
      ['Content-Length: 0', lengthZero],
      ['an empty chunked body', chunked],
    ])('reads as no body on the body-less POSTs and on DELETE (%s)', async (_label, headers) => {
      const as = (method: string, path: string) => send(method, `/v0.13${path}`, { headers, token });
      const created = await platform.request('POST', '/v0.13/webhooks', {
        token,
        body: { url: 'http://127.0.0.1:9/empty-body', subscriptions: ['*'] },
      });
      const id = created.body.id;
      const disabled = await as('POST', `/webhooks/${id}/disable`);
      expect([disabled.status, disabled.body.status]).toEqual([200, 'disabled']);
      const enabled = await as('POST', `/webhooks/${id}/enable`);
      expect([enabled.status, enabled.body.status]).toEqual([200, 'enabled']);
      const rotated = await as('POST', `/webhooks/${id}/rotate-key`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.signingKey).toMatch(/^whsec_/);
      const tested = await as('POST', `/webhooks/${id}/test`);
      expect([tested.status, tested.body.event]).toEqual([201, 'webhook.test']);
      // The route's own answer without a body: this cash-in does not exist.
      expectError(await as('POST', `/cash-ins/${cashInId}/refresh`), 404, 'CashInNotFound');
      expect((await as('DELETE', `/webhooks/${id}`)).status).toBe(204);
      expectError(await platform.request('GET', `/v0.13/webhooks/${id}`, { token }), 404, 'WebhookNotFound');
    });

    it('is the same request as none: the same Idempotency-Key replays it', async () => {
      const key = randomUUID();
      const first = await platform.request('POST', `/v0.13/webhooks/${webhookId}/disable`, {
        token,
        idempotencyKey: key,
      });
      expect(first.status).toBe(200);
      const again = await send('POST', `/v0.13/webhooks/${webhookId}/disable`, {
        headers: { ...lengthZero, 'idempotency-key': key },
        token,
      });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const chunkedAgain = await send('POST', `/v0.13/webhooks/${webhookId}/disable`, {
        headers: { ...chunked, 'idempotency-key': key },
        token,
      });
      expect([chunkedAgain.status, chunkedAgain.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      await platform.request('POST', `/v0.13/webhooks/${webhookId}/enable`, { token });
    });

    it.each([
      ['Content-Length: 0', lengthZero],
      ['an empty chunked body', chunked],
    ])(
      'on a route that takes a body is a 400 InvalidRequest naming the missing body, and stores nothing (%s)',
      async (_label, headers) => {
        const customers = await countCustomers();
        const res = await send('POST', '/v0.13/customers', { headers, token });
        expectError(res, 400, 'InvalidRequest');
        expect(res.body.cause).toMatch(/no body/);
        expect(await countCustomers()).toBe(customers);
      },
    );

    it('a chunked JSON body is read whole', async () => {
      const res = await send('POST', '/v0.13/customers', {
        headers: chunked,
        chunks: ['{"type":"individual",', '"firstName":"Chunked","lastName":"Body"}'],
        token,
      });
      expect([res.status, res.body.firstName]).toEqual([201, 'Chunked']);
    });

    describe('an unauthenticated request is a 401 whatever its body', () => {
      const missing = { error: 'invalid_request', error_description: 'missing authorization token' };
      it.each([
        ['DELETE with an empty JSON body', 'DELETE', '/webhooks/{id}', lengthZero, undefined],
        ['DELETE with an empty chunked JSON body', 'DELETE', '/webhooks/{id}', chunked, undefined],
        ['a body-less POST with an empty JSON body', 'POST', '/webhooks/{id}/enable', lengthZero, undefined],
        ['malformed JSON', 'POST', '/webhooks', { 'content-type': 'application/json' }, '{"url":'],
        [
          'JSON nested too deep',
          'POST',
          '/customers',
          { 'content-type': 'application/json' },
          `${'['.repeat(40)}${']'.repeat(40)}`,
        ],
        [
          'a duplicate key',
          'POST',
          '/customers',
          { 'content-type': 'application/json' },
          '{"type":"individual","type":"x"}',
        ],
        [
          'bytes that are not UTF-8',
          'POST',
          '/customers',
          { 'content-type': 'application/json' },
          Buffer.from('{"firstName":"\xff"}', 'latin1'),
        ],
        [
          'a charset other than UTF-8',
          'POST',
          '/customers',
          { 'content-type': 'application/json; charset=latin1' },
          '{}',
        ],
        ['a text body', 'POST', '/customers', { 'content-type': 'text/plain' }, 'hello'],
        [
          'a form body',
          'POST',
          '/customers',
          { 'content-type': 'application/x-www-form-urlencoded' },
          'type=individual',
        ],
        ['a body without a Content-Type', 'POST', '/customers', {}, '{}'],
      ])('%s', async (_label, method, path, headers, body) => {
        const target = `/v0.13${path.replace('{id}', webhookId)}`;
        const res = await send(method, target, {
          headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          chunks: body === undefined ? [] : [body],
        });
        expect({ status: res.status, ...res.body }).toMatchObject({ status: 401, ...missing, code: 1000 });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_request"/);
      });

      it('a bad token too: the token is judged before the body', async () => {
        const res = await send('POST', '/v0.13/webhooks', {
          headers: { 'content-type': 'application/json' },
          chunks: ['{"url":'],
          token: 'not-a-token',
        });
        expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: 'invalid_token' });
      });

      it('an operator route without the operator token', async () => {
        const path = '/v0.13/admin/transactions/txn_01h455vb4pex5vsknk084sn02q/retry';
        expectError(
          await send('POST', path, { headers: { 'content-type': 'application/json' }, chunks: ['{"reason":'] }),
          401,
          'Unauthorized',
        );
        // With it, the body is judged.
        expectError(
          await send('POST', path, {
            headers: { 'content-type': 'application/json' },
            chunks: ['{"reason":'],
            token: ADMIN_TOKEN,
          }),
          400,
          'MalformedJson',
        );
      });

      it('once authenticated, the same bodies get their own answers', async () => {
        expectError(
          await send('POST', '/v0.13/webhooks', {
            headers: { 'content-type': 'application/json' },
            chunks: ['{"url":'],
            token,
          }),
          400,
          'MalformedJson',
        );
        expectError(
          await send('POST', '/v0.13/customers', {
            headers: { 'content-type': 'text/plain' },
            chunks: ['hello'],
            token,
          }),
          415,
          'UnsupportedMediaType',
        );
        expectError(
          await send('POST', '/v0.13/customers', {
            headers: { 'content-type': 'application/json' },
            chunks: ['{"type":"individual","type":"x"}'],
            token,
          }),
          400,
          'InvalidRequest',
        );
      });
    });
  });

  describe('a path under another version prefix, or none', () => {
    it.each([
      ['GET', '/v1/customers', 'GET /v0.13/customers'],
      ['GET', '/v0.12/customers?limit=1', 'GET /v0.13/customers'],
      ['POST', '/v1/webhooks', 'POST /v0.13/webhooks'],
      ['GET', '/customers', 'GET /v0.13/customers'],
    ])('%s %s is a 404 saying the API lives under /v0.13, with or without a token', async (method, path, meant) => {
      for (const as of [token, undefined]) {
        const res = await platform.request(method, path, {
          token: as,
          body: method === 'POST' ? { url: 'https://example.com', subscriptions: ['*'] } : undefined,
        });
        expect({ status: res.status, body: res.body }).toEqual({
          status: 404,
          body: {
            error: 'NotFound',
            code: 1104,
            msg: 'not found',
            cause: `no route ${method} ${path.split('?')[0]}: this API lives under /v0.13 (${meant})`,
            status: 404,
            requestId: res.headers.get('x-request-id'),
          },
        });
      }
    });
  });

  describe('a path that takes other methods', () => {
    it.each([
      ['DELETE', '/v0.13/customers'],
      ['PUT', '/v0.13/customers/{id}'],
      ['DELETE', '/v0.13/quotes'],
      ['PUT', '/v0.13/webhooks/{id}'],
      ['OPTIONS', '/v0.13/transactions'],
    ])(
      '%s %s is a 405 naming in Allow every method the reference documents for it, with or without a token',
      async (method, template) => {
        const reference = (await platform.request('GET', '/openapi.json')).body as {
          paths: Record<string, Record<string, unknown>>;
        };
        const documented = Object.keys(reference.paths[template]).map((m) => m.toUpperCase());
        expect(documented).not.toContain(method);
        const path = template.replace('{id}', 'an-id');
        for (const as of [token, undefined]) {
          const res = await platform.request(method, path, { token: as });
          expect(res.status).toBe(405);
          expect(res.body).toEqual({
            error: 'MethodNotAllowed',
            code: 1105,
            msg: 'method not allowed',
            cause: expect.stringContaining(`not ${method}`),
            status: 405,
            requestId: res.headers.get('x-request-id'),
          });
          const allow = (res.headers.get('allow') ?? '').split(', ');
          expect(allow).toEqual(expect.arrayContaining(documented));
          expect(allow).not.toContain(method);
        }
      },
    );

    it('keeps 404 for a path no route has, whatever the method', async () => {
      for (const method of ['GET', 'DELETE', 'OPTIONS']) {
        const res = await platform.request(method, '/v0.13/customers/cst_01h455vb4pex5vsknk084sn02q/nothing-here', {
          token,
        });
        expect(res.status).toBe(404);
        expect(res.headers.get('allow')).toBeNull();
        expect(res.body.error).toBe('NotFound');
      }
    });
  });

  describe('outside the base path', () => {
    it('serves health, readiness, the OpenAPI 3.1 document and the reference page', async () => {
      expect((await platform.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
      expect((await platform.request('GET', '/readyz')).body).toEqual({ status: 'ready' });
      const openapi = await platform.request('GET', '/openapi.json');
      expect(openapi.status).toBe(200);
      expect(openapi.body.openapi).toBe('3.1.0');
      expect(Object.keys(openapi.body.paths)).toEqual(
        expect.arrayContaining([
          '/v0.13/auth/token',
          '/v0.13/customers',
          '/v0.13/customers/{id}/balance',
          '/v0.13/wallets/{id}/balance',
        ]),
      );
      const createCustomer = openapi.body.paths['/v0.13/customers'].post;
      expect(createCustomer.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true })]),
      );
      expect(createCustomer.responses.default.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
      expect(openapi.body.paths['/v0.13/auth/token'].post.parameters ?? []).not.toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key' })]),
      );
      expect(
        openapi.body.paths['/v0.13/customers'].get.responses['200'].content['application/json'].schema.properties.data
          .items,
      ).toEqual({ $ref: '#/components/schemas/CustomerResponse' });
      expect(openapi.body['x-error-catalogue']).toEqual(
        expect.arrayContaining([expect.objectContaining({ error: 'CustomerNotFound', code: 10001, status: 404 })]),
      );
      const docs = await platform.request('GET', '/docs');
      expect(docs.status).toBe(200);
      expect(docs.text).toMatch(/<html/i);
    });

    it('serves Prometheus metrics labelled by route pattern, never by id', async () => {
      await platform.request('GET', '/v0.13/customers/cst_01h455vb4pex5vsknk084sn02q', { token });
      const res = await platform.request('GET', '/metrics');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/process_cpu_user_seconds_total/);
      // Through the gateway the route is its forwarding pattern; each service labels its own routes.
      const route = E2E_MODE === 'distributed' ? '\\/v0\\.13\\/customers\\/\\*' : '\\/v0\\.13\\/customers\\/:id';
      expect(res.text).toMatch(new RegExp(`http_requests_total\\{method="GET",route="${route}",status="404"\\} \\d+`));
      expect(res.text).not.toContain('cst_01h455vb4pex5vsknk084sn02q');
    });

    it(
      'leaves per-route metrics out, and off the request path, when MM_HTTP_METRICS is false',
      async () => {
        const quiet = await TestPlatform.start({ MM_HTTP_METRICS: 'false' }, undefined, { services: ['accounts'] });
        try {
          await quiet.request('GET', '/v0.13/customers', { token: await quiet.token() });
          const res = await quiet.request('GET', '/metrics');
          expect(res.status).toBe(200);
          expect(res.text).toMatch(/process_cpu_user_seconds_total/);
          expect(res.text).not.toMatch(/http_requests_total\{/);
        } finally {
          await quiet.stop();
        }
      },
      START_TIMEOUT_MS,
    );
  });
});
