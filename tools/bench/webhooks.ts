// Webhook delivery in `npm run bench` (issue 9): the platform's delivery worker
// beside pg-boss moving the same number of jobs to the same loopback receiver
// on the same PostgreSQL, in the same run.
//   drain     N deliveries all due at once (each failed its first attempt; the
//             sandbox clock then moves an hour): deliveries/s until the receiver has
//             every one. pg-boss: N jobs queued, then worked off: jobs/s.
//   latency   one event at a time (POST /webhooks/{id}/test, whose commit is the
//             event): from the request's start to the delivery's arrival.
// Figures, not assertions.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2000);
const PACED = Number(process.env.BENCH_WEBHOOK_PACED ?? 200);
/** The platform's worker keeps this many posts in flight (MM_WEBHOOK_CONCURRENCY); pg-boss gets as many. */
const CONCURRENCY = 64;
const PGBOSS_WORKERS = Number(process.env.BENCH_PGBOSS_WORKERS ?? 8);
const PGBOSS_BATCH = Number(process.env.BENCH_PGBOSS_BATCH ?? 100);

/** Counts arrivals by delivery or job id; answers 500 while failing, else 200. */
class Receiver {
  failing = false;
  /** Requests answered 500 while failing. */
  refused = 0;
  readonly arrivals = new Map<string, number>();
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined = undefined;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['webhook-id'] ?? req.headers['x-job-id']);
        if (receiver!.failing) {
          receiver!.refused++;
          return void res.writeHead(500).end();
        }
        if (!receiver!.arrivals.has(id)) receiver!.arrivals.set(id, performance.now());
        res.writeHead(200).end('ok');
        receiver!.notify();
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

  /** Resolves once n distinct ids have arrived. */
  until(n: number): Promise<void> {
    if (this.arrivals.size >= n) return Promise.resolve();
    return new Promise((r) => this.waiters.push({ n, resolve: r }));
  }

  reset(): void {
    this.arrivals.clear();
  }

  private notify(): void {
    this.waiters = this.waiters.filter((w) => (this.arrivals.size >= w.n ? (w.resolve(), false) : true));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

async function post(url: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Runs `count` calls of fn, `parallel` at a time. */
async function inParallel(count: number, parallel: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await fn(next++);
  }));
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function platformDrain(api: string, auth: Record<string, string>, receiver: Receiver): Promise<{ perSecond: number; body: string }> {
  const endpoint = await post(`${api}/webhooks`, auth, { url: receiver.url, subscriptions: ['*'] });
  // Every attempt fails until the drain: N deliveries then wait in the queue for their retry.
  receiver.failing = true;
  await inParallel(EVENTS, 8, () => post(`${api}/webhooks/${endpoint.id}/test`, auth));
  while (receiver.refused < EVENTS) await new Promise((r) => setTimeout(r, 100));
  // Each failure recorded (queued again for its retry) before the clock moves.
  await new Promise((r) => setTimeout(r, 1000));
  receiver.failing = false;
  receiver.reset();
  const started = performance.now();
  // An hour: whatever retry each one is waiting for (a slow producer lets early ones fail twice or more).
  await post(`${api}/sandbox/clock/advance`, auth, { seconds: 3600 });
  await receiver.until(EVENTS);
  const seconds = (performance.now() - started) / 1000;
  const sample = await fetch(`${api}/webhooks/${endpoint.id}/deliveries?limit=1`, { headers: auth }).then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>);
  const detail = await fetch(`${api}/webhooks/${endpoint.id}/deliveries/${sample.data[0].id}`, { headers: auth }).then((r) => r.json() as Promise<{ payload: unknown }>);
  await post(`${api}/webhooks/${endpoint.id}/disable`, auth);
  return { perSecond: EVENTS / seconds, body: JSON.stringify(detail.payload) };
}

async function pgBossDrain(databaseUrl: string, receiver: Receiver, body: string): Promise<number> {
  receiver.reset();
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/bench/pg-boss-reference.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, RECEIVER_URL: receiver.url, JOBS: String(EVENTS), BODY: body, WORKERS: String(PGBOSS_WORKERS), BATCH: String(PGBOSS_BATCH) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    // Its clock and ours: the child says when it started working, in epoch ms; arrivals are timed here.
    const startedAt = await new Promise<number>((resolveStart, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        const match = /started (\d+)/.exec(chunk.toString());
        if (match) resolveStart(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`pg-boss reference exited (${code})`)));
    });
    const offset = Date.now() - performance.now();
    await receiver.until(EVENTS);
    const last = Math.max(...receiver.arrivals.values()) + offset;
    return EVENTS / ((last - startedAt) / 1000);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function platformLatency(api: string, auth: Record<string, string>, receiver: Receiver): Promise<{ p50: number; p99: number }> {
  receiver.reset();
  const endpoint = await post(`${api}/webhooks`, auth, { url: receiver.url, subscriptions: ['webhook.test'] });
  const latencies: number[] = [];
  for (let i = 0; i < PACED; i++) {
    const started = performance.now();
    const delivery = await post(`${api}/webhooks/${endpoint.id}/test`, auth);
    await receiver.until(receiver.arrivals.size + (receiver.arrivals.has(delivery.id) ? 0 : 1));
    latencies.push(receiver.arrivals.get(delivery.id)! - started);
  }
  await post(`${api}/webhooks/${endpoint.id}/disable`, auth);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function benchWebhooks(api: string, headers: Record<string, string>, databaseUrl: string): Promise<void> {
  // Bodiless POSTs go without a content type.
  const auth = { authorization: headers.authorization };
  const receiver = await Receiver.start();
  try {
    const ours = await platformDrain(api, auth, receiver);
    const reference = await pgBossDrain(databaseUrl, receiver, ours.body);
    const latency = await platformLatency(api, auth, receiver);
    const line = (cells: string[]) => process.stdout.write(cells.map((c, i) => (i === 0 ? c.padEnd(34) : c.padStart(14))).join('') + '\n');
    process.stdout.write(`\nwebhook deliveries: ${EVENTS} to a receiver on loopback\n`);
    line(['scenario', 'deliveries/s', 'p50 ms', 'p99 ms', 'ratio']);
    line(['pg-boss (same jobs, same receiver)', reference.toFixed(0), '-', '-', '1.00']);
    line(['platform: queue drain', ours.perSecond.toFixed(0), '-', '-', `${(ours.perSecond / reference).toFixed(2)} pg-boss`]);
    line([`platform: event to delivery (${PACED})`, '-', latency.p50.toFixed(1), latency.p99.toFixed(1), '-']);
    process.stdout.write(
      `drain: N deliveries due at once, timed until the receiver has all (the platform's worker: ${CONCURRENCY} posts in flight);\n` +
        `pg-boss: N jobs queued, then worked off by ${PGBOSS_WORKERS} workers of ${PGBOSS_BATCH} jobs polling every 0.5 s (its shortest), every job\n` +
        'of a batch one POST of the same body at once (BENCH_PGBOSS_WORKERS, BENCH_PGBOSS_BATCH). Event to delivery: from the start of\n' +
        'POST /webhooks/{id}/test (its commit is the event) to the arrival, one at a time.\n',
    );
  } finally {
    await receiver.stop();
  }
}
