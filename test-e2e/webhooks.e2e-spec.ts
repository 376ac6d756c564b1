// Spec: Webhook endpoint and delivery, Endpoints / Webhooks, Limits 5; API-CONTRACT:
// Webhooks on the wire. Endpoint management, over HTTP in both modes.
import { settledRowCounts } from './support/row-counts';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('webhook endpoints', () => {
  let platform: TestPlatform;
  let token: string;
  const post = (path: string, body?: unknown, idempotencyKey?: string) =>
    platform.request('POST', `/v0.13${path}`, { token, body, idempotencyKey });
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
      const [row] = await platform.db.query(
        `SELECT count(*)::int AS n FROM "${t.schema}"."${t.name}" r WHERE r::text LIKE $1`,
        [`%${signingKey.slice(6, 30)}%`],
      );
      expect({ table: `${t.schema}.${t.name}`, n: row.n }).toEqual({ table: `${t.schema}.${t.name}`, n: 0 });
    }
  });

  it('replays the create response, key included, for a retry with the same Idempotency-Key', async () => {
    const first = await post(
      '/webhooks',
      { url: 'https://example.com/retry', subscriptions: ['externalAccount.statusChanged'] },
      'create-webhook-1',
    );
    const again = await post(
      '/webhooks',
      { url: 'https://example.com/retry', subscriptions: ['externalAccount.statusChanged'] },
      'create-webhook-1',
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('takes every catalogue event, * and the compliance events by name; refuses unknown names', async () => {
    const res = await post('/webhooks', {
      url: 'http://127.0.0.1:9/receiver',
      subscriptions: [
        'transaction.statusChanged',
        'transaction.cryptoToFiat.underReview',
        'cashIn.expired',
        'webhook.test',
      ],
      timeoutMs: 10000,
      notifyThresholdSecs: 600,
      description: 'ops',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ timeoutMs: 10000, notifyThresholdSecs: 600, description: 'ops' });
    const before = await settledRowCounts(platform);
    expectError(
      await post('/webhooks', { url: 'https://example.com', subscriptions: ['transaction.created'] }),
      422,
      'UnknownEventType',
    );
    expect(await settledRowCounts(platform)).toEqual(before);
  });

  it('refuses an unknown event naming where the valid names are listed, and the events of the resource it seems to mean', async () => {
    const res = await post('/webhooks', { url: 'https://example.com', subscriptions: ['*', 'transaction.created'] });
    expectError(res, 422, 'UnknownEventType');
    expect(res.body.cause).toBe(
      'subscriptions: "transaction.created" is not an event of this version. The transaction events are transaction.statusChanged, transaction.fiatToCrypto.underReview, ' +
        'transaction.cryptoToFiat.underReview, transaction.cryptoToCrypto.underReview. Subscribe to "*" or to names of this version: the event catalogue ' +
        '(the Events page of the documentation, and `webhooks` in GET /openapi.json) lists them',
    );
  });

  it('takes the events of virtual accounts, their lifecycle and their legs (issue 20), on create and PATCH', async () => {
    const lifecycle = [
      'created',
      'provisioned',
      'active',
      'frozen',
      'closed',
      'deleted',
      'failed',
      'statusChanged',
      'updated',
    ].map((e) => `virtualAccount.${e}`);
    const legs = [
      'virtualAccount.deposit.settled',
      'virtualAccount.deposit.returned',
      'virtualAccount.cryptoTransfer.failed',
      'virtualAccount.fiatTransfer.pending',
    ];
    const created = await post('/webhooks', { url: 'https://example.com/virtual-accounts', subscriptions: lifecycle });
    expect(created.status).toBe(201);
    expect(created.body.subscriptions).toEqual(lifecycle);
    const patched = await patch(`/webhooks/${created.body.id}`, { subscriptions: legs });
    expect(patched.status).toBe(200);
    expect(patched.body.subscriptions).toEqual(legs);
  });

  it('takes the events of deposit addresses (issue 19)', async () => {
    const names = ['created', 'active', 'frozen', 'closed', 'failed', 'statusChanged', 'updated'].map(
      (e) => `depositAddress.${e}`,
    );
    const created = await post('/webhooks', { url: 'https://example.com/deposit-addresses', subscriptions: names });
    expect(created.status).toBe(201);
    expect(created.body.subscriptions).toEqual(names);
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

  describe('the url is stored as deliveries call it', () => {
    it.each([
      ['a CR LF and a header after it', 'http://127.0.0.1:4399/a\r\nX: 1'],
      ['a tab inside the host', 'https://exam\tple.com/x'],
      ['a leading space', ' https://example.com/x'],
      ['a trailing space', 'https://example.com/x '],
      ['a trailing newline', 'https://example.com/x\n'],
      ['a space in the path', 'https://example.com/a b'],
      ['a no-break space', 'https://example.com/\u00a0x'],
      ['a zero-width space in the host', 'https://exa\u200bmple.com/x'],
      ['a DEL character', 'https://example.com/\u007fx'],
      ['no slashes after the scheme', 'http:127.0.0.1/a'],
      ['one slash after the scheme', 'https:/example.com/x'],
      ['three slashes after the scheme', 'https:///example.com/x'],
      ['a backslash before @', 'http://127.0.0.1:4399\\@example.com/x'],
      ['a backslash in the path', 'https://example.com/a\\b'],
      ['port 0', 'https://example.com:0/x'],
      ['port 00', 'http://127.0.0.1:00/x'],
    ])('refuses a url with %s, on create and on update, and stores nothing', async (_label, url) => {
      const existing = (await post('/webhooks', { url: 'https://example.com/unchanged', subscriptions: ['*'] })).body;
      const before = await settledRowCounts(platform);
      expectError(await post('/webhooks', { url, subscriptions: ['*'] }), 422, 'InvalidWebhookUrl');
      expectError(await patch(`/webhooks/${existing.id}`, { url }), 422, 'InvalidWebhookUrl');
      expect(await settledRowCounts(platform)).toEqual(before);
      expect((await get(`/webhooks/${existing.id}`)).body.url).toBe('https://example.com/unchanged');
    });

    it.each([
      ['HTTPS://Example.COM/Hooks', 'https://example.com/Hooks'],
      ['https://example.com:443/x', 'https://example.com/x'],
      ['http://example.com:80', 'http://example.com/'],
      ['https://example.com:08443/a/./b/../c?q=1', 'https://example.com:8443/a/c?q=1'],
      ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
      ['https://example.com/ü?q=ü', 'https://example.com/%C3%BC?q=%C3%BC'],
      ['http://0x7f.1:4399/x', 'http://127.0.0.1:4399/x'],
      ['http://[0:0:0:0:0:0:0:1]:4399/x', 'http://[::1]:4399/x'],
    ])('stores and shows %s as %s, on create and on update', async (url, normalised) => {
      const created = await post('/webhooks', { url, subscriptions: ['*'] });
      expect([created.status, created.body.url]).toEqual([201, normalised]);
      expect((await get(`/webhooks/${created.body.id}`)).body.url).toBe(normalised);
      const other = (await post('/webhooks', { url: 'https://example.com/other', subscriptions: ['*'] })).body;
      expect((await patch(`/webhooks/${other.id}`, { url })).body.url).toBe(normalised);
      const [row] = await platform.db.query(`SELECT url FROM webhooks.endpoints WHERE id = $1`, [created.body.id]);
      expect(row.url).toBe(normalised);
    });

    it('calls the url it shows', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const url = receiver.url('/a/../hook');
        const created = await post('/webhooks', { url, subscriptions: ['*'] });
        expect(created.body.url).toBe(receiver.url('/hook'));
        expect((await post(`/webhooks/${created.body.id}/test`)).status).toBe(201);
        const [delivery] = await eventually(async () => (receiver.received.length > 0 ? receiver.received : undefined));
        expect(delivery.path).toBe('/hook');
        expect(delivery.body.data.url).toBe(receiver.url('/hook'));
      } finally {
        await receiver.stop();
      }
    });
  });

  it('updates settings, disables and enables, rotates the key', async () => {
    const created = (await post('/webhooks', { url: 'https://example.com/a', subscriptions: ['*'] })).body;
    const updated = await patch(`/webhooks/${created.id}`, {
      url: 'https://example.com/b',
      subscriptions: ['cashIn.created'],
      timeoutMs: 2000,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      url: 'https://example.com/b',
      subscriptions: ['cashIn.created'],
      timeoutMs: 2000,
      notifyThresholdSecs: 3600,
    });
    expect(updated.body).not.toHaveProperty('signingKey');
    expectError(await patch(`/webhooks/${created.id}`, { status: 'disabled' }), 400, 'InvalidRequest');
    expect((await post(`/webhooks/${created.id}/disable`)).body.status).toBe('disabled');
    expect((await get(`/webhooks/${created.id}`)).body.status).toBe('disabled');
    expect((await post(`/webhooks/${created.id}/enable`)).body.status).toBe('enabled');
    const rotated = await post(`/webhooks/${created.id}/rotate-key`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingKey).toMatch(/^whsec_/);
    expect(rotated.body.signingKey).not.toBe(created.signingKey);
    const types = await platform.db.query(
      `SELECT type FROM webhooks.events WHERE stream_id = $1 ORDER BY stream_version`,
      [`webhook-endpoint-${created.id}`],
    );
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
    const as = (method: string, path: string, body?: unknown) =>
      platform.request(method, `/v0.13${path}`, { token: project.token, body });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await as('POST', '/webhooks', { url: `https://example.com/${i}`, subscriptions: ['*'] })).body.id);
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
    // Webhook endpoints are all this is about: in distributed mode, the gateway and the webhooks service.
    platform = await TestPlatform.start(
      {
        MM_ENVIRONMENT: 'production',
        MM_ALLOW_SIMULATED_PROVIDERS: 'true',
        MM_BOOTSTRAP_API_KEY: 'sk_live_e2eBootstrapKey01',
      },
      undefined,
      { services: ['webhooks'] },
    );
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
    'http://2130706433/x',
    'http://0x7f.1/x',
    'http://localhost./x',
    'http://LOCALHOST./x',
    'http://api.localhost./x',
    // IPv4-mapped, in every spelling
    'http://[::ffff:a00:1]/x',
    'http://[::FFFF:7F00:1]/x',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/x',
    'http://[0000:0000:0000:0000:0000:ffff:a9fe:a9fe]/latest/meta-data',
    'http://[::ffff:0:10.0.0.1]/x',
    // IPv4-compatible
    'http://[::10.0.0.1]/x',
    'http://[::127.0.0.1]/x',
    'http://[::a9fe:a9fe]/x',
    // NAT64
    'http://[64:ff9b::10.0.0.1]/x',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data',
    'http://[64:ff9b::7f00:1]/x',
    'http://[64:ff9b:1::a00:1]/x',
    // 6to4
    'http://[2002:a00:1::]/x',
    'http://[2002:a9fe:a9fe::1]/latest/meta-data',
    'http://[2002:7f00:1::1]/x',
    'http://[2002:c0a8:101::]/x',
  ])('refuses the non-public address %s, on create and on update', async (url) => {
    const existing = (
      await platform.request('POST', '/v0.13/webhooks', {
        token,
        body: { url: 'https://93.184.216.34/unchanged', subscriptions: ['*'] },
      })
    ).body;
    const before = await settledRowCounts(platform);
    expectError(
      await platform.request('POST', '/v0.13/webhooks', { token, body: { url, subscriptions: ['*'] } }),
      422,
      'InvalidWebhookUrl',
    );
    expectError(
      await platform.request('PATCH', `/v0.13/webhooks/${existing.id}`, { token, body: { url } }),
      422,
      'InvalidWebhookUrl',
    );
    expect(await settledRowCounts(platform)).toEqual(before);
  });

  it.each([
    ['https://93.184.216.34/hooks', 'https://93.184.216.34/hooks'],
    ['https://Example.com./hooks', 'https://example.com./hooks'],
    ['https://[2606:4700:4700:0:0:0:0:1111]/hooks', 'https://[2606:4700:4700::1111]/hooks'],
    // IPv6 forms of a public IPv4 address reach that public address
    ['https://[64:ff9b::93.184.216.34]/hooks', 'https://[64:ff9b::5db8:d822]/hooks'],
    ['https://[2002:5db8:d822::1]/hooks', 'https://[2002:5db8:d822::1]/hooks'],
  ])('accepts the public address %s as %s', async (url, normalised) => {
    const res = await platform.request('POST', '/v0.13/webhooks', { token, body: { url, subscriptions: ['*'] } });
    expect([res.status, res.body.url]).toEqual([201, normalised]);
  });
});
