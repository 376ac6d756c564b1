// `npm run bench`: the platform beside a raw stack doing the same work on the
// same PostgreSQL in the same run, as ratios (tools/bench/raw-stack.ts):
//   reads  against Fastify + one pg primary-key select
//   writes against one raw transaction (idempotency row, event row, read-model row, idempotency update)
// then quote + transaction creation beside the same writes straight to PostgreSQL (tools/bench/transfers.ts;
// BENCH_ONLY=quote for it alone), then deposit to transaction beside the same rows straight to PostgreSQL
// (tools/bench/deposits.ts; BENCH_ONLY=deposit for it alone), then inbound transfer to transaction beside the same
// rows straight to PostgreSQL (tools/bench/inbound-transfers.ts; BENCH_ONLY=inbound for it alone), then webhook
// delivery beside pg-boss (tools/bench/webhooks.ts; BENCH_ONLY=webhook for it alone), then on-chain deposits
// beside a raw viem log reader (tools/bench/chain-deposits.ts; BENCH_ONLY=chain for it alone).
// The platform and the raw stack each run in a process of their own, as `npm start`
// runs, and the load comes from this process, so neither server shares its thread
// with the load generator. Figures, not assertions: never a timed test.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freeLoopbackPort, startEmbeddedPostgres, type EmbeddedDatabase } from '@mm/runtime/platform';
import { benchChainDeposits, CHAIN_SCENARIO } from './chain-deposits';
import { benchDeposits, DEPOSITS_SCENARIO } from './deposits';
import { benchInboundTransfers, INBOUND_SCENARIO } from './inbound-transfers';
import { benchTransfers, ROUNDS, TRANSFERS_SCENARIO } from './transfers';
import { cpuNow, cpuPerOp, profileWindow, watchCpu, type CpuTimes } from './cpu';
import { STATEMENT_SETTINGS, STATEMENTS } from './statements';
import { benchWebhooks } from './webhooks';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const ROOT = resolve(__dirname, '..', '..');
const DURATION_S = Number(process.env.BENCH_DURATION_SECONDS ?? 5);
// Three seconds: the platform's code is large, and after one second of load its optimising compiler was still
// busy (a fifth of the platform's CPU in the measured window, docs/performance.md). The references get as long.
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,8,32').split(',').map(Number);
/** Only the scenarios whose name contains this text (their references always run). */
const ONLY = process.env.BENCH_ONLY ?? '';
const API_KEY = 'sk_sdbx_benchmarkKey0001';
const API_SECRET = 'benchmark-secret-0123456789';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** CPU ms per request of the platform's process and of PostgreSQL, over the measured run. */
  cpu?: Partial<CpuTimes>;
}

type Load = Record<string, unknown>;

async function run(options: Load, connections: number, seconds: number): Promise<Figures> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    requests: result.requests.total,
  };
}

/** A run first, so JIT warm-up and pool growth are not measured. */
async function warm(options: Load, connections: number): Promise<void> {
  if (WARMUP_S > 0) await run(options, connections, WARMUP_S);
}

/** Several measured runs of one load as one: requests a second averaged, the median run's latencies, CPU per request over all. */
function pool(runs: Figures[]): Figures {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cpu: Partial<CpuTimes> = {};
  for (const key of ['platform', 'bench', 'postgres'] as const) {
    if (requests > 0 && runs.every((r) => r.cpu?.[key] !== undefined))
      cpu[key] = runs.reduce((n, r) => n + r.cpu![key]! * r.requests, 0) / requests;
  }
  return {
    rps: runs.reduce((n, r) => n + r.rps, 0) / runs.length,
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    requests,
    cpu,
  };
}

/** One measured run (warm() first). */
async function measure(options: Load, connections: number, profiled?: string): Promise<Figures> {
  // A platform scenario's measured run goes under BENCH_PROFILE_CMD (tools/bench/cpu.ts).
  const endProfile = profiled ? profileWindow(profiled, connections) : async () => undefined;
  try {
    const before = cpuNow();
    const figures = await run(options, connections, DURATION_S);
    return { ...figures, cpu: cpuPerOp(before, cpuNow(), figures.requests) };
  } finally {
    await endProfile();
  }
}

function startProcess(name: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['-r', './tools/register.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`${name} exited (${code ?? signal}):\n${stderr}\n`);
  });
  return child;
}

async function waitForOk(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited before ${url} answered`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer in time`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function postJson<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Every request its own Idempotency-Key: each one is a new resource. */
const freshKey = [
  {
    setupRequest: (req: { headers: Record<string, string> }) => ({
      ...req,
      headers: { ...req.headers, 'idempotency-key': randomUUID() },
    }),
  },
];

async function main(): Promise<void> {
  let embedded: EmbeddedDatabase | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'mm-bench-'));
  const children: ChildProcess[] = [];
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      // Durable settings, as `npm start` runs: both sides pay the same commit cost.
      embedded = await startEmbeddedPostgres({
        dataDir,
        database: 'money_movement',
        settings: STATEMENTS ? STATEMENT_SETTINGS : undefined,
      });
      databaseUrl = embedded.url;
    }
    const platformPort = await freeLoopbackPort();
    const adminToken = `bench-admin-${randomUUID()}`;
    const platform = startProcess(
      'platform',
      [
        ...(process.env.BENCH_PLATFORM_NODE_ARGS ?? '').split(' ').filter(Boolean),
        '-r',
        './apps/platform/src/instrument.ts',
        'apps/platform/src/main.ts',
      ],
      {
        DATABASE_URL: databaseUrl,
        // Its local files (the signing-key encryption key) go with this run's database, not into ./.data.
        MM_DATA_DIR: dataDir,
        PORT: String(platformPort),
        HOST: '127.0.0.1',
        MM_LOG_LEVEL: 'error',
        MM_ADMIN_TOKEN: adminToken,
        MM_TOKEN_RATE_LIMIT: '100000000',
        MM_BOOTSTRAP_API_KEY: API_KEY,
        MM_BOOTSTRAP_API_SECRET: API_SECRET,
      },
    );
    children.push(platform);
    const base = `http://127.0.0.1:${platformPort}`;
    await waitForOk(`${base}/readyz`, platform);
    // CPU per operation beside the ratios (tools/bench/cpu.ts): the platform's process and the cluster's
    // backends (an external cluster's when BENCH_PG_DATA_DIR names its data directory).
    watchCpu(platform.pid, embedded ? join(dataDir, 'pg') : process.env.BENCH_PG_DATA_DIR);

    // BENCH_ONLY=webhook runs the webhook section alone, BENCH_ONLY=quote the quote + transaction one,
    // BENCH_ONLY=deposit the deposit to transaction one, BENCH_ONLY=inbound the inbound transfer to transaction
    // one: no raw stack, no HTTP scenarios.
    const webhooksOnly = ONLY !== '' && 'webhook deliveries'.includes(ONLY);
    const transfersOnly = ONLY !== '' && !webhooksOnly && TRANSFERS_SCENARIO.includes(ONLY);
    const depositsOnly = ONLY !== '' && !webhooksOnly && !transfersOnly && DEPOSITS_SCENARIO.includes(ONLY);
    const inboundOnly =
      ONLY !== '' && !webhooksOnly && !transfersOnly && !depositsOnly && INBOUND_SCENARIO.includes(ONLY);
    const chainOnly =
      ONLY !== '' && !webhooksOnly && !transfersOnly && !depositsOnly && !inboundOnly && CHAIN_SCENARIO.includes(ONLY);
    const sectionOnly = webhooksOnly || transfersOnly || depositsOnly || inboundOnly || chainOnly;
    let rawBase = '';
    if (!sectionOnly) {
      const raw = startProcess('raw stack', ['tools/bench/raw-stack.ts'], { DATABASE_URL: databaseUrl });
      children.push(raw);
      rawBase = await new Promise<string>((resolveUrl, reject) => {
        raw.stdout!.on('data', (chunk: Buffer) => {
          const match = /listening (\S+)/.exec(chunk.toString());
          if (match) resolveUrl(match[1]);
        });
        raw.once('exit', () => reject(new Error('raw stack exited before listening')));
      });
    }

    const api = `${base}/v0.13`;
    const credentials = { apiKey: API_KEY, apiSecret: API_SECRET };
    const { accessToken } = await postJson<{ accessToken: string }>(`${api}/auth/token`, {}, credentials);
    const auth = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const customer = await postJson<{ id: string }>(`${api}/customers`, auth, {
      type: 'individual',
      firstName: 'Bench',
      lastName: 'Mark',
    });
    const rawCustomer = sectionOnly
      ? { id: '' }
      : await postJson<{ id: string }>(`${rawBase}/customers`, {}, { firstName: 'Bench', lastName: 'Mark' });
    const customerBody = JSON.stringify({ type: 'individual', firstName: 'Load', lastName: 'Test' });

    const rawRead: Load = { url: `${rawBase}/customers/${rawCustomer.id}` };
    const rawWrite: Load = {
      url: `${rawBase}/customers`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: customerBody,
      requests: freshKey,
    };
    const scenarios: Array<{ name: string; load: Load; reference: 'read' | 'write' }> = [
      {
        name: 'GET /customers/{id}',
        load: { url: `${api}/customers/${customer.id}`, headers: auth },
        reference: 'read',
      },
      {
        name: 'GET /customers/{id}/balance',
        load: { url: `${api}/customers/${customer.id}/balance`, headers: auth },
        reference: 'read',
      },
      {
        name: 'POST /customers',
        load: { url: `${api}/customers`, method: 'POST', headers: auth, body: customerBody, requests: freshKey },
        reference: 'write',
      },
      {
        name: 'POST /auth/token',
        load: {
          url: `${api}/auth/token`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(credentials),
        },
        reference: 'read',
      },
    ];

    const line = (cells: string[]) =>
      process.stdout.write(
        cells.map((c, i) => (i === 0 ? c.padEnd(32) : c.padStart(i === 6 ? 12 : 10))).join('') + '\n',
      );
    process.stdout.write(
      `benchmark: ${DURATION_S}s per scenario after ${WARMUP_S}s of warm-up (the money flows: until their rate stops rising), ${process.env.DATABASE_URL ? 'external' : 'embedded'} PostgreSQL, ` +
        `${transfersOnly || depositsOnly || inboundOnly || chainOnly ? 'platform in a process of its own' : `${webhooksOnly ? 'platform and pg-boss' : ONLY === '' ? 'platform, raw stack and pg-boss' : 'platform and raw stack'} in processes of their own`}\n\n`,
    );
    const httpScenarios = sectionOnly ? [] : scenarios.filter((s) => s.name.includes(ONLY));
    if (httpScenarios.length > 0)
      line(['scenario', 'clients', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio', '   cpu µs/req']);
    for (const clients of httpScenarios.length > 0 ? CLIENTS : []) {
      // At each client count every load is warmed up once, then the references and the scenarios take
      // turns, ROUNDS times, so that the machine's slow and fast minutes fall on both (as in the money flows).
      const loads: Array<{ load: Load; profiled?: string }> = [
        { load: rawRead },
        { load: rawWrite },
        ...httpScenarios.map((sc) => ({ load: sc.load, profiled: sc.name })),
      ];
      for (const { load } of loads) await warm(load, clients);
      const runs: Figures[][] = loads.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, { load, profiled }] of loads.entries()) runs[i].push(await measure(load, clients, profiled));
      }
      const [read, write, ...scenarioFigures] = runs.map(pool);
      const references = { read, write };
      const row = (name: string, f: Figures, ratio: string, cpu = '') =>
        line([
          name,
          String(clients),
          f.rps.toFixed(0),
          f.p50.toFixed(1),
          f.p99.toFixed(1),
          String(f.errors),
          ratio,
          cpu,
        ]);
      row('raw read (Fastify + pg select)', references.read, '1.00');
      row('raw write (one transaction)', references.write, '1.00');
      for (const [i, scenario] of httpScenarios.entries()) {
        const f = scenarioFigures[i];
        // CPU per request in µs: steadier than requests a second on a machine other work shares.
        const us = (side: keyof CpuTimes) => (f.cpu?.[side] !== undefined ? (f.cpu[side]! * 1000).toFixed(0) : '-');
        row(
          scenario.name,
          f,
          `${(f.rps / references[scenario.reference].rps).toFixed(2)} ${scenario.reference}`,
          `   ${us('platform')} + ${us('postgres')}`,
        );
      }
      process.stdout.write('\n');
    }
    if (httpScenarios.length > 0)
      process.stdout.write(
        `"ratio" is requests per second divided by the raw reference's at the same client count, measured in this run, each\n` +
          `load warmed up once, then the references and the scenarios in turns, ${ROUNDS} rounds (BENCH_ROUNDS), averaged;\n` +
          '"read" is Fastify with one pg primary-key select; "write" is one transaction inserting an idempotency row,\n' +
          'an event row and a read-model row, then updating the idempotency row.\n' +
          '"cpu µs/req" is the CPU a request cost the platform\'s process + PostgreSQL (every backend) over the measured run.\n',
      );
    // After the table: quote + transaction creation beside the same writes straight to PostgreSQL (tools/bench/transfers.ts).
    if (ONLY === '' || transfersOnly)
      await benchTransfers(api, auth, databaseUrl, {
        clients: CLIENTS,
        durationSeconds: DURATION_S,
        warmupSeconds: WARMUP_S,
      });
    // Then deposit to transaction beside the same rows straight to PostgreSQL (tools/bench/deposits.ts).
    if (ONLY === '' || depositsOnly)
      await benchDeposits(api, adminToken, databaseUrl, {
        clients: CLIENTS,
        durationSeconds: DURATION_S,
        warmupSeconds: WARMUP_S,
      });
    // Then inbound transfer to transaction beside the same rows straight to PostgreSQL (tools/bench/inbound-transfers.ts).
    if (ONLY === '' || inboundOnly)
      await benchInboundTransfers(api, adminToken, databaseUrl, {
        clients: CLIENTS,
        durationSeconds: DURATION_S,
        warmupSeconds: WARMUP_S,
      });
    // Then the webhook section (tools/bench/webhooks.ts), against pg-boss on the same PostgreSQL.
    if (ONLY === '' || webhooksOnly) await benchWebhooks(api, adminToken, databaseUrl);
    // Then on-chain deposits, on a platform and a database of their own (tools/bench/chain-deposits.ts).
    if (ONLY === '' || chainOnly)
      await benchChainDeposits({
        databaseUrl,
        rounds: ROUNDS,
        startPlatform: async (env) => {
          const port = await freeLoopbackPort();
          const chainAdminToken = `bench-admin-${randomUUID()}`;
          const child = startProcess(
            'on-chain platform',
            ['-r', './apps/platform/src/instrument.ts', 'apps/platform/src/main.ts'],
            {
              ...env,
              MM_DATA_DIR: join(dataDir, 'chain'),
              PORT: String(port),
              HOST: '127.0.0.1',
              MM_LOG_LEVEL: 'error',
              MM_ADMIN_TOKEN: chainAdminToken,
              MM_BOOTSTRAP_API_KEY: API_KEY,
              MM_BOOTSTRAP_API_SECRET: API_SECRET,
            },
          );
          children.push(child);
          const chainBase = `http://127.0.0.1:${port}`;
          await waitForOk(`${chainBase}/readyz`, child);
          const issued = await postJson<{ accessToken: string }>(`${chainBase}/v0.13/auth/token`, {}, credentials);
          return {
            api: `${chainBase}/v0.13`,
            adminToken: chainAdminToken,
            token: issued.accessToken,
            stop: () => stopProcess(child),
          };
        },
      });
  } finally {
    for (const child of children) await stopProcess(child);
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
