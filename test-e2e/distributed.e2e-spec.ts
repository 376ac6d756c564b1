// Distributed mode as `npm run start:distributed` runs it: the gateway and each
// service in a process of its own, events between them on Kafka (the run's
// broker: the Jest setup's librdkafka mock) and, without KAFKA_BROKERS, on the
// PostgreSQL log transport over one database (a schema per service).
// ARCHITECTURE: Distributed mode; issue 6 "Done means" (a service killed while
// requests flow).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { cloneTemplateDatabase, kafkaTestPrefix, removeKafkaNames } from '@mm/platform/testing';
import {
  ADMIN_TOKEN,
  BOOTSTRAP_KEY,
  BOOTSTRAP_SECRET,
  eventually,
  SIGNING_KEY_ENCRYPTION_KEYS,
  START_TIMEOUT_MS,
} from './support/test-platform';
import { freePort, spawnTied, stopTied } from './support/distributed-processes';

jest.setTimeout(120_000);

/** A script of the project as its npm script runs it, its output collected; gone with this test process, however it ends. */
function run(script: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  return spawnTied(['-r', './tools/register.js', script, ...args], { ...process.env, ...env });
}

async function waitFor(
  output: () => string,
  pattern: RegExp,
  child: ChildProcess,
  timeoutMs = 60_000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(output());
    if (match) return match;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child) await stopTied(child, 20_000);
}

const KAFKA_BROKERS = process.env.KAFKA_BROKERS ?? '';
if (!KAFKA_BROKERS)
  process.stderr.write(
    'distributed.e2e-spec: the Kafka run is skipped: no Kafka broker (set KAFKA_BROKERS=host:port, or build tools/kafka-mock)\n',
  );

/** The variables that choose the event transport of a run. */
function transportEnv(transport: 'kafka' | 'postgres'): Record<string, string> {
  if (transport === 'postgres') return { KAFKA_BROKERS: '' };
  // Topics of this run's own; Kafka's least session timeout, so the group hands the killed service's partitions
  // on soon (a stock broker refuses a shorter one).
  return { KAFKA_BROKERS, MM_KAFKA_TOPIC_PREFIX: kafkaTestPrefix('distributed'), MM_KAFKA_SESSION_TIMEOUT_MS: '6000' };
}

describe.each([
  {
    transport: 'kafka' as const,
    title: KAFKA_BROKERS ? 'events over Kafka' : 'events over Kafka: skipped, no Kafka broker',
  },
  { transport: 'postgres' as const, title: 'events on the PostgreSQL log transport' },
])('distributed mode (npm run start:distributed), $title', ({ transport }) => {
  const skipped = transport === 'kafka' && !KAFKA_BROKERS;
  const it = skipped ? test.skip : test;
  let databaseUrl: string;
  let dataDir: string;
  let base: string;
  let distributed: ReturnType<typeof run>;
  let accounts: { url: string; port: string; pid: number };
  let restarted: ReturnType<typeof run> | undefined;
  let token: string;
  const events = transportEnv(transport);
  const env = () => ({
    ...events,
    DATABASE_URL: databaseUrl,
    MM_DATA_DIR: dataDir,
    MM_LOG_LEVEL: 'warn',
    // A slow start names the service that was not ready, before the hook's own limit.
    MM_READY_TIMEOUT_SECS: String(START_TIMEOUT_MS / 1000 - 30),
    MM_ADMIN_TOKEN: ADMIN_TOKEN,
    MM_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    MM_BOOTSTRAP_API_SECRET: BOOTSTRAP_SECRET,
    MM_SIGNING_KEY_ENCRYPTION_KEYS: SIGNING_KEY_ENCRYPTION_KEYS,
  });

  async function call(method: string, path: string, options: { token?: string; body?: unknown; url?: string } = {}) {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST' || method === 'PATCH') headers['idempotency-key'] = randomUUID();
    const response = await fetch(`${options.url ?? base}/v0.13${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** A new project with a key pair, made through the gateway's operator routes. */
  async function newKeyPair(name: string): Promise<{ apiKey: string; apiSecret: string }> {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const project = (await fetch(`${base}/v0.13/admin/projects`, {
      method: 'POST',
      headers: { ...admin, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ name }),
    }).then((r) => r.json())) as {
      id: string;
    };
    return (await fetch(`${base}/v0.13/admin/projects/${project.id}/api-keys`, {
      method: 'POST',
      headers: { authorization: admin.authorization, 'idempotency-key': randomUUID() },
    }).then((r) => r.json())) as {
      apiKey: string;
      apiSecret: string;
    };
  }

  async function newToken(apiKey = BOOTSTRAP_KEY, apiSecret = BOOTSTRAP_SECRET): Promise<string> {
    const res = await call('POST', '/auth/token', { body: { apiKey, apiSecret } });
    expect(res.status).toBe(200);
    return res.body.accessToken;
  }

  beforeAll(async () => {
    if (skipped) return;
    databaseUrl = await cloneTemplateDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'mm-distributed-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    distributed = run('tools/distributed/start-distributed.ts', [], { ...env(), PORT: String(port) });
    // (Nine processes starting at once on a busy machine: the hook's own bound, less the token's share.)
    const [, url, accountsPort, pid] = await waitFor(
      distributed.output,
      /accounts\s+(http:\/\/127\.0\.0\.1:(\d+))\s+pid (\d+)/,
      distributed.child,
      START_TIMEOUT_MS - 15_000,
    );
    accounts = { url, port: accountsPort, pid: Number(pid) };
    token = await newToken();
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await stop(restarted?.child);
    await stop(distributed?.child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    // What the run made on the broker goes with it (issue 42).
    if (!skipped && events.MM_KAFKA_TOPIC_PREFIX)
      await removeKafkaNames(KAFKA_BROKERS.split(','), events.MM_KAFKA_TOPIC_PREFIX);
  });

  it('says in its banner which transport carries the events', () => {
    expect(distributed.output()).toContain(
      transport === 'kafka' ? `Kafka at ${KAFKA_BROKERS}` : 'PostgreSQL log transport',
    );
  });

  /** A customer once the endorsements it asks for are active: the sandbox reviewer approves through the accounts log, in the accounts process. */
  async function endorsedCustomer(lastName: string, endorsements: string[]) {
    const customer = await call('POST', '/customers', {
      token,
      body: { type: 'individual', firstName: 'Ada', lastName, endorsements },
    });
    expect(customer.status).toBe(201);
    await eventually(async () =>
      (await call('GET', `/customers/${customer.body.id}`, { token })).body.endorsements.every(
        (e: { status: string }) => e.status === 'active',
      )
        ? true
        : undefined,
    );
    return customer;
  }

  it('serves the README flow through the gateway: token, customer (endorsed), wallet, funding, balance', async () => {
    const customer = await endorsedCustomer('Lovelace', ['cryptoCustody', 'usd']);
    const wallet = await call('POST', `/customers/${customer.body.id}/wallets`, {
      token,
      body: { asset: 'usdc', network: 'meridianchain' },
    });
    expect(wallet.status).toBe(201);
    expect(
      (await call('POST', `/sandbox/wallets/${wallet.body.id}/fund`, { token, body: { amount: '100.00' } })).status,
    ).toBe(200);
    const balance = await call('GET', `/customers/${customer.body.id}/balance`, { token });
    expect(balance.body.data.estimatedBalanceValue).toBe('100.00');
  });

  it('answers errors in the API body at the gateway, for its own routes and forwarded ones', async () => {
    const unknown = await call('GET', '/nothing-here', { token });
    expect(unknown.status).toBe(404);
    const duplicate = await fetch(`${base}/v0.13/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: '{"firstName":"A","firstName":"B"}',
    });
    expect(duplicate.status).toBe(400);
    expect(await duplicate.json()).toMatchObject({ error: 'InvalidRequest', code: 1100 });
  });

  it('a service reached directly refuses what the gateway would, and takes what it would', async () => {
    expect((await call('GET', '/customers', { url: accounts.url })).status).toBe(401);
    expect((await call('GET', '/customers', { url: accounts.url, token: 'not.a.token' })).status).toBe(401);
    expect((await call('GET', '/customers', { url: accounts.url, token })).status).toBe(200);
  });

  it('refuses a revoked key on the very next request, at the gateway and at a service reached directly', async () => {
    const keys = await newKeyPair('revoked-everywhere');
    const own = await newToken(keys.apiKey, keys.apiSecret);
    await eventually(async () => ((await call('GET', '/customers', { token: own })).status === 200 ? true : undefined));
    expect((await call('GET', '/customers', { url: accounts.url, token: own })).status).toBe(200);
    await fetch(`${base}/v0.13/admin/api-keys/${keys.apiKey}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    // The gateway hears revocations at once; the service reached directly asks the gateway (issue 42, ADR 0057).
    expect((await call('GET', '/customers', { token: own })).status).toBe(401);
    expect((await call('GET', '/customers', { url: accounts.url, token: own })).status).toBe(401);
  });

  it('answers 503 within 2 s for a killed service while the others keep working, and catches up once it is back', async () => {
    const before = await call('POST', '/customers', {
      token,
      body: { type: 'individual', firstName: 'Before', lastName: 'Kill' },
    });
    expect(before.status).toBe(201);
    const doomed = await newKeyPair('revoked-while-accounts-was-down');
    const doomedToken = await newToken(doomed.apiKey, doomed.apiSecret);
    expect((await call('GET', '/customers', { url: accounts.url, token: doomedToken })).status).toBe(200);

    // Requests keep flowing through the gateway while the service dies and comes back.
    const statuses = new Set<number>();
    let flowing = true;
    const traffic = (async () => {
      for (let i = 0; flowing; i++) {
        const res =
          i % 2
            ? await call('GET', '/customers', { token })
            : await call('POST', '/customers', {
                token,
                body: { type: 'individual', firstName: 'Flow', lastName: `N${i}` },
              });
        statuses.add(res.status);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();

    process.kill(accounts.pid, 'SIGKILL');
    const started = Date.now();
    const down = await eventually(async () => {
      const res = await call('GET', '/customers', { token });
      return res.status === 503 ? res : undefined;
    }, 2000);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(down.body).toMatchObject({ error: 'ServiceUnavailable', code: 1503 });
    expect(down.headers.get('retry-after')).toBe('1');
    // The gateway's own routes do not depend on the accounts process.
    expect((await call('GET', '/.well-known/jwks.json')).status).toBe(200);
    const keys = await newKeyPair('made-while-accounts-was-down');
    const newcomer = await newToken(keys.apiKey, keys.apiSecret);
    // Revoked while accounts cannot hear it: the event waits in the gateway's log (and topic).
    expect(
      (
        await fetch(`${base}/v0.13/admin/api-keys/${doomed.apiKey}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).status,
    ).toBeLessThan(300);

    restarted = run('tools/distributed/start-service.ts', ['accounts'], {
      ...env(),
      PORT: accounts.port,
      HOST: '127.0.0.1',
      MM_GATEWAY_URL: base,
    });
    await waitFor(restarted.output, /accounts service \(sandbox\) is listening/, restarted.child);
    expect((await call('GET', '/customers', { token: newcomer })).status).toBe(200);
    expect((await call('GET', `/customers/${before.body.id}`, { token })).status).toBe(200);
    // Reached directly, it refuses the key revoked while it was down (its projection catches up from its checkpoint, below).
    await eventually(
      async () =>
        (await call('GET', '/customers', { url: accounts.url, token: doomedToken })).status === 401 ? true : undefined,
      15_000,
    );
    flowing = false;
    await traffic;
    // Every answer was a success or a 503 while it was down: never a 500, never a hang.
    expect([...statuses].filter((status) => ![200, 201, 503].includes(status))).toEqual([]);
    expect(statuses.has(503)).toBe(true);

    // Nothing lost or applied twice: the API keys it projected from the gateway's log are
    // exactly what a rebuild from that log gives.
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const projected = await db.query(
        `SELECT api_key, revoked_at IS NOT NULL AS revoked FROM platform.api_keys ORDER BY api_key`,
      );
      const rebuilt = await db.query(
        `SELECT data->>'apiKey' AS api_key, bool_or(type = 'apiKey.revoked') AS revoked FROM gateway.events
          WHERE type IN ('apiKey.created', 'apiKey.revoked') GROUP BY 1 ORDER BY 1`,
      );
      expect(projected.rows).toEqual(rebuilt.rows);
      const decisions = await db.query(
        `SELECT stream_id, data->>'name' AS name, count(*)::int AS n FROM accounts.events
          WHERE type IN ('endorsement.approved', 'endorsement.rejected') GROUP BY 1, 2 HAVING count(*) > 1`,
      );
      expect(decisions.rows).toEqual([]);
    } finally {
      await db.end();
    }
  });

  it('a payout whose account cannot be checked waits for the accounts service, then refuses the account invalidated meanwhile (issue 17)', async () => {
    const customer = (await endorsedCustomer('Stale', ['basic', 'cryptoCustody', 'usd'])).body;
    const bank = await call('POST', '/external-accounts', {
      token,
      body: {
        owner: { kind: 'customer', customerId: customer.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      },
    });
    const wallet = (
      await call('POST', `/customers/${customer.id}/wallets`, {
        token,
        body: { asset: 'usdc', network: 'meridianchain' },
      })
    ).body;
    expect(
      (await call('POST', `/sandbox/wallets/${wallet.id}/fund`, { token, body: { amount: '100.00' } })).status,
    ).toBe(200);
    await eventually(async () =>
      (await call('GET', `/external-accounts/${bank.body.id}`, { token })).body.status === 'active' ? true : undefined,
    );
    const quote = (
      await call('POST', '/quotes', {
        token,
        body: {
          customerId: customer.id,
          source: { type: 'walletOms', details: { id: wallet.id }, amount: '40.00' },
          destination: { type: 'bankUs', details: { id: bank.body.id, network: 'ach', accountHolder: 'customer' } },
        },
      })
    ).body;
    const txn = (await call('POST', '/transactions', { token, body: { quoteId: quote.id } })).body;
    expect(txn).toMatchObject({ status: 'processing', subStatus: 'processing.fundsPulled' });
    expect(
      (await call('POST', `/external-accounts/${bank.body.id}/simulate/invalidate`, { token, body: {} })).status,
    ).toBe(200);

    // The ACH leg answers 60 s after it started on the project clock: 5 s from now, with the accounts service down.
    expect((await call('POST', '/sandbox/clock/advance', { token, body: { seconds: 55 } })).status).toBe(200);
    const mark = distributed.output().length;
    process.kill(restarted?.child.pid ?? accounts.pid, 'SIGKILL');
    // The transactions service cannot ask about the account: its timer fails, and is tried again.
    const failures = () =>
      distributed
        .output()
        .slice(mark)
        .match(/\[transactions\].*timer poll failed.*ServiceUnavailable/g)?.length ?? 0;
    await eventually(async () => (failures() >= 2 ? true : undefined), 30_000);
    const waiting = (await call('GET', `/transactions/${txn.id}`, { token })).body;
    expect(waiting).toMatchObject({
      status: 'processing',
      subStatus: 'processing.fundsPulled',
      legs: [{ kind: 'payout', status: 'pending' }],
    });

    restarted = run('tools/distributed/start-service.ts', ['accounts'], {
      ...env(),
      PORT: accounts.port,
      HOST: '127.0.0.1',
      MM_GATEWAY_URL: base,
    });
    await waitFor(restarted.output, /accounts service \(sandbox\) is listening/, restarted.child);
    // Back, it answers that the account is invalid: nothing is paid, the money goes back to the wallet.
    const failed = await eventually(async () => {
      const t = (await call('GET', `/transactions/${txn.id}`, { token })).body;
      return t.status === 'failed' || t.status === 'completed' ? t : undefined;
    }, 30_000);
    expect(failed).toMatchObject({
      subStatus: 'failed.returnedToSender',
      legs: [
        { kind: 'payout', status: 'failed', failure: { code: 'externalAccountInvalid' } },
        { kind: 'refund', status: 'settled' },
      ],
    });
    expect((await call('GET', `/wallets/${wallet.id}/balance`, { token })).body.data.balance).toBe('100.00');
  }, 240_000);

  // Last: it stops the gateway.
  it('a service reached directly while the gateway is down refuses a token it cannot check with the gateway: 503, never let through (issue 42)', async () => {
    const [, gatewayPid] = /^ {2}gateway +http:\/\/\S+ +pid (\d+)$/m.exec(distributed.output())!;
    const direct = () => call('GET', '/customers', { url: accounts.url, token });
    expect((await direct()).status).toBe(200);
    process.kill(Number(gatewayPid), 'SIGKILL');
    await eventually(async () =>
      (await call('GET', '/.well-known/jwks.json').catch(() => ({ status: 0 }))).status === 0 ? true : undefined,
    );
    // The token's signature is known (the keyset is held), but whether its key was revoked meanwhile is the gateway's to say.
    for (let i = 0; i < 3; i++) {
      const refused = await direct();
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: 'ServiceUnavailable', code: 1503 });
      expect(refused.headers.get('retry-after')).toBe('1');
    }
  });
});
