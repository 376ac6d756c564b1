// The held queue on /metrics (docs/metrics.md), on a real PostgreSQL: the transactions waiting on an operator,
// across projects, and how long the one waiting longest has waited on its own project's clock.
import { HttpMetrics } from '@mm/platform/http';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { HeldQueueMetrics } from './held-queue.metrics';

let db: TestDatabase;
beforeAll(async () => (db = await createTestDatabase()));
afterAll(() => db?.close());

async function transaction(
  id: string,
  projectId: string,
  status: string,
  subStatus: string | null,
  minutesAgo: number,
) {
  await db.uow.query(
    `INSERT INTO transactions.transactions (id, project_id, customer_ids, status, sub_status, view, version, created_at, updated_at)
     VALUES ($1, $2, '{}', $3, $4, '{}'::jsonb, 1, now() - make_interval(mins => $5), now() - make_interval(mins => $5))`,
    [id, projectId, status, subStatus, minutesAgo],
  );
}

const value = async (metrics: HttpMetrics, name: string) =>
  (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)?.values.map((v) => v.value);

it("counts the held queue across projects and ages its oldest on the project's clock", async () => {
  const metrics = new HttpMetrics();
  new HeldQueueMetrics(db.uow, metrics).onModuleInit();
  expect(await value(metrics, 'mm_held_transactions')).toEqual([0]);
  expect(await value(metrics, 'mm_held_oldest_seconds')).toEqual([0]);

  await transaction('txn_a', 'prj_a', 'processing', 'processing.underReview', 30);
  await transaction('txn_b', 'prj_b', 'awaitingAction', 'awaitingAction.payoutDestinationMissing', 10);
  await transaction('txn_c', 'prj_a', 'processing', 'processing.payoutUnconfirmed', 5);
  await transaction('txn_d', 'prj_a', 'completed', null, 600);
  await transaction('txn_e', 'prj_b', 'processing', 'processing.fundsPulled', 600);
  // prj_b's clock runs two hours ahead: its transaction has waited 2 h 10 min of its project's time.
  await db.uow.query(`INSERT INTO platform.sandbox_clocks (project_id, offset_ms) VALUES ('prj_b', 7200000)`);
  await new Promise((resolve) => setTimeout(resolve, 1100));

  expect(await value(metrics, 'mm_held_transactions')).toEqual([3]);
  const [oldest] = (await value(metrics, 'mm_held_oldest_seconds'))!;
  expect(oldest).toBeGreaterThanOrEqual(7800);
  expect(oldest).toBeLessThan(7860);
});
