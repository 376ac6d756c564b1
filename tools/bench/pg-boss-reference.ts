// The reference of the webhook-delivery benchmark (tools/bench/webhooks.ts):
// pg-boss 10, a well-kept PostgreSQL job queue, moving the same number of jobs
// to the same kind of receiver on the same PostgreSQL, in a process of its own as
// the platform runs in one (schema bench_pgboss). Each job is one POST of BODY
// with its id in the `webhook-id` header. pg-boss has no wake-up on a new job: a
// worker polls, and after a batch waits out the rest of its polling interval (0.5 s
// at least), so it is given its best shape here: WORKERS work() workers of BATCH
// jobs each (8 x 100 by default), every job of a batch posted at once.
// WARMUP jobs go through first, unmeasured, enqueued as the measured ones are; then it prints `started <epoch ms>`:
//   MODE=burst  workers running, JOBS jobs sent (ENQUEUE=send: one per call, PRODUCERS
//               at a time; insert: 1,000 per call), then `enqueued <epoch ms>` once all are
//               and `sent <epoch ms each job's send started>`
//   MODE=drain  JOBS jobs queued first; `started` as the workers start
//   env: DATABASE_URL, RECEIVER_URL, MODE, RUN (job ids are RUN_0 … RUN_{JOBS-1}), JOBS, WARMUP,
//        BODY (the JSON each job posts), WORKERS, BATCH, ENQUEUE, PRODUCERS
import { Agent, request } from 'undici';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgBoss = require('pg-boss');

interface Job {
  data: { id: string };
}

const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const mode = process.env.MODE === 'drain' ? 'drain' : 'burst';
  const run = process.env.RUN!;
  const jobs = Number(process.env.JOBS);
  const warmup = Number(process.env.WARMUP ?? 100);
  const workers = Number(process.env.WORKERS ?? 8);
  const batchSize = Number(process.env.BATCH ?? 100);
  const producers = Number(process.env.PRODUCERS ?? 8);
  const body = process.env.BODY ?? '{}';
  // As many posts in flight as the batches add up to (at least the platform worker's 64).
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 10_000,
    connections: Math.max(64, workers * batchSize),
  });
  // The platform's pool size, so neither side has more connections.
  const boss = new PgBoss({ connectionString: process.env.DATABASE_URL, schema: 'bench_pgboss', max: 20 });
  boss.on('error', (error: unknown) => process.stderr.write(`pg-boss: ${String(error)}\n`));
  await boss.start();
  const queue = `deliveries_${mode}`;
  await boss.deleteQueue(queue);
  await boss.createQueue(queue);

  let done = 0;
  let onDone = () => {};
  const startWorkers = async () => {
    for (let w = 0; w < workers; w++) {
      await boss.work(queue, { batchSize, pollingIntervalSeconds: 0.5 }, async (batch: Job[]) => {
        await Promise.all(
          batch.map(async (job) => {
            const res = await request(process.env.RECEIVER_URL!, {
              method: 'POST',
              body,
              headers: { 'content-type': 'application/json', 'webhook-id': job.data.id },
              dispatcher: agent,
            });
            await res.body.dump();
            if (res.statusCode >= 300) throw new Error(`receiver answered ${res.statusCode}`);
            done++;
          }),
        );
        onDone();
      });
    }
  };
  const insert = async (ids: string[]) => {
    for (let i = 0; i < ids.length; i += 1000)
      await boss.insert(ids.slice(i, i + 1000).map((id) => ({ name: queue, data: { id } })));
  };
  /** Each job's send by `producers` at a time; returns when each send started. */
  const send = async (ids: string[]) => {
    const sends = new Array<number>(ids.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < ids.length) {
          const i = next++;
          sends[i] = now();
          await boss.send(queue, { id: ids[i] });
        }
      }),
    );
    return sends;
  };
  const enqueue = (ids: string[]) => (mode === 'burst' && process.env.ENQUEUE !== 'insert' ? send(ids) : insert(ids));

  // Warm-up: the path measured next, unmeasured.
  await startWorkers();
  await enqueue(Array.from({ length: warmup }, (_, i) => `${run}_warmup_${i}`));
  await new Promise<void>((resolveWarm) => (onDone = () => done >= warmup && resolveWarm()));
  onDone = () => {};
  const ids = Array.from({ length: jobs }, (_, i) => `${run}_${i}`);

  if (mode === 'drain') {
    // Stopped workers fetch nothing more; fresh ones start once every job is queued.
    await boss.offWork(queue);
    await insert(ids);
    process.stdout.write(`started ${now()}\n`);
    await startWorkers();
  } else {
    process.stdout.write(`started ${now()}\n`);
    const startedAt = now();
    const sends = (await enqueue(ids)) ?? new Array<number>(jobs).fill(startedAt);
    // When the last send returned, then when each one started.
    process.stdout.write(`enqueued ${now()}\nsent ${sends.join(',')}\n`);
  }

  process.on('SIGTERM', () => {
    void boss.stop({ graceful: false, wait: false }).finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `pg-boss reference failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
