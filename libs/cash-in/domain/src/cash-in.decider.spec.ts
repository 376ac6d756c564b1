// Spec: States / Cash-in, row by row, as given(events) / when(command) / then(events or error).
import { ApiError, type CashInCreated } from '@mm/contracts';
import { specFor, fold } from '@mm/platform/decider';
import { cashInDecider, transactionIdForCashIn, type CashInEvent } from './cash-in.decider';
import { cashInView, viewAt } from './cash-in-view';
import { NO_USAGE } from './cash-in-limits';
import { cashInPricing, cashInRates } from './cash-in-pricing';

const given = specFor(cashInDecider);
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

const CREATED_AT = '2030-01-07T10:00:00.000Z';
const EXPIRES_AT = '2030-01-07T11:00:00.000Z';
const record: CashInCreated = {
  cashInId: 'ci_01h455vb4pex5vsknk084sn02q',
  projectId: 'prj_1',
  customerId: 'cst_1',
  indicatedAmount: '100.00',
  estimate: cashInPricing('100.00', 'usdc', '1.00'),
  rates: cashInRates('usdc', '1.00'),
  destination: {
    asset: 'usdc',
    network: 'meridianchain',
    walletId: 'wlt_1',
    externalAccountId: null,
    blockchainAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
  },
  location: {
    locId: 'loc_01m846c3h4e06945jf6mfht9tc',
    reference: 'BIGMART-1001',
    name: 'BigMart Supercenter #1001',
    provider: 'bigmart',
    state: 'CA',
    address: { line1: '1200 S Figueroa St', city: 'Los Angeles', state: 'CA', postalCode: '90015', country: 'US' },
  },
  sponsorGas: true,
  code: '123 456',
  expiresAt: EXPIRES_AT,
  metadata: { order: '42' },
  createdAt: CREATED_AT,
};
const created: CashInEvent = { type: 'cashIn.created', data: record };
const minutes = (n: number) => new Date(Date.parse(CREATED_AT) + n * 60_000).toISOString();
const deposited = (amount: string, at = minutes(10)): CashInEvent => {
  const [event] = cashInDecider.decide(
    { type: 'DepositCash', projectId: 'prj_1', amount, rate: '1.00', usage: NO_USAGE, at },
    fold(cashInDecider, [created]),
  );
  return event;
};

describe('cash-in decider (spec: States / Cash-in)', () => {
  it('(none) -> pending: POST /cash-ins issues the code', () =>
    given([]).when({ type: 'CreateCashIn', record, usage: NO_USAGE }).then([created]));

  it('creation is refused, with nothing appended, when a limit would be passed', () =>
    given([])
      .when({ type: 'CreateCashIn', record: { ...record, indicatedAmount: '19.99' }, usage: NO_USAGE })
      .thenThrows(isError('CashInBelowMinimum')));

  it('pending -> pending: refresh issues a new code valid one hour from the refresh', () =>
    given([created])
      .when({ type: 'RefreshCode', projectId: 'prj_1', code: '654 321', at: minutes(30) })
      .then([
        {
          type: 'cashIn.codeRefreshed',
          data: {
            cashInId: record.cashInId,
            projectId: 'prj_1',
            code: '654 321',
            expiresAt: minutes(90),
            previousExpiresAt: EXPIRES_AT,
            at: minutes(30),
          },
        },
      ]));

  it('pending -> completed: the deposit settles it, with the transaction id and the pricing of the actual amount', () => {
    const [event] = cashInDecider.decide(
      {
        type: 'DepositCash',
        projectId: 'prj_1',
        amount: '250.5',
        code: '123 456',
        rate: '1.00',
        usage: NO_USAGE,
        at: minutes(10),
      },
      fold(cashInDecider, [created]),
    );
    expect(event).toEqual({
      type: 'cashIn.deposited',
      data: {
        cashInId: record.cashInId,
        projectId: 'prj_1',
        customerId: 'cst_1',
        transactionId: 'txn_01h455vb4pex5vsknk084sn02q',
        deposit: { asset: 'usd', amount: '250.50' },
        destination: record.destination,
        pricing: cashInPricing('250.50', 'usdc', '1.00'),
        location: record.location,
        metadata: { order: '42' },
        at: minutes(10),
      },
    });
    const view = cashInView(fold(cashInDecider, [created, event]) as never);
    expect(view).toMatchObject({
      status: 'completed',
      subStatus: 'settled',
      transactionId: 'txn_01h455vb4pex5vsknk084sn02q',
      completedAt: minutes(10),
      updatedAt: minutes(10),
      source: { indicatedAmount: '100.00', amountGross: '250.50', amountNet: '250.50' },
      destination: { amountGross: '250.50', amountNet: '250.50' },
    });
  });

  it("pending -> expired: the code lapses on the project clock; expiredAt is the code's expiresAt", () =>
    given([created])
      .when({ type: 'ExpireCashIn', projectId: 'prj_1', at: minutes(61) })
      .then([
        { type: 'cashIn.expired', data: { cashInId: record.cashInId, projectId: 'prj_1', expiredAt: EXPIRES_AT } },
      ]));

  it('an expiry timer that fires before the (refreshed) code lapses does nothing', () => {
    given([created])
      .when({ type: 'ExpireCashIn', projectId: 'prj_1', at: minutes(59) })
      .then([]);
    const refreshed: CashInEvent = {
      type: 'cashIn.codeRefreshed',
      data: {
        cashInId: record.cashInId,
        projectId: 'prj_1',
        code: '654 321',
        expiresAt: minutes(90),
        previousExpiresAt: EXPIRES_AT,
        at: minutes(30),
      },
    };
    given([created, refreshed])
      .when({ type: 'ExpireCashIn', projectId: 'prj_1', at: minutes(61) })
      .then([]);
  });

  it('completed and expired are terminal: no expiry, refresh or second deposit (single-use)', () => {
    const done = deposited('100.00');
    const expired: CashInEvent = {
      type: 'cashIn.expired',
      data: { cashInId: record.cashInId, projectId: 'prj_1', expiredAt: EXPIRES_AT },
    };
    given([created, done])
      .when({ type: 'ExpireCashIn', projectId: 'prj_1', at: minutes(120) })
      .then([]);
    given([created, expired])
      .when({ type: 'ExpireCashIn', projectId: 'prj_1', at: minutes(120) })
      .then([]);
    for (const history of [
      [created, done],
      [created, expired],
    ]) {
      given(history)
        .when({ type: 'RefreshCode', projectId: 'prj_1', code: '111 111', at: minutes(20) })
        .thenThrows(isError('CashInNotPending'));
      given(history)
        .when({
          type: 'DepositCash',
          projectId: 'prj_1',
          amount: '100.00',
          rate: '1.00',
          usage: NO_USAGE,
          at: minutes(20),
        })
        .thenThrows(isError('CashInNotPending'));
    }
  });

  it('a code past expiresAt cannot be refreshed or deposited, even before its timer fires', () => {
    given([created])
      .when({ type: 'RefreshCode', projectId: 'prj_1', code: '111 111', at: EXPIRES_AT })
      .thenThrows(isError('CashInNotPending'));
    given([created])
      .when({
        type: 'DepositCash',
        projectId: 'prj_1',
        amount: '100.00',
        rate: '1.00',
        usage: NO_USAGE,
        at: EXPIRES_AT,
      })
      .thenThrows(isError('CashInNotPending'));
  });

  it('a refresh voids the previous code: a deposit naming it is refused', () => {
    const refreshed: CashInEvent = {
      type: 'cashIn.codeRefreshed',
      data: {
        cashInId: record.cashInId,
        projectId: 'prj_1',
        code: '654 321',
        expiresAt: minutes(90),
        previousExpiresAt: EXPIRES_AT,
        at: minutes(30),
      },
    };
    given([created, refreshed])
      .when({
        type: 'DepositCash',
        projectId: 'prj_1',
        amount: '100.00',
        code: '123 456',
        rate: '1.00',
        usage: NO_USAGE,
        at: minutes(70),
      })
      .thenThrows(isError('DepositCodeMismatch'));
    // The new code is live past the first code's expiry.
    expect(
      cashInDecider.decide(
        {
          type: 'DepositCash',
          projectId: 'prj_1',
          amount: '100.00',
          code: '654 321',
          rate: '1.00',
          usage: NO_USAGE,
          at: minutes(70),
        },
        fold(cashInDecider, [created, refreshed]),
      ),
    ).toHaveLength(1);
  });

  it('a deposit is refused by the limits with nothing appended', () =>
    given([created])
      .when({
        type: 'DepositCash',
        projectId: 'prj_1',
        amount: '100.00',
        rate: '1.00',
        usage: { ...NO_USAGE, day: { count: 3, amount: '300' } },
        at: minutes(10),
      })
      .thenThrows(isError('CashInDailyCountExceeded')));

  it("another project's cash-in is not found", () => {
    given([created])
      .when({ type: 'RefreshCode', projectId: 'prj_2', code: '111 111', at: minutes(1) })
      .thenThrows(isError('CashInNotFound'));
    given([])
      .when({
        type: 'DepositCash',
        projectId: 'prj_1',
        amount: '100.00',
        rate: '1.00',
        usage: NO_USAGE,
        at: minutes(1),
      })
      .thenThrows(isError('CashInNotFound'));
  });

  it('reads a lapsed pending cash-in exactly as its expiry event will leave it', () => {
    const pending = cashInView(fold(cashInDecider, [created]) as never);
    const expired = cashInView(
      fold(cashInDecider, [
        created,
        { type: 'cashIn.expired', data: { cashInId: record.cashInId, projectId: 'prj_1', expiredAt: EXPIRES_AT } },
      ]) as never,
    );
    expect(viewAt(pending, minutes(59))).toEqual(pending);
    expect(viewAt(pending, EXPIRES_AT)).toEqual(expired);
    expect(viewAt(expired, minutes(500))).toEqual(expired);
  });

  it('names the transaction after the cash-in', () =>
    expect(transactionIdForCashIn('ci_01h455vb4pex5vsknk084sn02q')).toBe('txn_01h455vb4pex5vsknk084sn02q'));

  it('shows no estimates without an indicated amount', () => {
    const view = cashInView(
      fold(cashInDecider, [
        { type: 'cashIn.created', data: { ...record, indicatedAmount: null, estimate: null } },
      ]) as never,
    );
    expect(view.source).toEqual({
      asset: 'usd',
      indicatedAmount: null,
      amountGross: null,
      amountNet: null,
      feesDeducted: null,
    });
    expect(view.destination).toMatchObject({ amountGross: null, amountNet: null, feesDeducted: null });
    expect(view.rates).toEqual({ pair: 'usd/usdc', exchangeRate: '1.00', effectiveRate: '1.00' });
  });
});
