// The Compose stack for real (deploy/README.md): the image built from deploy/Dockerfile, PostgreSQL in a
// container, the migrate step, every service in a container of its own and the gateway published on
// 127.0.0.1 only; one money flow through it (customer, wallet, fund, quote, transaction completed) with the
// transaction's webhooks received and verified on this machine; then the stack taken down, no container
// or volume left behind. Needs a container engine (tools/containers/setup): without one, says so and is
// counted as skipped.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  composeCommand,
  composeEngine,
  composeEnvironment,
  ensureImages,
  freePort,
  pumpHealthchecks,
  run,
  type Engine,
} from '@mm/platform/testing';

const engine: Engine = composeEngine();
if (!engine.available) process.stderr.write(`compose.container-spec: skipped: ${engine.reason}\n`);
const describeWithEngine = engine.available ? describe : describe.skip;

const PROJECT = `mm-smoke-${process.pid}`;
/** Generous: the first build of the image on a clean machine downloads every production dependency. */
const BUILD_TIMEOUT_MS = 15 * 60_000;

describeWithEngine('the Compose stack (containers)', () => {
  let api = '';
  let receiver: Server;
  let receiverPort = 0;
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const env: Record<string, string> = {
    POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
    MM_ADMIN_TOKEN: randomBytes(24).toString('hex'),
    MM_SECRET_HASH_KEY: randomBytes(32).toString('hex'),
    MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    MM_LOG_LEVEL: 'warn',
  };
  const compose = (...args: string[]) =>
    run(
      composeCommand(engine as Engine & { available: true }),
      ['-p', PROJECT, '-f', 'deploy/docker-compose.yml', ...args],
      { env: { ...composeEnvironment(engine as Engine & { available: true }), ...env }, timeoutMs: BUILD_TIMEOUT_MS },
    );
  let started = 0;

  beforeAll(
    async () => {
      started = Date.now();
      const images = await ensureImages(engine as Engine & { available: true });
      Object.assign(env, { MM_IMAGE: images.platform, POSTGRES_IMAGE: images.postgres });
      process.stderr.write(
        `compose.container-spec: images ready in ${Math.round((Date.now() - started) / 1000)} s (${images.built.join(', ') || 'all built before'})\n`,
      );
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(204).end();
        });
      });
      // On every interface: the webhooks container reaches this machine by its address on the engine's network.
      await new Promise<void>((resolve) => receiver.listen(0, '0.0.0.0', resolve));
      receiverPort = (receiver.address() as AddressInfo).port;
      const port = await freePort();
      env.PORT = String(port);
      api = `http://127.0.0.1:${port}/v0.13`;
      const upAt = Date.now();
      const stopPump = pumpHealthchecks(engine as Engine & { available: true }, PROJECT);
      try {
        await compose('up', '-d', '--no-build');
      } finally {
        stopPump();
      }
      await until(
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true,
        5 * 60_000,
        'the gateway to be ready',
      );
      process.stderr.write(`compose.container-spec: stack up in ${Math.round((Date.now() - upAt) / 1000)} s\n`);
    },
    BUILD_TIMEOUT_MS + 6 * 60_000,
  );

  afterAll(async () => {
    receiver?.close();
    if (!api) return;
    await compose('down', '--volumes', '--remove-orphans', '--timeout', '20');
    const left = await run(engine.command, [
      'ps',
      '-a',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
      '--format',
      '{{.Names}}',
    ]);
    process.stderr.write(
      `compose.container-spec: ${Math.round((Date.now() - started) / 1000)} s in all, containers left: ${left.stdout.trim() || 'none'}\n`,
    );
    expect(left.stdout.trim()).toBe('');
  }, 120_000);

  it('publishes the gateway on 127.0.0.1 only, and no other service', async () => {
    const ports = await run(engine.command, [
      'ps',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
      '--format',
      '{{.Names}} {{.Ports}}',
    ]);
    const published = ports.stdout.split('\n').filter((line) => /->/.test(line));
    expect(published).toHaveLength(1);
    expect(published[0]).toMatch(new RegExp(`gateway.* 127\\.0\\.0\\.1:${env.PORT}->3000/tcp`));
  });

  it(
    'moves money through the containers: customer, wallet, fund, quote, transaction completed, webhooks received and verified',
    async () => {
      const admin = (method: string, path: string, body?: unknown) => call(method, path, body, env.MM_ADMIN_TOKEN);
      const project = await admin('POST', '/admin/projects', { name: 'containers smoke' });
      expect(project.status).toBe(201);
      const keys = await admin('POST', `/admin/projects/${project.body.id}/api-keys`);
      const auth = await call('POST', '/auth/token', { apiKey: keys.body.apiKey, apiSecret: keys.body.apiSecret });
      expect(auth.status).toBe(200);
      const as = (method: string, path: string, body?: unknown) => call(method, path, body, auth.body.accessToken);

      const hook = await as('POST', '/webhooks', {
        url: `http://${await hostAddress()}:${receiverPort}/hooks`,
        subscriptions: ['transaction.statusChanged'],
      });
      expect(hook.status).toBe(201);

      const customer = await as('POST', '/customers', {
        type: 'individual',
        firstName: 'Ada',
        lastName: 'Lovelace',
        endorsements: ['cryptoCustody', 'usd'],
      });
      expect(customer.status).toBe(201);
      await until(
        async () =>
          (await as('GET', `/customers/${customer.body.id}`)).body.endorsements.every(
            (e: { status: string }) => e.status === 'active',
          ),
        60_000,
        'the endorsements',
      );
      const wallet = await as('POST', `/customers/${customer.body.id}/wallets`, {
        asset: 'usdc',
        network: 'meridianchain',
      });
      expect(wallet.status).toBe(201);
      expect((await as('POST', `/sandbox/wallets/${wallet.body.id}/fund`, { amount: '100.00' })).status).toBe(200);
      const bank = await as('POST', '/external-accounts', {
        owner: { kind: 'customer', customerId: customer.body.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      });
      expect(bank.status).toBe(201);
      await until(
        async () => (await as('GET', `/external-accounts/${bank.body.id}`)).body.status === 'active',
        60_000,
        'the bank account to be active',
      );
      const quote = await as('POST', '/quotes', {
        customerId: customer.body.id,
        source: { type: 'walletOms', details: { id: wallet.body.id }, amount: '40.00' },
        destination: { type: 'bankUs', details: { id: bank.body.id, network: 'ach', accountHolder: 'customer' } },
      });
      expect(quote.status).toBe(201);
      const transaction = await as('POST', '/transactions', { quoteId: quote.body.id });
      expect(transaction.status).toBe(201);
      expect((await as('POST', '/sandbox/clock/advance', { seconds: 60 })).status).toBe(200);
      await until(
        async () => (await as('GET', `/transactions/${transaction.body.id}`)).body.status === 'completed',
        60_000,
        'the transaction to complete',
      );
      expect((await as('GET', `/wallets/${wallet.body.id}/balance`)).body.data.balance).toBe('60.00');

      // Its webhooks reached this machine, signed with the endpoint's key.
      const completed = await until(
        async () =>
          received.find(
            (r) =>
              JSON.parse(r.body).data?.id === transaction.body.id && JSON.parse(r.body).data?.status === 'completed',
          ),
        60_000,
        'the completed webhook',
      );
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(completed.headers['webhook-signature'])) ?? [];
      const expected = createHmac('sha256', Buffer.from(hook.body.signingKey, 'utf8'))
        .update(`${t}.${completed.body}`)
        .digest();
      expect(timingSafeEqual(Buffer.from(v1 ?? '', 'hex').subarray(0, expected.length), expected)).toBe(true);
    },
    5 * 60_000,
  );

  /** This machine as the stack's containers reach it: the gateway address of the stack's network. */
  async function hostAddress(): Promise<string> {
    const inspected = await run(engine.command, ['network', 'inspect', `${PROJECT}_default`]);
    const [network] = JSON.parse(inspected.stdout);
    const gateway = network?.subnets?.[0]?.gateway ?? network?.IPAM?.Config?.[0]?.Gateway;
    if (!gateway) throw new Error(`no gateway address on the network ${PROJECT}_default: ${inspected.stdout}`);
    return gateway;
  }

  /** One request; a 503 (a service still starting behind the gateway) is asked again after its Retry-After, for up to 2 minutes. */
  async function call(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: any }> {
    const key = randomUUID();
    const deadline = Date.now() + 120_000;
    for (;;) {
      const res = await once(method, path, body, token, key);
      if (res.status !== 503 || Date.now() > deadline) return res;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  async function once(
    method: string,
    path: string,
    body: unknown,
    token: string | undefined,
    key: string,
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'POST' ? { 'idempotency-key': key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
});

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
