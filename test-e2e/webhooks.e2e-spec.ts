// Spec: Webhook endpoint and delivery, Endpoints / Webhooks, Limits 5; API-CONTRACT:
// Webhooks on the wire. Endpoint management, over HTTP in both modes.
import { settledRowCounts } from './support/row-counts';
import { expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('webhook endpoints', () => {
  let platform: TestPlatform;
  let token: string;
  const post = (path: string, body?: unknown, idempotencyKey?: string) => platform.request('POST', `/v0.13${path}`, { token, body, idempotencyKey });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });
  const patch = (path: string, body?: unknown) => platform.request('PATCH', `/v0.13${path}`, { token, body });

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('creates an endpoint with the defaults; the signing key is in the create response only', async () => {
    const res = await post('/webhooks', { url: 'https://example.com/hooks', subscriptions: ['*'] });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-hjkmnp-tv-z]{26}$/),
      object: 'webhookEndpoint',
      url: 'https://example.com/hooks',
      subscriptions: ['*'],
      timeoutMs: 5000,
      notifyThresholdSecs: 3600,
      description: null,
      status: 'enabled',
      signingKey: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const { signingKey, ...rest } = res.body;
    expect((await get(`/webhooks/${res.body.id}`)).body).toEqual(rest);
    // Not stored in the clear anywhere: not in an event, a read model or the idempotency record.
    const tables = await platform.db.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    for (const t of tables) {
      const [row] = await platform.db.query(`SELECT count(*)::int AS n FROM "${t.schema}"."${t.name}" r WHERE r::text LIKE $1`, [`%${signingKey.slice(6, 30)}%`]);
      expect({ table: `${t.schema}.${t.name}`, n: row.n }).toEqual({ table: `${t.schema}.${t.name}`, n: 0 });
    }
  });

  it('replays the create response, key included, for a retry with the same Idempotency-Key', async () => {
    const first = await post('/webhooks', { url: 'https://example.com/retry', subscriptions: ['externalAccount.statusChanged'] }, 'create-webhook-1');
    const again = await post('/webhooks', { url: 'https://example.com/retry', subscriptions: ['externalAccount.statusChanged'] }, 'create-webhook-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('takes every catalogue event, * and the compliance events by name; refuses unknown names', async () => {
    const res = await post('/webhooks', {
      url: 'http://127.0.0.1:9/receiver',
      subscriptions: ['transaction.statusChanged', 'transaction.cryptoToFiat.underReview', 'deposit_address.ach_payout.returned', 'webhook.test'],
      timeoutMs: 10000,
      notifyThresholdSecs: 600,
      description: 'ops',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ timeoutMs: 10000, notifyThresholdSecs: 600, description: 'ops' });
    const before = await settledRowCounts(platform);
    expectError(await post('/webhooks', { url: 'https://example.com', subscriptions: ['transaction.created'] }), 422, 'UnknownEventType');
    expect(await settledRowCounts(platform)).toEqual(before);
  });

  it.each([
    [{ url: 'ftp://example.com/x', subscriptions: ['*'] }, 422, 'InvalidWebhookUrl'],
    [{ url: 'example.com/x', subscriptions: ['*'] }, 422, 'InvalidWebhookUrl'],
    [{ url: 'https://user:pass@example.com/x', subscriptions: ['*'] }, 422, 'InvalidWebhookUrl'],
    [{ url: 'https://example.com/x', subscriptions: [] }, 400, 'InvalidRequest'],
    [{ url: 'https://example.com/x' }, 400, 'InvalidRequest'],
    [{ url: 'https://example.com/x', subscriptions: ['*'], timeoutMs: 10001 }, 400, 'InvalidRequest'],
    [{ url: 'https://example.com/x', subscriptions: ['*'], timeoutMs: 0 }, 400, 'InvalidRequest'],
    [{ url: 'https://example.com/x', subscriptions: ['*'], notifyThresholdSecs: 599 }, 400, 'InvalidRequest'],
    [{ url: 'https://example.com/x', subscriptions: ['*'], notifyThresholdSecs: 86401 }, 400, 'InvalidRequest'],
    [{ url: 'https://example.com/x', subscriptions: ['*'], signingKey: 'whsec_mine' }, 400, 'InvalidRequest'],
  ])('refuses %p with a %d and stores nothing', async (body, status, error) => {
    const before = await settledRowCounts(platform);
    expectError(await post('/webhooks', body), status, error);
    expect(await settledRowCounts(platform)).toEqual(before);
  });

  it('updates settings, disables and enables, rotates the key', async () => {
    const created = (await post('/webhooks', { url: 'https://example.com/a', subscriptions: ['*'] })).body;
    const updated = await patch(`/webhooks/${created.id}`, { url: 'https://example.com/b', subscriptions: ['cashIn.created'], timeoutMs: 2000 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ url: 'https://example.com/b', subscriptions: ['cashIn.created'], timeoutMs: 2000, notifyThresholdSecs: 3600 });
    expect(updated.body).not.toHaveProperty('signingKey');
    expectError(await patch(`/webhooks/${created.id}`, { status: 'disabled' }), 400, 'InvalidRequest');
    expect((await post(`/webhooks/${created.id}/disable`)).body.status).toBe('disabled');
    expect((await get(`/webhooks/${created.id}`)).body.status).toBe('disabled');
    expect((await post(`/webhooks/${created.id}/enable`)).body.status).toBe('enabled');
    const rotated = await post(`/webhooks/${created.id}/rotate-key`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingKey).toMatch(/^whsec_/);
    expect(rotated.body.signingKey).not.toBe(created.signingKey);
    const types = await platform.db.query(`SELECT type FROM webhooks.events WHERE stream_id = $1 ORDER BY stream_version`, [`webhook-endpoint-${created.id}`]);
    expect(types.map((r: { type: string }) => r.type)).toEqual([
      'webhookEndpoint.created',
      'webhookEndpoint.updated',
      'webhookEndpoint.disabled',
      'webhookEndpoint.enabled',
      'webhookEndpoint.signingKeyRotated',
    ]);
  });

  it('lists newest first with pagination, and deletes softly', async () => {
    const project = await platform.newProject('webhooks-list');
    const as = (method: string, path: string, body?: unknown) => platform.request(method, `/v0.13${path}`, { token: project.token, body });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await as('POST', '/webhooks', { url: `https://example.com/${i}`, subscriptions: ['*'] })).body.id);
    const first = await as('GET', '/webhooks?limit=2');
    expect(first.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.data[0]).not.toHaveProperty('signingKey');
    const second = await as('GET', `/webhooks?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], hasMore: false, nextCursor: null });
    const deleted = await as('DELETE', `/webhooks/${ids[1]}`);
    expect(deleted.status).toBe(204);
    expectError(await as('GET', `/webhooks/${ids[1]}`), 404, 'WebhookNotFound');
    expect((await as('GET', '/webhooks')).body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[0]]);
    expectError(await as('POST', `/webhooks/${ids[1]}/enable`), 404, 'WebhookNotFound');
    // Another project sees none of them.
    expectError(await get(`/webhooks/${ids[0]}`), 404, 'WebhookNotFound');
    expectError(await get('/webhooks/wh_nope'), 400, 'InvalidWebhookID');
  });
});

describe('webhook endpoints in production', () => {
  let platform: TestPlatform;
  let token: string;

  beforeAll(async () => {
    platform = await TestPlatform.start({ MM_ENVIRONMENT: 'production', MM_BOOTSTRAP_API_KEY: 'sk_live_e2eBootstrapKey01' });
    token = await platform.token('sk_live_e2eBootstrapKey01');
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it.each([
    'http://localhost/x',
    'http://127.0.0.1:8080/x',
    'http://10.1.2.3/x',
    'http://172.16.0.1/x',
    'http://192.168.1.1/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x',
    'http://[fe80::1]/x',
    'http://[fd00::1]/x',
    'http://0.0.0.0/x',
    'http://[::ffff:10.0.0.1]/x',
  ])('refuses the non-public address %s', async (url) => {
    expectError(await platform.request('POST', '/v0.13/webhooks', { token, body: { url, subscriptions: ['*'] } }), 422, 'InvalidWebhookUrl');
  });

  it('accepts a public address', async () => {
    expect((await platform.request('POST', '/v0.13/webhooks', { token, body: { url: 'https://93.184.216.34/hooks', subscriptions: ['*'] } })).status).toBe(201);
  });
});
