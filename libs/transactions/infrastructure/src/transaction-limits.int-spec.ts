// Read your writes across processes (issue 24, ADR 0025): once the transactions
// service has applied a project.updated event (the handler's transaction has
// committed), every process of the service decides on the new limits, though
// each keeps them in memory. Two repositories with connections and feeds of
// their own stand for two processes on one database.
import { newId } from '@mm/platform/ids';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { TransactionLimitsRepository } from './transaction-limits.repository';

describe('project limits kept in memory by several processes of the transactions service', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let here: TransactionLimitsRepository;
  let there: TransactionLimitsRepository;

  beforeAll(async () => {
    db = await createTestDatabase();
    other = await anotherProcess(db);
    here = new TransactionLimitsRepository(db.uow);
    there = new TransactionLimitsRepository(other.uow);
    await here.onApplicationBootstrap();
    await there.onApplicationBootstrap();
  });
  afterAll(async () => {
    await there.onApplicationShutdown();
    await here.onApplicationShutdown();
    await other.close();
    await db.close();
  });

  /** The event handler's write, in the transaction the transport runs it in (with its processed-event row or checkpoint). */
  const applied = (projectId: string, changes: Record<string, string | null>) => db.uow.run(() => here.apply(projectId, changes));

  it('is read as the last applied event left it, in every process', async () => {
    // Many rounds: without acknowledgements the other process's notification often arrives after the handler returns.
    for (let round = 1; round <= 25; round++) {
      const projectId = newId('project');
      // The other process has the limits in memory.
      expect(await there.limits(projectId)).toEqual({});
      expect(await there.limits(projectId)).toEqual({});

      await applied(projectId, { perTransactionMax: '5.00', dailyBankPayoutCap: '100.00' });
      expect({ round, limits: await there.limits(projectId) }).toEqual({ round, limits: { perTransactionMax: '5.00', dailyBankPayoutCap: '100.00' } });

      // Lowered: what a stale copy would let through.
      await applied(projectId, { perTransactionMax: '1.00' });
      expect({ round, limits: await there.limits(projectId) }).toEqual({ round, limits: { perTransactionMax: '1.00', dailyBankPayoutCap: '100.00' } });

      await applied(projectId, { dailyBankPayoutCap: null });
      expect({ round, limits: await there.limits(projectId) }).toEqual({ round, limits: { perTransactionMax: '1.00', dailyBankPayoutCap: null } });
    }
  });
});
