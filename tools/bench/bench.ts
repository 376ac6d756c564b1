// `npm run bench`: throughput and latency of the platform beside the same
// machine's raw PostgreSQL insert rate, measured in the same run, as ratios.
// Figures, not assertions: speed targets live here, never in timed tests.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '@mm/platform/config';
import { startPlatform } from '@mm/runtime/platform';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const DURATION_S = Number(process.env.BENCH_DURATION_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RAW_INSERTS = Number(process.env.BENCH_RAW_INSERTS ?? 3000);

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(name: string, options: Record<string, unknown>): Promise<Figures> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors };
}

/** Single-row autocommitted INSERTs from CONNECTIONS clients: what one durable write costs on this machine. */
async function rawInsertRate(url: string): Promise<number> {
  const setup = new Client({ connectionString: url });
  await setup.connect();
  await setup.query(`CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, payload jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now())`);
  await setup.end();
  const clients = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const c = new Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  const perClient = Math.ceil(RAW_INSERTS / CONNECTIONS);
  const started = process.hrtime.bigint();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < perClient; i++) await c.query(`INSERT INTO bench_raw (payload) VALUES ($1)`, [JSON.stringify({ i, name: 'bench' })]);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await Promise.all(clients.map((c) => c.end()));
  return (perClient * CONNECTIONS) / seconds;
}

async function postJson<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mm-bench-'));
  const config = loadConfig({
    MM_DATA_DIR: dataDir,
    PORT: '0',
    MM_LOG_LEVEL: 'error',
    MM_TOKEN_RATE_LIMIT: '100000000',
    MM_BOOTSTRAP_API_KEY: 'sk_sdbx_benchmarkKey0001',
    MM_BOOTSTRAP_API_SECRET: 'benchmark-secret-0123456789',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  });
  const platform = await startPlatform(config, { host: '127.0.0.1' });
  const api = `${platform.url}/v0.13`;
  try {
    const credentials = { apiKey: 'sk_sdbx_benchmarkKey0001', apiSecret: 'benchmark-secret-0123456789' };
    const tokenBody = JSON.stringify(credentials);
    const { accessToken } = await postJson<{ accessToken: string }>(`${api}/auth/token`, {}, credentials);
    const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const customer = await postJson<{ id: string }>(`${api}/customers`, auth, { type: 'individual', firstName: 'Bench', lastName: 'Mark' });
    const wallet = await postJson<{ id: string }>(`${api}/customers/${customer.id}/wallets`, auth, { asset: 'usdc', network: 'meridianchain' });
    await postJson(`${api}/sandbox/wallets/${wallet.id}/fund`, auth, { amount: '100' });

    const dbUrl = platform.embedded?.url ?? config.DATABASE_URL!;
    process.stdout.write(`benchmark: ${CONNECTIONS} connections, ${DURATION_S}s per scenario, ${process.env.DATABASE_URL ? 'external' : 'embedded'} PostgreSQL\n`);
    const raw = await rawInsertRate(dbUrl);
    const figures: Figures[] = [];
    figures.push(await load('token issue      POST /auth/token', { url: `${api}/auth/token`, method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody }));
    figures.push(
      await load('customer create  POST /customers', {
        url: `${api}/customers`,
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ type: 'individual', firstName: 'Load', lastName: 'Test' }),
        // Every request its own Idempotency-Key: each one is a new customer.
        requests: [{ setupRequest: (req: { headers: Record<string, string> }) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
      }),
    );
    figures.push(await load('balance read     GET /customers/{id}/balance', { url: `${api}/customers/${customer.id}/balance`, headers: auth }));

    const line = (cells: string[]) => process.stdout.write(cells.map((c, i) => (i === 0 ? c.padEnd(46) : c.padStart(15))).join('') + '\n');
    process.stdout.write('\n');
    line(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'vs raw insert']);
    line([`raw PostgreSQL insert (pg loop)`, raw.toFixed(0), '', '', '', '1.00']);
    for (const f of figures) line([f.name, f.rps.toFixed(0), f.p50.toFixed(1), f.p99.toFixed(1), String(f.errors), (f.rps / raw).toFixed(2)]);
    process.stdout.write('\n"vs raw insert" is requests per second divided by single-row autocommitted INSERTs per second on the same database.\n');
  } finally {
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
