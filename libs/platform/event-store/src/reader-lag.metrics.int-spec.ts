// Log readers' lag on /metrics (docs/metrics.md), on a real PostgreSQL: a subscription that has read part of a
// log trails it by the events past its checkpoint, for as long as the oldest of them has waited; a reader with
// no checkpoint yet trails by the whole log; a log that does not exist yet shows no series.
import type { QueryRunner } from 'typeorm';
import { Registry } from 'prom-client';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { EventStore } from './event-store';
import { createEventsTable } from './events-table.migration';
import { ReaderLagMetrics } from './reader-lag.metrics';
import { Subscription } from './subscription';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const runner: QueryRunner = db.dataSource.createQueryRunner();
  await createEventsTable(runner, 'lag_es');
  await runner.release();
  // Five events, the first two minutes ago, the others a minute and a half ago.
  for (let n = 1; n <= 5; n++)
    await db.uow.query(
      `INSERT INTO lag_es.events (event_id, stream_id, stream_version, type, data, recorded_at)
       VALUES ($1, 's-1', $2, 'thing.happened', '{}'::jsonb, clock_timestamp() - make_interval(secs => $3))`,
      [`evt_${n}`, n, n === 1 ? 120 : 90],
    );
});
afterAll(() => db?.close());

async function samples(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name)!;
  return Object.fromEntries(metric.values.map((v) => [`${v.labels.reader}/${v.labels.source}`, v.value]));
}

it('reports each reader by the events past its checkpoint and the age of the oldest', async () => {
  const registry = new Registry();
  const lag = new ReaderLagMetrics(db.uow, registry);
  lag.watch('reader-a', ['lag_es', 'absent_es']);
  lag.watch('reader-b', ['lag_es']);
  const reader = new Subscription(db.uow, 'reader-a', [new EventStore(db.uow, 'lag_es')], async () => undefined, {
    batchSize: 2,
  });
  // Other files' transactions share the read horizon: the first batch may take a moment to become readable.
  for (let read = 0, deadline = Date.now() + 60_000; read < 2;) {
    read += await reader.pollOnce();
    if (Date.now() > deadline) throw new Error('the first two events did not become readable within 60 s');
  }

  expect(await samples(registry, 'mm_reader_lag_events')).toEqual({ 'reader-a/lag_es': 3, 'reader-b/lag_es': 5 });
  const seconds = await samples(registry, 'mm_reader_lag_seconds');
  expect(Object.keys(seconds).sort()).toEqual(['reader-a/lag_es', 'reader-b/lag_es']);
  // reader-a's oldest unread is the third event (90 s); reader-b has read nothing, the first waits 120 s.
  expect(seconds['reader-a/lag_es']).toBeGreaterThanOrEqual(90);
  expect(seconds['reader-a/lag_es']).toBeLessThan(115);
  expect(seconds['reader-b/lag_es']).toBeGreaterThanOrEqual(120);

  while ((await reader.pollOnce()) > 0);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect(await samples(registry, 'mm_reader_lag_events')).toMatchObject({ 'reader-a/lag_es': 0 });
  expect(await samples(registry, 'mm_reader_lag_seconds')).toMatchObject({ 'reader-a/lag_es': 0 });
});
