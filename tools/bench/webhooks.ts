// Webhook delivery in `npm run bench` (issue 9): the platform's delivery worker
// beside pg-boss moving the same number of jobs to the same kind of loopback
// receiver on the same PostgreSQL, in the same run. The platform and pg-boss each
// run in a process of their own; the receiver runs here (node:http, answers 200
// "ok" at once, parses every JSON body, keys arrivals by the `webhook-id` header).
//   burst   N events produced as fast as PRODUCERS clients can (POST /webhooks/{id}/test,
//           each one delivery of webhook.test) while the worker delivers them:
//           deliveries/s from the first POST until the receiver has all N.
//           pg-boss: N jobs sent by as many producers to workers already running:
//           jobs/s from the first send until the receiver has all N.
//   paced   one event at a time, the next once the last has arrived: event to
//           delivery from the start of the POST (its commit is the event) and from
//           its response, without a backlog in the way.
//   drain   (BENCH_WEBHOOK_DRAIN=0 leaves it out) N deliveries due at once (each failed its first
//           attempt; the sandbox clock then moves an hour), timed until the receiver
//           has all: the worker alone, without producing. pg-boss: N jobs queued, then
//           worked off.
// Each side first delivers WARMUP events unmeasured. Figures, not assertions.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Agent, request } from 'undici';
import { cpuNow, processCpuMs, profileWindow } from './cpu';
import { Platform } from './deposits';
import {
  addStatements,
  readStatements,
  resetStatements,
  STATEMENTS,
  statementsText,
  type StatementRow,
} from './statements';
import { logReadersQuiet } from './transfers';

const ROOT = resolve(__dirname, '..', '..');
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 4000);
const PACED = Number(process.env.BENCH_WEBHOOK_PACED ?? 200);
/**
 * Events each side delivers first, unmeasured, by the path it is then measured on: enough for the compiler
 * to be done with it (with 100, a fresh platform's burst ran at two thirds of its steady rate).
 */
const WARMUP = Number(process.env.BENCH_WEBHOOK_WARMUP ?? 2000);
/** Concurrent clients producing events, on both sides. */
const PRODUCERS = Number(process.env.BENCH_WEBHOOK_PRODUCERS ?? 8);
const DRAIN = process.env.BENCH_WEBHOOK_DRAIN !== '0';
/** The platform's worker keeps this many posts in flight (MM_WEBHOOK_CONCURRENCY, 64 by default). */
const CONCURRENCY = Number(process.env.MM_WEBHOOK_CONCURRENCY ?? 64);
const PGBOSS_WORKERS = Number(process.env.BENCH_PGBOSS_WORKERS ?? 8);
const PGBOSS_BATCH = Number(process.env.BENCH_PGBOSS_BATCH ?? 100);
/** `send`: one job per call, PRODUCERS at a time, as the platform gets one event per request; `insert`: 1,000 per call. */
const PGBOSS_ENQUEUE = process.env.BENCH_PGBOSS_ENQUEUE === 'insert' ? 'insert' : 'send';
/** Longest wait for a phase's deliveries before the benchmark gives up. */
const PHASE_TIMEOUT_MS = 120_000;

/** Epoch milliseconds, sub-millisecond: comparable with the pg-boss process's on the same machine. */
const now = (): number => performance.timeOrigin + performance.now();

/** Records the first arrival of each `webhook-id`; answers 500 while failing, else 200 "ok". */
class Receiver {
  failing = false;
  /** Requests answered 500 while failing. */
  refused = 0;
  /** Bodies that were not JSON. */
  malformed = 0;
  /** One body as it arrived, for the pg-boss jobs to post the same bytes. */
  sample?: string;
  readonly arrivals = new Map<string, number>();
  private waiters: Array<{ pending: Set<string>; resolve: () => void }> = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined = undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = now();
        const r = receiver!;
        const id = String(req.headers['webhook-id']);
        const body = Buffer.concat(chunks).toString();
        try {
          JSON.parse(body);
        } catch {
          r.malformed++;
        }
        if (r.failing) {
          r.refused++;
          return void res.writeHead(500).end();
        }
        res.writeHead(200).end('ok');
        r.sample ??= body;
        if (!r.arrivals.has(id)) {
          r.arrivals.set(id, at);
          r.arrived(id);
        }
      });
    });
    server.keepAliveTimeout = 5_000;
    receiver = new Receiver(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once every one of ids has arrived. */
  async waitFor(ids: Iterable<string>): Promise<void> {
    const pending = new Set([...ids].filter((id) => !this.arrivals.has(id)));
    if (pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<void>((r) => this.waiters.push({ pending, resolve: r }));
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${pending.size} deliveries had not arrived after ${PHASE_TIMEOUT_MS / 1000} s`)),
        PHASE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([arrived, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The arrival of the last of ids. */
  lastArrival(ids: Iterable<string>): number {
    let last = 0;
    for (const id of ids) last = Math.max(last, this.arrivals.get(id)!);
    return last;
  }

  private arrived(id: string): void {
    this.waiters = this.waiters.filter((w) => {
      w.pending.delete(id);
      return w.pending.size > 0 || (w.resolve(), false);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** undici with keep-alive rather than fetch: less of this thread, which the receiver shares, per request. */
const client = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 10_000, connections: PRODUCERS * 2 });

async function post<T>(url: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await request(url, {
    method: 'POST',
    headers: {
      ...headers,
      'idempotency-key': randomUUID(),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: client,
  });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${await res.body.text()}`);
  return (await res.body.json()) as T;
}

/** Runs `count` calls of fn, `parallel` at a time. */
async function inParallel(count: number, parallel: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

interface Burst {
  /** Events produced per second (their POSTs answered, or jobs sent). */
  produced: number;
  delivered: number;
  /** Event to delivery under the burst's backlog, from the start of each POST or send. */
  p50: number;
  p99: number;
  /** CPU ms per event of the side's own process and of PostgreSQL, from the first POST or send to the last arrival. */
  cpu: { side?: number; postgres?: number };
}

/** CPU ms per event between two readings of the side's process and PostgreSQL. */
function cpuPerEvent(
  before: { side?: number; postgres?: number },
  after: { side?: number; postgres?: number },
): Burst['cpu'] {
  const per = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : (b - a) / EVENTS);
  return { side: per(before.side, after.side), postgres: per(before.postgres, after.postgres) };
}

interface Sent {
  id: string;
  start: number;
  answered: number;
}

/** `count` test events from PRODUCERS clients; returns each event's POST start and answer. */
async function produce(api: string, auth: Record<string, string>, webhookId: string, count: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  await inParallel(count, PRODUCERS, async () => {
    const start = now();
    const delivery = await post<{ id: string }>(`${api}/webhooks/${webhookId}/test`, auth);
    sent.push({ id: delivery.id, start, answered: now() });
  });
  return sent;
}

async function platformBurst(
  api: string,
  auth: Record<string, string>,
  webhookId: string,
  receiver: Receiver,
): Promise<Burst> {
  const endProfile = profileWindow('webhook burst', PRODUCERS);
  const cpuBefore = cpuNow();
  const started = now();
  const sent = await produce(api, auth, webhookId, EVENTS);
  const produced = Math.max(...sent.map((s) => s.answered));
  await receiver.waitFor(sent.map((s) => s.id));
  const cpuAfter = cpuNow();
  await endProfile();
  const latencies = sent.map((s) => receiver.arrivals.get(s.id)! - s.start);
  return {
    cpu: cpuPerEvent(
      { side: cpuBefore.platform, postgres: cpuBefore.postgres },
      { side: cpuAfter.platform, postgres: cpuAfter.postgres },
    ),
    produced: EVENTS / ((produced - started) / 1000),
    delivered: EVENTS / ((receiver.lastArrival(sent.map((s) => s.id)) - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function platformPaced(api: string, auth: Record<string, string>, webhookId: string, receiver: Receiver) {
  const fromStart: number[] = [];
  const fromAnswer: number[] = [];
  for (let i = 0; i < PACED; i++) {
    const [sent] = await produce(api, auth, webhookId, 1);
    await receiver.waitFor([sent.id]);
    const arrived = receiver.arrivals.get(sent.id)!;
    fromStart.push(arrived - sent.start);
    fromAnswer.push(arrived - sent.answered);
  }
  return {
    p50: percentile(fromStart, 50),
    p99: percentile(fromStart, 99),
    answerP50: percentile(fromAnswer, 50),
    answerP99: percentile(fromAnswer, 99),
  };
}

async function platformDrain(api: string, auth: Record<string, string>, receiver: Receiver): Promise<number> {
  // An endpoint of its own: failing attempts mark it down.
  const endpoint = await post<{ id: string }>(`${api}/webhooks`, auth, {
    url: receiver.url,
    subscriptions: ['webhook.test'],
  });
  // Every attempt fails until the drain: N deliveries then wait in the queue for their retry.
  receiver.failing = true;
  receiver.refused = 0;
  const sent = await produce(api, auth, endpoint.id, EVENTS);
  while (receiver.refused < EVENTS) await new Promise((r) => setTimeout(r, 100));
  // Each failure recorded (queued again for its retry) before the clock moves.
  await new Promise((r) => setTimeout(r, 1000));
  receiver.failing = false;
  const started = now();
  // An hour: whatever retry each one is waiting for (a slow producer lets early ones fail twice or more).
  await post(`${api}/sandbox/clock/advance`, auth, { seconds: 3600 });
  await receiver.waitFor(sent.map((s) => s.id));
  const seconds = (receiver.lastArrival(sent.map((s) => s.id)) - started) / 1000;
  await post(`${api}/webhooks/${endpoint.id}/disable`, auth);
  return EVENTS / seconds;
}

/**
 * pg-boss in a process of its own (tools/bench/pg-boss-reference.ts): it warms up, then says
 * `started <epoch ms>` as it sends the first job (burst) or starts its workers (drain).
 */
async function pgBoss(mode: 'burst' | 'drain', databaseUrl: string, receiver: Receiver, body: string): Promise<Burst> {
  const run = `job_${randomUUID().slice(0, 8)}`;
  const ids = Array.from({ length: EVENTS }, (_, i) => `${run}_${i}`);
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/bench/pg-boss-reference.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      RECEIVER_URL: receiver.url,
      MODE: mode,
      RUN: run,
      JOBS: String(EVENTS),
      WARMUP: String(WARMUP),
      BODY: body,
      WORKERS: String(PGBOSS_WORKERS),
      BATCH: String(PGBOSS_BATCH),
      ENQUEUE: PGBOSS_ENQUEUE,
      PRODUCERS: String(PRODUCERS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let output = '';
    const checks = new Set<() => void>();
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const check of [...checks]) check();
    });
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`pg-boss reference exited (${code})`))),
    );
    exited.catch(() => undefined);
    const line = (pattern: RegExp) =>
      Promise.race([
        exited,
        new Promise<RegExpExecArray>((resolveLine) => {
          const check = () => {
            const match = pattern.exec(output);
            if (match) {
              checks.delete(check);
              resolveLine(match);
            }
          };
          checks.add(check);
          check();
        }),
      ]);
    const started = Number((await line(/started (\S+)/))[1]);
    const cpuBefore = { side: processCpuMs(child.pid), postgres: cpuNow().postgres };
    await Promise.race([exited, receiver.waitFor(ids)]);
    const cpu = cpuPerEvent(cpuBefore, { side: processCpuMs(child.pid), postgres: cpuNow().postgres });
    // Burst: each job's send, as the child timed it, for event to delivery under the backlog.
    const sends = mode === 'burst' ? (await line(/sent (\S+)\n/))[1].split(',').map(Number) : [];
    const enqueued = mode === 'burst' ? Number((await line(/enqueued (\S+)/))[1]) : NaN;
    const latencies = sends.map((s, i) => receiver.arrivals.get(ids[i])! - s);
    return {
      cpu,
      produced: EVENTS / ((enqueued - started) / 1000),
      delivered: EVENTS / ((receiver.lastArrival(ids) - started) / 1000),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    if (child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  }
}

/**
 * The bearer header of a project of the section's own: its clock (the drain moves it an hour) and its timers are
 * not those of the sections before, whose quotes and payouts would otherwise come due in the middle of the drain.
 */
async function ownProject(api: string, adminToken: string): Promise<{ authorization: string }> {
  const platform = new Platform(api, 1);
  try {
    await platform.project(adminToken, 'bench webhooks', {});
    return { authorization: platform.authorization };
  } finally {
    await platform.close();
  }
}

export async function benchWebhooks(api: string, adminToken: string, databaseUrl: string): Promise<void> {
  // Bodiless POSTs go without a content type.
  const auth = await ownProject(api, adminToken);
  const receiver = await Receiver.start();
  try {
    // The sections before leave work behind in the log readers (partner events to fan out, thousands of them
    // after a full run): it is theirs, not the burst's, so the burst starts once the readers are quiet.
    const quiet = await logReadersQuiet(databaseUrl);
    const endpoint = await post<{ id: string }>(`${api}/webhooks`, auth, { url: receiver.url, subscriptions: ['*'] });
    const warm = await produce(api, auth, endpoint.id, WARMUP);
    await receiver.waitFor(warm.map((s) => s.id));
    const paced = await platformPaced(api, auth, endpoint.id, receiver);
    if (STATEMENTS) await resetStatements(databaseUrl);
    const ours = await platformBurst(api, auth, endpoint.id, receiver);
    const ourStatements = STATEMENTS ? await readStatements(databaseUrl) : [];
    await post(`${api}/webhooks/${endpoint.id}/disable`, auth);
    // The same bytes the platform posted (a webhook.test envelope).
    const body = receiver.sample ?? '{}';
    if (STATEMENTS) await resetStatements(databaseUrl);
    const reference = await pgBoss('burst', databaseUrl, receiver, body);
    const referenceStatements = STATEMENTS ? await readStatements(databaseUrl) : [];
    const drained = DRAIN
      ? {
          ours: await platformDrain(api, auth, receiver),
          reference: await pgBoss('drain', databaseUrl, receiver, body),
        }
      : undefined;

    const fixed = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 100 ? 1 : 0) : '-');
    const line = (cells: string[]) =>
      process.stdout.write(
        cells.map((c, i) => (i === 0 ? c.padEnd(34) : c.padStart(i <= 2 || i === 5 ? 14 : 10))).join('') + '\n',
      );
    process.stdout.write(
      `\nwebhook deliveries: ${EVENTS} events from ${PRODUCERS} producers, a ${Buffer.byteLength(body)}-byte body each, receiver on loopback\n`,
    );
    line(['scenario', 'events in/s', 'deliveries/s', 'p50 ms', 'p99 ms', 'ratio']);
    line([
      'platform (burst)',
      fixed(ours.produced),
      fixed(ours.delivered),
      fixed(ours.p50),
      fixed(ours.p99),
      `${(ours.delivered / reference.delivered).toFixed(2)} pg-boss`,
    ]);
    line([
      'pg-boss (same jobs)',
      fixed(reference.produced),
      fixed(reference.delivered),
      fixed(reference.p50),
      fixed(reference.p99),
      '',
    ]);
    line([`platform (paced latency, ${PACED})`, '-', '-', fixed(paced.p50), fixed(paced.p99), '']);
    line(['  measured from the POST response', '-', '-', fixed(paced.answerP50), fixed(paced.answerP99), '']);
    if (drained) {
      line([
        'platform (queue drain)',
        '-',
        fixed(drained.ours),
        '-',
        '-',
        `${(drained.ours / drained.reference.delivered).toFixed(2)} pg-boss`,
      ]);
      line(['pg-boss (queued, then worked off)', '-', fixed(drained.reference.delivered), '-', '-', '']);
    }
    const cpuLine = (burst: Burst, side: string) =>
      burst.cpu.side === undefined
        ? ''
        : `${side} ${burst.cpu.side.toFixed(2)}${burst.cpu.postgres === undefined ? '' : ` + postgres ${burst.cpu.postgres.toFixed(2)}`} ms`;
    const cpuLines = [cpuLine(ours, 'platform'), cpuLine(reference, 'pg-boss')].filter((l) => l !== '');
    if (cpuLines.length > 0) process.stdout.write(`  cpu per event in the burst: ${cpuLines.join('; ')}\n`);
    if (STATEMENTS) {
      const byQuery = (rows: StatementRow[]) => {
        const map = new Map<string, StatementRow>();
        addStatements(map, rows);
        return map;
      };
      process.stdout.write(
        statementsText('platform', byQuery(ourStatements), EVENTS) +
          statementsText('pg-boss', byQuery(referenceStatements), EVENTS),
      );
    }
    process.stdout.write(`  log readers quiet ${quiet.toFixed(1)} s before the section\n`);
    if (receiver.malformed > 0) process.stdout.write(`(${receiver.malformed} bodies were not JSON)\n`);
    process.stdout.write(
      `burst: deliveries/s from the first POST /webhooks/{id}/test (pg-boss: the first ${PGBOSS_ENQUEUE}) until the receiver has all ${EVENTS};\n` +
        '  "events in/s" is how fast they were produced; p50/p99 there are event to delivery under that backlog, from each\n' +
        "  POST's (send's) start. \"ratio\" is the platform's deliveries/s divided by pg-boss's jobs/s.\n" +
        'paced: one test event at a time, the next once it has arrived; from the start of its POST (its commit is the event)\n' +
        "  to the arrival, and from the POST's response (a delivery can arrive before it: negative).\n" +
        `platform: its worker with ${CONCURRENCY} posts in flight (MM_WEBHOOK_CONCURRENCY). pg-boss 10: ${PGBOSS_WORKERS} work() workers of batchSize ${PGBOSS_BATCH}\n` +
        `  (BENCH_PGBOSS_WORKERS, BENCH_PGBOSS_BATCH), pollingIntervalSeconds 0.5 (its shortest), every job of a batch posted\n` +
        `  at once with undici keep-alive, jobs enqueued with ${PGBOSS_ENQUEUE === 'send' ? `boss.send by ${PRODUCERS} producers` : 'boss.insert, 1,000 at a time'} (BENCH_PGBOSS_ENQUEUE=send|insert),\n` +
        `  schema bench_pgboss. Both warmed up with ${WARMUP} events first (BENCH_WEBHOOK_WARMUP).` +
        (DRAIN ? ' BENCH_WEBHOOK_DRAIN=0 leaves out the drain.' : '') +
        '\n',
    );
  } finally {
    await receiver.stop();
    await client.close();
  }
}
