// Transactions by status on /metrics (docs/metrics.md), on a real PostgreSQL: those not ended yet counted by status
// and sub-status across projects, the ended never read; the ends a process saw counted by how they ended.
import { HttpMetrics } from '@mm/platform/http';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { TransactionStatusMetrics } from './transaction-status.metrics';

let db: TestDatabase;
beforeAll(async () => (db = await createTestDatabase()));
afterAll(() => db?.close());

async function transaction(id: string, projectId: string, status: string, subStatus: string | null) {
  await db.uow.query(
    `INSERT INTO transactions.transactions (id, project_id, customer_ids, status, sub_status, view, version, created_at, updated_at)
     VALUES ($1, $2, '{}', $3, $4, '{}'::jsonb, 1, now(), now())`,
    [id, projectId, status, subStatus],
  );
}

/** A fresh registry's view of the metric: labels and value of each series. */
async function series(name: string, prepare: (metrics: TransactionStatusMetrics) => void = () => undefined) {
  const metrics = new HttpMetrics();
  const statuses = new TransactionStatusMetrics(db.uow, metrics);
  statuses.onModuleInit();
  prepare(statuses);
  const found = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return found?.values.map((v) => ({ ...v.labels, value: v.value }));
}

it('counts the transactions not ended yet by status and sub-status, across projects', async () => {
  expect(await series('mm_transactions_open')).toEqual([]);
  await transaction('txn_a', 'prj_a', 'processing', 'processing.fundsPulled');
  await transaction('txn_b', 'prj_b', 'processing', 'processing.fundsPulled');
  await transaction('txn_c', 'prj_a', 'awaitingAction', 'awaitingAction.payoutDestinationMissing');
  await transaction('txn_d', 'prj_a', 'processing', null);
  await transaction('txn_e', 'prj_a', 'completed', null);
  await transaction('txn_f', 'prj_b', 'failed', 'failed.returnedToSender');

  expect(await series('mm_transactions_open')).toEqual(
    expect.arrayContaining([
      { status: 'processing', sub_status: 'processing.fundsPulled', value: 2 },
      { status: 'awaitingAction', sub_status: 'awaitingAction.payoutDestinationMissing', value: 1 },
      { status: 'processing', sub_status: '', value: 1 },
    ]),
  );
  expect(await series('mm_transactions_open')).toHaveLength(3);
});

it('counts the ends it is told of by how they ended', async () => {
  const ends = await series('mm_transactions_ended_total', (statuses) => {
    statuses.ended('completed', null);
    statuses.ended('completed', null);
    statuses.ended('failed', 'failed.outboundFailed');
  });
  expect(ends).toEqual(
    expect.arrayContaining([
      { status: 'completed', sub_status: '', value: 2 },
      { status: 'failed', sub_status: 'failed.outboundFailed', value: 1 },
    ]),
  );
  expect(ends).toHaveLength(2);
});
