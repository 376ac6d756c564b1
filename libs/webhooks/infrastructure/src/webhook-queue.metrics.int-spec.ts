// The webhook delivery queue on /metrics (docs/metrics.md), on a real PostgreSQL: deliveries waiting for an
// attempt, how long the oldest has waited since it was made, on its own project's clock, and the endpoints
// suspended.
import { HttpMetrics } from '@mm/platform/http';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { WebhookQueueMetrics } from './webhook-queue.metrics';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  for (const [id, project, status, deleted] of [
    ['wh_a', 'prj_a', 'enabled', false],
    ['wh_b', 'prj_b', 'enabled', false],
    ['wh_c', 'prj_b', 'suspended', false],
    ['wh_d', 'prj_a', 'suspended', true],
    ['wh_e', 'prj_a', 'disabled', false],
  ])
    await db.uow.query(
      `INSERT INTO webhooks.endpoints (id, project_id, url, subscriptions, timeout_ms, notify_threshold_secs, status, version, created_at, updated_at, deleted_at)
       VALUES ($1, $2, 'https://example.com/hook', '["*"]'::jsonb, 5000, 3600, $3, 1, now(), now(), CASE WHEN $4 THEN now() END)`,
      [id, project, status, deleted],
    );
});
afterAll(() => db?.close());

async function delivery(id: string, webhookId: string, projectId: string, status: string, minutesAgo: number) {
  await db.uow.query(
    `INSERT INTO webhooks.deliveries (id, project_id, webhook_id, event_id, event, body, status, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $1, 'customer.created', '{}', $4, now(), now() - make_interval(mins => $5), now())`,
    [id, projectId, webhookId, status, minutesAgo],
  );
}

const value = async (metrics: HttpMetrics, name: string) =>
  (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)?.values.map((v) => v.value);

it("counts the queued deliveries, ages the oldest on its project's clock, and counts suspended endpoints", async () => {
  const metrics = new HttpMetrics();
  new WebhookQueueMetrics(db.uow, metrics).onModuleInit();
  expect(await value(metrics, 'mm_webhook_deliveries_queued')).toEqual([0]);
  expect(await value(metrics, 'mm_webhook_oldest_queued_seconds')).toEqual([0]);
  // Suspended and not deleted: one.
  expect(await value(metrics, 'mm_webhook_endpoints_suspended')).toEqual([1]);

  await delivery('whd_1', 'wh_a', 'prj_a', 'queued', 20);
  await delivery('whd_2', 'wh_b', 'prj_b', 'queued', 1);
  await delivery('whd_3', 'wh_a', 'prj_a', 'delivered', 600);
  await delivery('whd_4', 'wh_b', 'prj_b', 'failed', 600);
  // prj_b's clock runs an hour ahead: its delivery has waited 61 minutes of its project's time.
  await db.uow.query(`INSERT INTO platform.sandbox_clocks (project_id, offset_ms) VALUES ('prj_b', 3600000)`);
  await new Promise((resolve) => setTimeout(resolve, 1100));

  expect(await value(metrics, 'mm_webhook_deliveries_queued')).toEqual([2]);
  const [oldest] = (await value(metrics, 'mm_webhook_oldest_queued_seconds'))!;
  expect(oldest).toBeGreaterThanOrEqual(3660);
  expect(oldest).toBeLessThan(3720);
});
