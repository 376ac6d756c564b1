// ADR 0020 on a real PostgreSQL: a deposit code is unique among pending cash-ins (a collision is a
// retryable DepositCodeTaken), the limits' usage counts each window from its own start, and a
// customer's deposits are ordered by the usage row lock.
import { cashInDecider, cashInPricing, cashInRates, cashInView, type ExistingCashIn } from '@mm/cash-in/domain';
import { fold } from '@mm/platform/decider';
import { isRetryable } from '@mm/platform/event-store';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { CashInsReadModel, DepositCodeTaken } from './cash-ins.repository';

function view(cashInId: string, code: string) {
  const state = fold(cashInDecider, [
    {
      type: 'cashIn.created',
      data: {
        cashInId,
        projectId: 'prj_1',
        customerId: 'cst_1',
        indicatedAmount: '50.00',
        estimate: cashInPricing('50.00', 'usdc', '1.00'),
        rates: cashInRates('usdc', '1.00'),
        destination: {
          asset: 'usdc',
          network: 'meridianchain',
          walletId: null,
          externalAccountId: null,
          blockchainAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
        },
        location: {
          locId: 'loc_1',
          reference: 'QUICKSTOP-2002',
          name: 'QuickStop Market #2002',
          provider: 'quickstop',
          state: 'CA',
          address: { line1: '611 W 6th St', city: 'Los Angeles', state: 'CA', postalCode: '90017', country: 'US' },
        },
        sponsorGas: true,
        code,
        expiresAt: '2030-01-01T01:00:00.000Z',
        metadata: {},
        createdAt: '2030-01-01T00:00:00.000Z',
      },
    },
  ]);
  return cashInView(state as ExistingCashIn);
}

describe('cash-in read models on PostgreSQL', () => {
  let db: TestDatabase;
  let readModel: CashInsReadModel;

  beforeAll(async () => {
    db = await createTestDatabase();
    readModel = new CashInsReadModel(db.uow);
  });
  afterAll(() => db.close());

  it('refuses a code another pending cash-in holds, as a retryable DepositCodeTaken; a finished one frees it', async () => {
    const a = view('ci_01h455vb4pex5vsknk084sn0aa', '111 111');
    await db.uow.run(() => readModel.upsert('prj_1', a, 1));
    const b = view('ci_01h455vb4pex5vsknk084sn0bb', '111 111');
    const refused = await db.uow.run(() => readModel.upsert('prj_1', b, 1)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DepositCodeTaken);
    expect(isRetryable(refused)).toBe(true);
    expect(await readModel.get('prj_1', b.id)).toBeUndefined();
    // A cash-in that expired (or completed) no longer holds its code.
    await db.uow.run(() => readModel.upsert('prj_1', { ...a, status: 'expired' }, 2));
    await db.uow.run(() => readModel.upsert('prj_1', b, 1));
    expect((await readModel.get('prj_1', b.id))?.code).toBe('111 111');
    // The same cash-in keeps its own code through its updates.
    await db.uow.run(() => readModel.upsert('prj_1', { ...b, updatedAt: '2030-01-01T00:10:00.000Z' }, 2));
  });

  it('counts each window from its own start, the week across a month boundary, each deposit once', async () => {
    const record = (id: string, amount: string, at: string) =>
      db.uow.run(() => readModel.recordDeposit('prj_w', 'cst_w', id, amount, at));
    await record('ci_a', '100.00', '2029-12-30T10:00:00.000Z'); // Sunday, the week before
    await record('ci_b', '200.00', '2029-12-31T10:00:00.000Z'); // Monday, in the week, not the month
    await record('ci_c', '300.00', '2030-01-01T10:00:00.000Z'); // in the month, the week, not the day
    await record('ci_d', '400.00', '2030-01-02T10:00:00.000Z'); // today
    await record('ci_d', '400.00', '2030-01-02T10:00:00.000Z'); // a repeat counts once
    const usage = await readModel.usage('prj_w', 'cst_w', {
      day: '2030-01-02T00:00:00.000Z',
      week: '2029-12-31T00:00:00.000Z',
      month: '2030-01-01T00:00:00.000Z',
    });
    expect(usage).toEqual({
      day: { count: 1, amount: '400.00' },
      week: { count: 3, amount: '900.00' },
      month: { count: 2, amount: '700.00' },
    });
    expect(
      await db.uow.query(
        `SELECT deposits FROM cash_in.customer_usage WHERE project_id = 'prj_w' AND customer_id = 'cst_w'`,
      ),
    ).toEqual([{ deposits: 4 }]);
    expect(
      await readModel.usage('prj_w', 'other', {
        day: '2030-01-02T00:00:00.000Z',
        week: '2029-12-31T00:00:00.000Z',
        month: '2030-01-01T00:00:00.000Z',
      }),
    ).toEqual({
      day: { count: 0, amount: '0' },
      week: { count: 0, amount: '0' },
      month: { count: 0, amount: '0' },
    });
  });

  it("orders one customer's deposits: a second waits for the first's commit and then sees its deposit", async () => {
    const starts = {
      day: '2030-02-01T00:00:00.000Z',
      week: '2030-01-28T00:00:00.000Z',
      month: '2030-02-01T00:00:00.000Z',
    };
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = db.uow.run(async () => {
      await readModel.lockCustomer('prj_l', 'cst_l');
      firstLocked();
      await firstHolds;
      await readModel.recordDeposit('prj_l', 'cst_l', 'ci_first', '20.00', '2030-02-01T10:00:00.000Z');
    });
    await locked;
    let secondSaw: unknown;
    const second = db.uow.run(async () => {
      await readModel.lockCustomer('prj_l', 'cst_l');
      secondSaw = await readModel.usage('prj_l', 'cst_l', starts);
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(secondSaw).toBeUndefined();
    releaseFirst();
    await Promise.all([first, second]);
    expect(secondSaw).toMatchObject({ day: { count: 1, amount: '20.00' } });
  });
});
