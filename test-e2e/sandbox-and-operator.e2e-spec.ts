// API-CONTRACT: Operator routes, Sandbox simulations, Addresses/modes;
// spec: GET /risk/config.
import { createServer, type Server } from 'node:net';
import { cloneTemplateDatabase } from '@mm/platform/testing';
import { freeLoopbackPort } from '@mm/runtime/platform';
import {
  ADMIN_TOKEN,
  eventually,
  expectError,
  GATEWAY_ALONE,
  type Response,
  START_TIMEOUT_MS,
  TestPlatform,
} from './support/test-platform';

/** A port something else listens on, on every interface. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const port = await freeLoopbackPort();
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  return { port, server };
}

describe('sandbox clock', () => {
  let platform: TestPlatform;
  let token: string;
  beforeAll(async () => {
    // Every route these tests call is the accounts service's (distributed, the others are not started).
    platform = await TestPlatform.start({}, undefined, { services: ['accounts'] });
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('stamps the advanced time on the very next command, though offsets are kept in memory', async () => {
    const { token: own } = await platform.newProject('clock-at-once');
    // Read (and so remember) the offset first, then move it and write at once.
    const start = Date.parse((await platform.request('GET', '/v0.13/sandbox/clock', { token: own })).body.now);
    await platform.request('POST', '/v0.13/customers', {
      token: own,
      body: { type: 'individual', firstName: 'A', lastName: 'B' },
    });
    expect(
      (await platform.request('POST', '/v0.13/sandbox/clock/advance', { token: own, body: { seconds: 7200 } })).status,
    ).toBe(200);
    const customer = await platform.request('POST', '/v0.13/customers', {
      token: own,
      body: { type: 'individual', firstName: 'C', lastName: 'D' },
    });
    expect(Date.parse(customer.body.createdAt) - start).toBeGreaterThanOrEqual(7_200_000);
  });

  it(
    'moves the clock for another process on the same database too',
    async () => {
      const { token: own } = await platform.newProject('clock-elsewhere');
      const other = await TestPlatform.start({}, platform.running.databaseUrl, { services: ['accounts'] });
      try {
        const before = Date.parse((await other.request('GET', '/v0.13/sandbox/clock', { token: own })).body.now);
        expect(
          (await platform.request('POST', '/v0.13/sandbox/clock/advance', { token: own, body: { seconds: 86400 } }))
            .status,
        ).toBe(200);
        await eventually(async () => {
          const now = Date.parse((await other.request('GET', '/v0.13/sandbox/clock', { token: own })).body.now);
          return now - before >= 86_400_000 ? now : undefined;
        }, 5000);
      } finally {
        await other.stop();
      }
    },
    START_TIMEOUT_MS,
  );

  it('reads and advances the project clock; new resources carry the advanced time', async () => {
    const before = await platform.request('GET', '/v0.13/sandbox/clock', { token });
    expect(before.body).toEqual({ object: 'sandboxClock', now: expect.any(String), offsetSeconds: 0 });
    const advanced = await platform.request('POST', '/v0.13/sandbox/clock/advance', {
      token,
      body: { seconds: 86400 },
    });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ object: 'sandboxClock', offsetSeconds: 86400, firedTimers: 0 });
    expect(Date.parse(advanced.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(86400_000);
    const customer = await platform.request('POST', '/v0.13/customers', {
      token,
      body: { type: 'individual', firstName: 'T', lastName: 'Ime' },
    });
    expect(Date.parse(customer.body.createdAt) - Date.now()).toBeGreaterThan(86000_000);
  });

  it.each([[0], [-1], [1.5], ['60'], [null]])('refuses to advance by %p', async (seconds) => {
    const res = await platform.request('POST', '/v0.13/sandbox/clock/advance', { token, body: { seconds } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('InvalidRequest');
  });

  it('fires the timers that fall due when advanced, and only those', async () => {
    // A real timer: the provisioning deadline of an external account whose provider never answers (docs/sandbox.md).
    const customer = await platform.request('POST', '/v0.13/customers', {
      token,
      body: { type: 'individual', firstName: 'T', lastName: 'Imer' },
    });
    const account = await platform.request('POST', '/v0.13/external-accounts', {
      token,
      body: {
        owner: { kind: 'customer', customerId: customer.body.id },
        type: 'bankUs',
        bankUs: { accountNumber: '000123450003', routingNumber: '021000021' },
      },
    });
    expect(account.status).toBe(201);
    await platform.settle();
    // Real time passes too: a margin of 20 seconds either side of the 15-minute deadline.
    const early = await platform.request('POST', '/v0.13/sandbox/clock/advance', { token, body: { seconds: 880 } });
    expect(early.body.firedTimers).toBe(0);
    expect((await platform.request('GET', `/v0.13/external-accounts/${account.body.id}`, { token })).body.status).toBe(
      'pending',
    );
    const due = await platform.request('POST', '/v0.13/sandbox/clock/advance', { token, body: { seconds: 40 } });
    expect(due.body.firedTimers).toBe(1);
    expect(
      (await platform.request('GET', `/v0.13/external-accounts/${account.body.id}`, { token })).body,
    ).toMatchObject({ status: 'failed', failure: { code: 'provisioning_timeout' } });
  });
});

describe('operator routes', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  /** Every project, page by page (on the shared platform other files' projects come first). */
  async function allProjects(): Promise<Array<{ id: string; name: string }>> {
    const all: Array<{ id: string; name: string }> = [];
    for (let cursor: string | null = null; ;) {
      const page: Response = await platform.admin('GET', `/projects?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      all.push(...page.body.data);
      if (!page.body.hasMore) return all;
      cursor = page.body.nextCursor;
    }
  }

  it('creates, reads, lists and updates projects', async () => {
    const created = await platform.admin('POST', '/projects', {
      body: { name: 'acme', features: { cashPickup: true } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^prj_/),
      object: 'project',
      name: 'acme',
      features: { depositAddresses: false, cashPickup: true, globalRemittance: false, bulkPayouts: false },
      limits: {},
    });
    expect((await platform.admin('GET', `/projects/${created.body.id}`)).body).toEqual(created.body);
    expect((await allProjects()).map((p) => p.name)).toEqual(expect.arrayContaining(['acme', 'default']));
    const patched = await platform.admin('PATCH', `/projects/${created.body.id}`, {
      body: {
        features: { depositAddresses: true },
        limits: { perTransactionMax: '5000.00', dailyBankPayoutCap: '20000' },
        attributionTimeoutHours: 24,
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      features: { depositAddresses: true, cashPickup: true },
      limits: { perTransactionMax: '5000.00', dailyBankPayoutCap: '20000' },
      attributionTimeoutHours: 24,
    });
  });

  it('names the start-up project default', async () => {
    expect((await allProjects()).filter((p) => p.name === 'default')).toHaveLength(1);
  });

  it('shows an API secret once and lets the pair obtain a token', async () => {
    const project = await platform.admin('POST', '/projects', { body: { name: 'keys' } });
    const pair = await platform.admin('POST', `/projects/${project.body.id}/api-keys`);
    expect(pair.status).toBe(201);
    expect(pair.body).toEqual({
      apiKey: expect.stringMatching(/^sk_sdbx_[A-Za-z0-9]{24}$/),
      apiSecret: expect.any(String),
    });
    const [row] = await platform.running.dataSource.query(
      `SELECT secret_hash FROM gateway.api_keys WHERE api_key = $1`,
      [pair.body.apiKey],
    );
    expect(row.secret_hash).not.toContain(pair.body.apiSecret);
    const events = await platform.running.dataSource.query(`SELECT data::text AS data FROM gateway.events`);
    for (const e of events) expect(e.data).not.toContain(pair.body.apiSecret);
    // Even with an Idempotency-Key, the response holding the secret is not stored for replay.
    const keyed = await platform.admin('POST', `/projects/${project.body.id}/api-keys`, {
      idempotencyKey: 'operator-key-1',
    });
    const stored = await platform.running.dataSource.query(
      `SELECT response_body::text AS body FROM platform.idempotency_keys`,
    );
    for (const row of stored) expect(row.body).not.toContain(keyed.body.apiSecret);
    expect(await platform.token(pair.body.apiKey, pair.body.apiSecret)).toEqual(expect.any(String));
  });

  // Issue 18 item 5: spec rule 6 and API-CONTRACT (Idempotency) hold on operator routes too, and the
  // OpenAPI document and docs/running.md say so.
  describe('Idempotency-Key on every operator POST and PATCH', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = (await platform.admin('POST', '/projects', { body: { name: 'idempotent-operator' } })).body.id;
    });
    const counts = async () => {
      const [row] = await platform.db.query(
        `SELECT (SELECT count(*) FROM gateway.projects WHERE name = $3)::int AS projects, (SELECT count(*) FROM gateway.api_keys WHERE project_id = $1)::int AS keys,
                (SELECT count(*) FROM gateway.publishable_keys WHERE project_id = $1)::int AS publishable, (SELECT count(*) FROM gateway.events WHERE stream_id = $2)::int AS events`,
        [projectId, `project-${projectId}`, `no-key-${projectId}`],
      );
      return row;
    };

    it.each([
      ['POST', '/projects', { name: 'no-key-{projectId}' }],
      ['PATCH', '/projects/{projectId}', { attributionTimeoutHours: 12 }],
      ['POST', '/projects/{projectId}/api-keys', undefined],
      ['POST', '/projects/{projectId}/publishable-keys', undefined],
    ])('%s %s without one is a 400 and changes nothing', async (method, path, body) => {
      const before = await counts();
      const res = await platform.admin(method, path.replace('{projectId}', projectId), {
        body: body && JSON.parse(JSON.stringify(body).replace('{projectId}', projectId)),
        idempotencyKey: null,
      });
      expectError(res, 400, 'IdempotencyKeyRequired', 1110);
      expect(await counts()).toEqual(before);
    });

    it('makes no second API key pair for a retry with the same key: the secret is shown once, so the retry is refused naming the key', async () => {
      const key = `operator-api-key-${projectId}`;
      const first = await platform.admin('POST', `/projects/${projectId}/api-keys`, { idempotencyKey: key });
      expect(first.status).toBe(201);
      const before = await counts();
      const again = await platform.admin('POST', `/projects/${projectId}/api-keys`, { idempotencyKey: key });
      expectError(again, 409, 'IdempotentReplayUnavailable', 1114);
      expect(again.body.cause).toContain(first.body.apiKey);
      expect(JSON.stringify(again.body)).not.toContain(first.body.apiSecret);
      expect(await counts()).toEqual(before);
      expect(await platform.token(first.body.apiKey, first.body.apiSecret)).toEqual(expect.any(String));
    });

    it('is documented as required on every operator POST and PATCH', async () => {
      const document = (await platform.request('GET', '/openapi.json')).body;
      const operations = Object.entries(
        document.paths as Record<string, Record<string, { parameters?: Array<{ name: string; required?: boolean }> }>>,
      ).flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([method]) => path.includes('/admin/') && (method === 'post' || method === 'patch'))
          .map(
            ([method, operation]) =>
              `${method.toUpperCase()} ${path}: ${operation.parameters?.find((p) => p.name === 'Idempotency-Key')?.required === true ? 'required' : 'not required'}`,
          ),
      );
      expect(operations.length).toBeGreaterThanOrEqual(8);
      expect(operations.filter((o) => !o.endsWith(': required'))).toEqual([]);
    });
  });

  it('refuses bad operator input and unknown projects', async () => {
    expectError(await platform.admin('POST', '/projects', { body: { name: '' } }), 400, 'InvalidRequest');
    expectError(
      await platform.admin('POST', '/projects', { body: { name: 'x', features: { cashPickup: 'yes' } } }),
      400,
      'InvalidRequest',
    );
    expectError(await platform.admin('GET', '/projects/prj_01h455vb4pex5vsknk084sn02q'), 404, 'ProjectNotFound');
    expectError(await platform.admin('GET', '/projects/nope'), 404, 'ProjectNotFound');
    expectError(
      await platform.admin('PATCH', '/projects/prj_01h455vb4pex5vsknk084sn02q', {
        body: { attributionTimeoutHours: 2 },
      }),
      404,
      'ProjectNotFound',
    );
    expectError(await platform.admin('DELETE', '/api-keys/sk_sdbx_unknown'), 404, 'ApiKeyNotFound');
  });

  it('needs the operator token', async () => {
    expectError(await platform.request('GET', '/v0.13/admin/projects'), 401, 'Unauthorized', 1000);
    expectError(
      await platform.request('GET', '/v0.13/admin/projects', { token: `${ADMIN_TOKEN}x` }),
      401,
      'Unauthorized',
      1000,
    );
  });

  describe('GET /risk/config', () => {
    let projectId: string;
    beforeAll(async () => {
      projectId = (await platform.admin('POST', '/projects', { body: { name: 'risk' } })).body.id;
    });

    it('returns only clientId and partnerId, with Cache-Control: no-store', async () => {
      const { publishableKey } = (await platform.admin('POST', `/projects/${projectId}/publishable-keys`)).body;
      expect(publishableKey).toMatch(/^pk_sdbx_/);
      const res = await platform.request('GET', '/v0.13/risk/config', { headers: { 'api-key': publishableKey } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['clientId', 'partnerId']);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body.partnerId).not.toContain(projectId);
    });

    it('answers a browser preflight for the Api-Key header, and only on this route', async () => {
      const preflight = {
        origin: 'https://shop.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'api-key',
      };
      const res = await platform.request('OPTIONS', '/v0.13/risk/config', { headers: preflight });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('api-key');
      const { publishableKey } = (await platform.admin('POST', `/projects/${projectId}/publishable-keys`)).body;
      const get = await platform.request('GET', '/v0.13/risk/config', {
        headers: { origin: 'https://shop.example', 'api-key': publishableKey },
      });
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin')).toBe('*');
      const elsewhere = await platform.request('OPTIONS', '/v0.13/customers', {
        headers: { ...preflight, 'access-control-request-headers': 'authorization' },
      });
      expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers an OPTIONS that is no browser preflight (no Origin) as it answers one, never with a plain-text refusal', async () => {
      const requests: Array<Record<string, string>> = [
        {},
        { 'access-control-request-method': 'GET' },
        { origin: 'https://shop.example' },
      ];
      for (const headers of requests) {
        const res = await platform.request('OPTIONS', '/v0.13/risk/config', { headers });
        expect({ status: res.status, allowed: res.headers.get('access-control-allow-methods') }).toEqual({
          status: 204,
          allowed: 'GET',
        });
      }
    });

    it('answers 401 to a missing, unknown or revoked key', async () => {
      const { publishableKey } = (await platform.admin('POST', `/projects/${projectId}/publishable-keys`)).body;
      expectError(await platform.request('GET', '/v0.13/risk/config'), 401, 'Unauthorized', 1000);
      expectError(
        await platform.request('GET', '/v0.13/risk/config', { headers: { 'api-key': 'pk_sdbx_unknown0000000000000' } }),
        401,
        'Unauthorized',
        1000,
      );
      expect((await platform.admin('DELETE', `/publishable-keys/${publishableKey}`)).status).toBe(204);
      expectError(
        await platform.request('GET', '/v0.13/risk/config', { headers: { 'api-key': publishableKey } }),
        401,
        'Unauthorized',
        1000,
      );
    });

    it('answers 403 when the key mode does not match the host, whether or not this host knows the key', async () => {
      expectError(
        await platform.request('GET', '/v0.13/risk/config', {
          headers: { 'api-key': 'pk_live_fromTheProductionHost00' },
        }),
        403,
        'Forbidden',
      );
      // Even a production key stored on this sandbox deployment, as if copied across databases.
      await platform.running.dataSource.query(
        `INSERT INTO gateway.publishable_keys (publishable_key, project_id, mode, created_at) VALUES ('pk_live_copiedAcrossHosts0000', $1, 'live', now())`,
        [projectId],
      );
      const res = await platform.request('GET', '/v0.13/risk/config', {
        headers: { 'api-key': 'pk_live_copiedAcrossHosts0000' },
      });
      expectError(res, 403, 'Forbidden');
      expect(res.headers.get('cache-control')).toBe('no-store');
    });
  });
});

describe('start-up bootstrap (API-CONTRACT: Addresses, modes, start-up)', () => {
  it('creates a default project and key pair on an empty database once, showing the secret only then', async () => {
    const noBootstrap = { MM_BOOTSTRAP_API_KEY: '', MM_BOOTSTRAP_API_SECRET: '' };
    const first = await TestPlatform.start(noBootstrap, undefined, GATEWAY_ALONE);
    const url = first.running.databaseUrl;
    const created = first.running.bootstrap!;
    expect(created).toMatchObject({
      created: true,
      apiKey: expect.stringMatching(/^sk_sdbx_/),
      apiSecret: expect.any(String),
    });
    expect(await first.token(created.apiKey, created.apiSecret)).toEqual(expect.any(String));
    await first.stop();

    const second = await TestPlatform.start(noBootstrap, url, GATEWAY_ALONE);
    try {
      expect(second.running.bootstrap).toEqual({
        projectId: created.projectId,
        apiKey: created.apiKey,
        created: false,
      });
      const projects = await second.admin('GET', '/projects');
      expect(projects.body.data).toHaveLength(1);
      expect(projects.body.data[0]).toMatchObject({ id: created.projectId, name: 'default' });
    } finally {
      await second.stop();
    }
    // Two start-ups: in distributed mode each is every service's process, which under CI load takes longer than 30 s.
  }, 90_000);

  it('makes the first key pair only on a start that succeeds: after a first start on a port in use, the next shows its secret', async () => {
    const noBootstrap = { MM_BOOTSTRAP_API_KEY: '', MM_BOOTSTRAP_API_SECRET: '' };
    const databaseUrl = await cloneTemplateDatabase();
    const taken = await occupiedPort();
    try {
      await expect(
        TestPlatform.start({ ...noBootstrap, PORT: String(taken.port) }, databaseUrl, GATEWAY_ALONE),
      ).rejects.toThrow(`HTTP port ${taken.port} (PORT) is already in use`);
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
    const next = await TestPlatform.start(noBootstrap, databaseUrl, GATEWAY_ALONE);
    try {
      const created = next.running.bootstrap!;
      expect(created).toMatchObject({
        created: true,
        apiKey: expect.stringMatching(/^sk_sdbx_/),
        apiSecret: expect.any(String),
      });
      expect(await next.token(created.apiKey, created.apiSecret)).toEqual(expect.any(String));
      const projects = await next.admin('GET', '/projects');
      expect(projects.body.data).toEqual([expect.objectContaining({ id: created.projectId, name: 'default' })]);
    } finally {
      await next.stop();
    }
  }, 90_000);

  it('creates the configured bootstrap key pair only when it is missing', async () => {
    const first = await TestPlatform.start({}, undefined, GATEWAY_ALONE);
    const url = first.running.databaseUrl;
    expect(first.running.bootstrap).toMatchObject({ created: true });
    await first.stop();
    const second = await TestPlatform.start({}, url, GATEWAY_ALONE);
    try {
      expect(second.running.bootstrap).toMatchObject({ created: false });
      expect(await second.token()).toEqual(expect.any(String));
    } finally {
      await second.stop();
    }
  }, 90_000);
});

describe('production mode', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    // Distributed, the services whose routes these tests call (the clock is the accounts service's); the others would
    // answer 503, not 404, were they asked.
    platform = await TestPlatform.start(
      {
        MM_ENVIRONMENT: 'production',
        MM_ALLOW_SIMULATED_PROVIDERS: 'true',
        // The static admin token is break-glass in production, refused unless allowed (docs/operators.md).
        MM_ADMIN_TOKEN_IN_PRODUCTION: 'true',
        MM_BOOTSTRAP_API_KEY: 'sk_live_e2eProductionKey01',
        MM_BOOTSTRAP_API_SECRET: 'e2e-production-secret-0123',
      },
      undefined,
      { services: ['accounts', 'deposit-addresses'] },
    );
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('hides sandbox routes and refuses sandbox keys', async () => {
    const token = await platform.token('sk_live_e2eProductionKey01', 'e2e-production-secret-0123');
    expect((await platform.request('GET', '/v0.13/sandbox/clock', { token })).status).toBe(404);
    expect(
      (await platform.request('POST', '/v0.13/sandbox/clock/advance', { token, body: { seconds: 5 } })).status,
    ).toBe(404);
    // The deposit address simulations (issue 19): no such route, whatever the address, while the resource's own routes answer.
    expect((await platform.request('GET', '/v0.13/deposit-addresses', { token })).status).toBe(200);
    for (const what of ['crypto-deposit', 'freeze', 'unfreeze', 'close']) {
      expectError(
        await platform.request('POST', `/v0.13/deposit-addresses/da_01h455vb4pex5vsknk084sn02q/simulate/${what}`, {
          token,
          body: { amount: '1.00' },
        }),
        404,
        'NotFound',
      );
    }
    const sandboxKey = await platform.request('POST', '/v0.13/auth/token', {
      body: { apiKey: 'sk_sdbx_e2eBootstrapKey01', apiSecret: 'e2e-bootstrap-secret-0123456789' },
    });
    expect(sandboxKey.status).toBe(401);
  });

  it('answers 503 RiskConfigUnavailable when no risk provider is configured, and 403 to a sandbox publishable key', async () => {
    const project = (await platform.admin('GET', '/projects')).body.data[0];
    const { publishableKey } = (await platform.admin('POST', `/projects/${project.id}/publishable-keys`)).body;
    expect(publishableKey).toMatch(/^pk_live_/);
    expectError(
      await platform.request('GET', '/v0.13/risk/config', { headers: { 'api-key': publishableKey } }),
      503,
      'RiskConfigUnavailable',
    );
    expectError(
      await platform.request('GET', '/v0.13/risk/config', { headers: { 'api-key': 'pk_sdbx_fromTheSandboxHost0000' } }),
      403,
      'Forbidden',
    );
  });
});
