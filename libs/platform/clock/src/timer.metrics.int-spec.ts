// Due and overdue timers on /metrics (docs/metrics.md), on a real PostgreSQL: for each kind this process fires,
// the pending timers whose time has come on their own project's clock, and those due for more than a minute;
// another process's kinds are left to it.
import { Registry } from 'prom-client';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { registerTimerMetrics } from './timer.metrics';

let db: TestDatabase;
beforeAll(async () => (db = await createTestDatabase()));
afterAll(() => db?.close());

async function timer(kind: string, key: string, projectId: string, secondsAgo: number, fired = false) {
  await db.uow.query(
    `INSERT INTO platform.timers (project_id, kind, key, due_at, fired_at)
     VALUES ($1, $2, $3, clock_timestamp() - make_interval(secs => $4), CASE WHEN $5 THEN clock_timestamp() END)`,
    [projectId, kind, key, secondsAgo, fired],
  );
}

async function samples(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name)!;
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.kind), v.value]));
}

it("counts each kind's due and overdue timers on their projects' clocks", async () => {
  const registry = new Registry();
  registerTimerMetrics(db.uow, registry, () => ['quote.expiry', 'sweep']);
  await timer('quote.expiry', 'q1', 'prj_a', 5); // due 5 s ago
  await timer('quote.expiry', 'q2', 'prj_a', 600); // overdue
  await timer('quote.expiry', 'q3', 'prj_a', -600); // due in ten minutes
  await timer('quote.expiry', 'q4', 'prj_b', -600); // due in ten minutes, but prj_b's clock is an hour ahead
  await timer('quote.expiry', 'q5', 'prj_a', 900, true); // fired
  await timer('other.kind', 'o1', 'prj_a', 900); // another process's
  await db.uow.query(`INSERT INTO platform.sandbox_clocks (project_id, offset_ms) VALUES ('prj_b', 3600000)`);

  expect(await samples(registry, 'mm_timers_due')).toEqual({ 'quote.expiry': 3, sweep: 0 });
  expect(await samples(registry, 'mm_timers_overdue')).toEqual({ 'quote.expiry': 2, sweep: 0 });
});
