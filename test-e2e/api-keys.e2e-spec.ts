// Partner API keys (docs/operators.md "API keys", docs/sdk.md "Restricted keys" and "Rolling a key"): several
// named keys per project, restricted keys whose tokens reach only what their scopes name, rolling with a chosen
// expiry, the list operators and the project's own keys see, and bad input refused with nothing changed.
import { newTenant } from './support/tenant';
import { ADMIN_TOKEN, expectError, START_TIMEOUT_MS, TestPlatform, type Response } from './support/test-platform';

const KEY_FIELDS = [
  'apiKey',
  'createdAt',
  'expiresAt',
  'lastUsedAt',
  'name',
  'object',
  'projectId',
  'revokedAt',
  'rolledInto',
  'scopes',
  'status',
];

describe('partner API keys', () => {
  let platform: TestPlatform;
  let tenant: Awaited<ReturnType<typeof newTenant>>;
  const admin = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13/admin${path}`, { token: ADMIN_TOKEN, body });
  const token = async (apiKey: string, apiSecret: string) => {
    const res = await platform.request('POST', '/v0.13/auth/token', { body: { apiKey, apiSecret } });
    expect(res.status).toBe(200);
    return res.body.accessToken as string;
  };
  const as = (accessToken: string, method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token: accessToken, body });
  const keys = async () => (await admin('GET', `/projects/${tenant.projectId}/api-keys?limit=100`)).body.data as any[];
  const scopeRefusal = (res: Response, scope: string) => {
    expectError(res, 403, 'InsufficientScope', 1143);
    expect(res.body.cause).toContain(`needs the scope ${scope}`);
  };

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    tenant = await newTenant(platform, { name: 'api keys' });
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('makes a named, restricted key and shows its secret once', async () => {
    const res = await admin('POST', `/projects/${tenant.projectId}/api-keys`, {
      name: '  orders service ',
      scopes: ['transactions:read', 'customers:read', 'customers:write', 'customers:read'],
    });
    expect(res.status).toBe(201);
    // The pair, exactly; the rest is in the list.
    expect(res.body).toEqual({
      apiKey: expect.stringMatching(/^sk_sdbx_[0-9A-Za-z]{24}$/),
      apiSecret: expect.stringMatching(/^[0-9A-Za-z]{40}$/),
    });
    const listed = (await keys()).find((k) => k.apiKey === res.body.apiKey);
    expect(listed).toEqual({
      object: 'apiKey',
      apiKey: res.body.apiKey,
      projectId: tenant.projectId,
      name: 'orders service',
      // Each once, a read its write implies dropped.
      scopes: ['customers:write', 'transactions:read'],
      status: 'active',
      createdAt: expect.any(String),
      lastUsedAt: null,
      expiresAt: null,
      rolledInto: null,
      revokedAt: null,
    });
    expect(Object.keys(listed).sort()).toEqual(KEY_FIELDS);
    expect(JSON.stringify(await keys())).not.toContain(res.body.apiSecret);
  });

  it('reaches only what its scopes name, writing implying reading, and is refused with the scope named', async () => {
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, {
      name: 'reader',
      scopes: ['customers:read', 'wallets:write'],
    });
    const reader = await token(made.body.apiKey, made.body.apiSecret);
    const before = (await tenant.get('/customers?limit=100')).body.data.length;

    expect((await as(reader, 'GET', '/customers')).status).toBe(200);
    scopeRefusal(
      await as(reader, 'POST', '/customers', { type: 'individual', firstName: 'A', lastName: 'B' }),
      'customers:write',
    );
    scopeRefusal(await as(reader, 'GET', '/transactions'), 'quotes:read or transactions:read');
    scopeRefusal(
      await as(reader, 'GET', '/quotes/quote_01jz0000000000000000000000'),
      'quotes:read or transactions:read',
    );
    scopeRefusal(await as(reader, 'GET', '/webhooks'), 'webhooks:read');
    // wallets:write reads wallets too.
    expect((await as(reader, 'GET', '/wallets')).status).toBe(200);
    // Routes no scope names: only a key with every scope.
    for (const [method, path] of [
      ['GET', '/api-keys'],
      ['GET', '/sandbox/clock'],
    ] as const) {
      const res = await as(reader, method, path);
      expectError(res, 403, 'InsufficientScope', 1143);
      expect(res.body.cause).toContain('needs a key with every scope');
    }
    // The refused write changed nothing.
    expect((await tenant.get('/customers?limit=100')).body.data.length).toBe(before);

    // The key's last use is when it last obtained a token.
    const listed = (await keys()).find((k) => k.apiKey === made.body.apiKey);
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(listed.createdAt));
  });

  it('guards every partner route of the document, in every service, before anything else', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body;
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, { scopes: ['events:read'] });
    const eventsOnly = await token(made.body.apiKey, made.body.apiSecret);
    const seen: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // Partner routes: a bearer token, not an operator's.
        if (!operation.security?.some((s: object) => 'bearer' in s) || operation['x-operator-role']) continue;
        const res = await platform.request(method.toUpperCase(), path.replace(/\{[^}]+\}/g, 'x_1'), {
          token: eventsOnly,
          body: method === 'get' || method === 'delete' ? undefined : {},
        });
        const allowed = method === 'get' && path.startsWith('/v0.13/events');
        seen.push(`${method} ${path}`);
        if (allowed) expect({ path, status: res.status }).not.toEqual({ path, status: 403 });
        else
          expect({ path, method, status: res.status, error: res.body?.error }).toEqual({
            path,
            method,
            status: 403,
            error: 'InsufficientScope',
          });
      }
    }
    expect(seen.length).toBeGreaterThan(60);
  });

  it('takes quotes and transactions as one resource, under either name', async () => {
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, { scopes: ['transactions:write'] });
    const payer = await token(made.body.apiKey, made.body.apiSecret);
    // Past the scope check: the body is what is refused.
    expectError(await as(payer, 'POST', '/quotes', {}), 400, 'InvalidRequest');
    expect((await as(payer, 'GET', '/transactions')).status).toBe(200);
    scopeRefusal(await as(payer, 'GET', '/customers'), 'customers:read');
  });

  it('lets a write scope create', async () => {
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, { scopes: ['customers:write'] });
    const writer = await token(made.body.apiKey, made.body.apiSecret);
    const created = await as(writer, 'POST', '/customers', { type: 'individual', firstName: 'Wri', lastName: 'Ter' });
    expect(created.status).toBe(201);
    expect((await as(writer, 'GET', `/customers/${created.body.id}`)).status).toBe(200);
  });

  it('rolls a key: a new pair with its name and scopes; the old one stops at once with 0 s', async () => {
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, {
      name: 'to roll',
      scopes: ['customers:read'],
    });
    const old = await token(made.body.apiKey, made.body.apiSecret);
    expect((await as(old, 'GET', '/customers')).status).toBe(200);

    const rolled = await admin('POST', `/api-keys/${made.body.apiKey}/roll`, { expiresInSeconds: 0 });
    expect(rolled.status).toBe(201);
    expect(rolled.body).toEqual({ apiKey: expect.stringMatching(/^sk_sdbx_/), apiSecret: expect.any(String) });
    const after = await keys();
    expect(after.find((k) => k.apiKey === rolled.body.apiKey)).toMatchObject({
      name: 'to roll',
      scopes: ['customers:read'],
      status: 'active',
    });
    expect(after.find((k) => k.apiKey === made.body.apiKey)).toMatchObject({
      status: 'expired',
      rolledInto: rolled.body.apiKey,
      expiresAt: expect.any(String),
    });
    expect(rolled.body.apiKey).not.toBe(made.body.apiKey);
    // The old key's token and the old pair stop working; the new pair works with the same scopes.
    expect((await as(old, 'GET', '/customers')).status).toBe(401);
    const refusedPair = await platform.request('POST', '/v0.13/auth/token', {
      body: { apiKey: made.body.apiKey, apiSecret: made.body.apiSecret },
    });
    expect(refusedPair.status).toBe(401);
    expect(refusedPair.body.error_description).toContain(`rolled into, ${rolled.body.apiKey}`);
    const fresh = await token(rolled.body.apiKey, rolled.body.apiSecret);
    expect((await as(fresh, 'GET', '/customers')).status).toBe(200);
    scopeRefusal(await as(fresh, 'GET', '/wallets'), 'wallets:read');

    // A key is rolled once: rolling it again is refused and makes nothing.
    const count = (await keys()).length;
    const again = await admin('POST', `/api-keys/${made.body.apiKey}/roll`, { expiresInSeconds: 60 });
    expectError(again, 409, 'ApiKeyNotRollable', 1212);
    expect((await keys()).length).toBe(count);
  });

  it('rolls with an expiry: the old key works until then, in every process, and not after', async () => {
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, { name: 'later' });
    const old = await token(made.body.apiKey, made.body.apiSecret);
    const rolled = await admin('POST', `/api-keys/${made.body.apiKey}/roll`, { expiresInSeconds: 3 });
    expect(rolled.status).toBe(201);
    const oldKey = (await keys()).find((k) => k.apiKey === made.body.apiKey);
    expect(oldKey).toMatchObject({ status: 'active', rolledInto: rolled.body.apiKey });
    const expiresAt = Date.parse(oldKey.expiresAt);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(3_000);
    // Before its expiry: both keys work, and a new token of the old key ends with it.
    expect((await as(old, 'GET', '/customers')).status).toBe(200);
    const late = await platform.request('POST', '/v0.13/auth/token', {
      body: { apiKey: made.body.apiKey, apiSecret: made.body.apiSecret },
    });
    expect(late.status).toBe(200);
    expect(Date.parse(late.body.expiresAt)).toBeLessThanOrEqual(expiresAt);
    // Past it, every token of the old key is refused.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1));
    expect((await as(old, 'GET', '/customers')).status).toBe(401);
    expect((await as(late.body.accessToken, 'GET', '/customers')).status).toBe(401);
    const listed = (await keys()).find((k) => k.apiKey === made.body.apiKey);
    expect(listed).toMatchObject({ status: 'expired', rolledInto: rolled.body.apiKey });
  });

  it('refuses bad input with a 4xx in the error body, and changes nothing', async () => {
    const count = (await keys()).length;
    for (const body of [
      { scopes: [] },
      { scopes: ['customers:delete'] },
      { scopes: ['customers'] },
      { scopes: 'customers:read' },
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'two\nlines' },
      { name: 42 },
    ]) {
      const res = await admin('POST', `/projects/${tenant.projectId}/api-keys`, body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({
        body,
        status: 400,
        error: 'InvalidRequest',
      });
    }
    const target = (await keys())[0].apiKey as string;
    for (const expiresInSeconds of [-1, 604_801, 1.5, '10', null]) {
      const res = await admin('POST', `/api-keys/${target}/roll`, { expiresInSeconds });
      expect({ expiresInSeconds, status: res.status, error: res.body.error }).toEqual({
        expiresInSeconds,
        status: 400,
        error: 'InvalidRequest',
      });
    }
    expectError(await admin('POST', '/api-keys/sk_sdbx_noSuchKey00000000000000/roll', {}), 404, 'ApiKeyNotFound', 1211);
    expectError(await admin('GET', '/projects/project_01jz0000000000000000000000/api-keys'), 404, 'ProjectNotFound');
    expectError(await admin('GET', `/projects/${tenant.projectId}/api-keys?cursor=nonsense`), 400, 'InvalidCursor');
    expect((await keys()).length).toBe(count);
    // A revoked key cannot be rolled.
    const made = await admin('POST', `/projects/${tenant.projectId}/api-keys`, {});
    expect((await admin('DELETE', `/api-keys/${made.body.apiKey}`)).status).toBe(200);
    expectError(await admin('POST', `/api-keys/${made.body.apiKey}/roll`, {}), 409, 'ApiKeyNotRollable', 1212);
  });

  it("pages a project's keys newest first", async () => {
    const all = await keys();
    const first = await admin('GET', `/projects/${tenant.projectId}/api-keys?limit=2`);
    expect(first.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    const second = await admin('GET', `/projects/${tenant.projectId}/api-keys?limit=2&cursor=${first.body.nextCursor}`);
    expect([...first.body.data, ...second.body.data].map((k: any) => k.apiKey)).toEqual(
      all.slice(0, 4).map((k) => k.apiKey),
    );
  });

  it("lets a key with every scope manage its own project's keys, and no other project's", async () => {
    const made = await tenant.post('/api-keys', { name: 'self-made', scopes: ['events:read'] });
    expect(made.status).toBe(201);
    const mine = await tenant.get('/api-keys?limit=100');
    expect(mine.status).toBe(200);
    expect(mine.body.data.every((k: any) => k.projectId === tenant.projectId)).toBe(true);
    expect(mine.body.data.find((k: any) => k.apiKey === made.body.apiKey)).toMatchObject({
      name: 'self-made',
      scopes: ['events:read'],
    });

    const other = await newTenant(platform, { name: 'api keys, another project' });
    const theirs = (await other.get('/api-keys')).body.data[0].apiKey as string;
    expectError(await tenant.post(`/api-keys/${theirs}/roll`, {}), 404, 'ApiKeyNotFound');
    expectError(await tenant.del(`/api-keys/${theirs}`), 404, 'ApiKeyNotFound');
    expect((await other.get('/customers')).status).toBe(200);

    const rolled = await tenant.post(`/api-keys/${made.body.apiKey}/roll`, { expiresInSeconds: 0 });
    expect(rolled.status).toBe(201);
    expect((await tenant.del(`/api-keys/${rolled.body.apiKey}`)).body).toMatchObject({ status: 'revoked' });

    // Each in the audit log, by the key that acted, the new secrets redacted.
    const log = await admin('GET', `/audit-log?action=${encodeURIComponent('POST /v0.13/api-keys/:apiKey/roll')}`);
    const entry = log.body.data.find((e: any) => e.phase === 'response' && e.targetId === made.body.apiKey);
    expect(entry).toMatchObject({
      actor: { role: 'partner', via: 'api-key' },
      targetType: 'api-keys',
      status: 201,
      after: { apiKey: rolled.body.apiKey, apiSecret: '[redacted]' },
    });
    expect(JSON.stringify(log.body)).not.toContain(rolled.body.apiSecret);
  });
});
