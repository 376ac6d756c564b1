// Spec: States / Transaction. The rows of the table and the closed set of sub-statuses.
import { ApiError, type TransactionCreated } from '@mm/contracts';
import { fold, specFor } from '@mm/platform/decider';
import { payoutLeg, refundLeg } from './rails';
import { transactionDecider, type TransactionEvent } from './transaction.decider';

const at = '2026-01-01T00:00:00.000Z';
const zero = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };
const record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> = {
  transactionId: 'txn_1',
  projectId: 'prj_1',
  customerId: 'cst_1',
  sourceToDestination: 'cryptoToFiatAccount',
  precursor: { type: 'quote', id: 'qt_1' },
  source: { type: 'walletOms', category: 'crypto', details: { id: 'wlt_1', asset: 'usdc', network: 'meridianchain' }, party: { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } },
  destination: { type: 'bankUs', category: 'fiat', details: { id: 'ext_1', asset: 'usd', network: 'ach' }, party: { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } },
  pricing: {
    source: { asset: 'usdc', amountGross: '10.00', amountNet: '10.00', feesDeducted: zero },
    destination: { asset: 'usd', amountGross: '10.00', amountNet: '10.00', feesDeducted: zero },
    pair: 'usdc/usd',
    exchangeRate: '1.00',
    effectiveRate: '1.00',
    fixedAmountSide: 'source',
    sponsorGas: true,
    sponsorGasCost: '0.00',
  },
  settlementType: null,
  metadata: {},
  customerIds: ['cst_1'],
};
const full = { ...record, status: 'processing', subStatus: null, at } as TransactionCreated;
const payout = payoutLeg(full, 'txn_1.1');
const pulled = { walletId: 'wlt_1', postingId: 'txn_1:pull', asset: 'usdc', amount: '10.00' };
const created = transactionDecider.decide({ type: 'CreateTransaction', record, pulled, firstLeg: payout, at }, transactionDecider.initialState());
const given = specFor(transactionDecider);
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;
const statuses = (events: TransactionEvent[]) => events.map((e) => [e.type, e.data.status, e.data.subStatus]);

describe('transaction decider', () => {
  it('starts processing, the funds pulled, the payout pending', () => {
    expect(statuses(created)).toEqual([
      ['transaction.created', 'processing', null],
      ['transaction.fundsPulled', 'processing', 'processing.fundsPulled'],
      ['transaction.legInitiated', 'processing', 'processing.fundsPulled'],
    ]);
  });

  it('refuses a second transaction on the same stream', () =>
    given(created).when({ type: 'CreateTransaction', record, pulled, firstLeg: payout, at }).thenThrows(isError('QuoteAlreadyAccepted')));

  it('completes with subStatus null when the payout settles; a late second answer changes nothing', () => {
    const settled = transactionDecider.decide({ type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'settled', references: { endToEndId: 'E2E1' } }, at }, fold(transactionDecider, created));
    expect(statuses(settled).at(-1)).toEqual(['transaction.completed', 'completed', null]);
    given([...created, ...settled]).when({ type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'failed', failure: { code: 'x', message: 'x' } }, at }).then([]);
  });

  it('sends a declined payout back to the sender, and fails it once the money is back', () => {
    const declined = transactionDecider.decide(
      { type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'declined', failure: { code: 'providerError', message: 'no' } }, nextLeg: refundLeg(full, 'txn_1.2'), at },
      fold(transactionDecider, created),
    );
    expect(statuses(declined)).toEqual([
      ['transaction.legFailed', 'processing', 'processing.fundsPulled'],
      ['transaction.refundInitiated', 'processing', 'processing.returningToSender'],
    ]);
    const refunded = transactionDecider.decide({ type: 'ConfirmRefund', legId: 'txn_1.2', at }, fold(transactionDecider, [...created, ...declined]));
    expect(statuses(refunded)).toEqual([['transaction.refunded', 'failed', 'failed.returnedToSender']]);
  });

  it('refuses operator actions outside the states they apply to', () => {
    given(created).when({ type: 'RetryPayout', leg: payout, reason: 'x', at }).thenThrows(isError('TransactionNotActionable'));
    given(created).when({ type: 'RefundHeld', refundLeg: refundLeg(full, 'txn_1.2'), reason: 'x', at }).thenThrows(isError('TransactionNotActionable'));
    given(created).when({ type: 'MarkFailed', reason: 'x', at }).thenThrows(isError('TransactionNotActionable'));
  });

  it('produces only sub-statuses of the spec\'s closed set', () => {
    const closed = new Set([
      null,
      'processing.fundsPulled',
      'processing.underReview',
      'processing.payoutRetrying',
      'processing.payoutUnconfirmed',
      'processing.returningToSender',
      'failed.returnedToSender',
      'failed.providerDeclined',
      'failed.outboundFailed',
      'failed.inboundFailed',
    ]);
    const unconfirmed = transactionDecider.decide({ type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'unconfirmed' }, at }, fold(transactionDecider, created));
    const timedOut = transactionDecider.decide(
      { type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'failed', failure: { code: 'providerTimeout', message: 'none' } }, at },
      fold(transactionDecider, [...created, ...unconfirmed]),
    );
    for (const e of [...created, ...unconfirmed, ...timedOut]) expect(closed.has(e.data.subStatus)).toBe(true);
    expect(statuses(timedOut).at(-1)).toEqual(['transaction.failed', 'failed', 'failed.outboundFailed']);
  });
});
