// The reference of the webhook-delivery benchmark (tools/bench/webhooks.ts):
// pg-boss, a well-kept PostgreSQL job queue, moving the same number of jobs to
// the same receiver on the same PostgreSQL, in a process of its own as the
// platform runs in one. Queues every job first, then prints `started <epoch ms>`
// and works them off. pg-boss waits its polling interval (0.5 s at least) after
// every batch, so it is given its best shape here: WORKERS workers of BATCH jobs
// each (8 x 100 by default), every job of a batch posted at once.
//   env: DATABASE_URL, RECEIVER_URL, JOBS, BODY (the JSON each job posts), WORKERS, BATCH
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PgBoss = require('pg-boss');

async function main(): Promise<void> {
  const jobs = Number(process.env.JOBS);
  const workers = Number(process.env.WORKERS ?? 8);
  const batchSize = Number(process.env.BATCH ?? 100);
  const body = process.env.BODY ?? '{}';
  const agent = new Agent({ keepAliveTimeout: 4_000, connections: 64 });
  const boss = new PgBoss({ connectionString: process.env.DATABASE_URL, schema: `bench_pgboss_${process.pid}`, max: 10 });
  await boss.start();
  const queue = 'deliveries';
  await boss.createQueue(queue);
  for (let i = 0; i < jobs; i += 1000) {
    await boss.insert(Array.from({ length: Math.min(1000, jobs - i) }, () => ({ name: queue, data: { id: randomUUID() } })));
  }
  process.stdout.write(`started ${Date.now()}\n`);
  for (let w = 0; w < workers; w++) {
    await boss.work(queue, { batchSize, pollingIntervalSeconds: 0.5 }, async (batch: Array<{ data: { id: string } }>) => {
      await Promise.all(
        batch.map(async (job) => {
          const res = await request(process.env.RECEIVER_URL!, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-job-id': job.data.id }, dispatcher: agent });
          await res.body.dump();
          if (res.statusCode >= 300) throw new Error(`receiver answered ${res.statusCode}`);
        }),
      );
    });
  }
  process.on('SIGTERM', () => {
    void boss.stop({ graceful: false, wait: false }).finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`pg-boss reference failed: ${String(error)}\n`);
  process.exit(1);
});
