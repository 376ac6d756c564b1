// Spec: States / Transaction. The rows of the table and the closed set of sub-statuses.
import { ApiError, type TransactionCreated } from '@mm/contracts';
import { fold, specFor } from '@mm/platform/decider';
import { payoutLeg, refundLeg } from './rails';
import { transactionView } from './transaction-view';
import { existingTransaction, transactionDecider, type TransactionEvent } from './transaction.decider';

const at = '2026-01-01T00:00:00.000Z';
const zero = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };
const record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> = {
  transactionId: 'txn_1',
  projectId: 'prj_1',
  customerId: 'cst_1',
  sourceToDestination: 'cryptoToFiatAccount',
  precursor: { type: 'quote', id: 'qt_1' },
  source: {
    type: 'walletOms',
    category: 'crypto',
    details: { id: 'wlt_1', asset: 'usdc', network: 'meridianchain' },
    party: { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' },
  },
  destination: {
    type: 'bankUs',
    category: 'fiat',
    details: { id: 'ext_1', asset: 'usd', network: 'ach' },
    party: { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' },
  },
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
const created = transactionDecider.decide(
  { type: 'CreateTransaction', record, pulled, firstLeg: payout, at },
  transactionDecider.initialState(),
);
const given = specFor(transactionDecider);
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;
const statuses = (events: TransactionEvent[]) => events.map((e) => [e.type, e.data.status, e.data.subStatus]);

describe('transaction decider', () => {
  it('starts processing with the funds pulled (before it was made), the payout pending', () => {
    expect(statuses(created)).toEqual([
      ['transaction.created', 'processing', 'processing.fundsPulled'],
      ['transaction.fundsPulled', 'processing', 'processing.fundsPulled'],
      ['transaction.legInitiated', 'processing', 'processing.fundsPulled'],
    ]);
  });

  it('refuses a second transaction on the same stream', () =>
    given(created)
      .when({ type: 'CreateTransaction', record, pulled, firstLeg: payout, at })
      .thenThrows(isError('QuoteAlreadyAccepted')));

  it('completes with subStatus null when the payout settles; a late second answer changes nothing', () => {
    const settled = transactionDecider.decide(
      { type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'settled', references: { endToEndId: 'E2E1' } }, at },
      fold(transactionDecider, created),
    );
    expect(statuses(settled).at(-1)).toEqual(['transaction.completed', 'completed', null]);
    given([...created, ...settled])
      .when({
        type: 'ReportLeg',
        legId: 'txn_1.1',
        outcome: { kind: 'failed', failure: { code: 'x', message: 'x' } },
        at,
      })
      .then([]);
  });

  it('sends a declined payout back to the sender, and fails it once the money is back', () => {
    const declined = transactionDecider.decide(
      {
        type: 'ReportLeg',
        legId: 'txn_1.1',
        outcome: { kind: 'declined', failure: { code: 'providerError', message: 'no' } },
        nextLeg: refundLeg(full, 'txn_1.2'),
        at,
      },
      fold(transactionDecider, created),
    );
    expect(statuses(declined)).toEqual([
      ['transaction.legFailed', 'processing', 'processing.fundsPulled'],
      ['transaction.refundInitiated', 'processing', 'processing.returningToSender'],
    ]);
    const refunded = transactionDecider.decide(
      { type: 'ConfirmRefund', legId: 'txn_1.2', at },
      fold(transactionDecider, [...created, ...declined]),
    );
    expect(statuses(refunded)).toEqual([['transaction.refunded', 'failed', 'failed.returnedToSender']]);
  });

  it('refuses operator actions outside the states they apply to', () => {
    given(created)
      .when({ type: 'RetryPayout', leg: payout, reason: 'x', at })
      .thenThrows(isError('TransactionNotActionable'));
    given(created)
      .when({ type: 'RefundHeld', refundLeg: refundLeg(full, 'txn_1.2'), reason: 'x', at })
      .thenThrows(isError('TransactionNotActionable'));
    given(created).when({ type: 'MarkFailed', reason: 'x', at }).thenThrows(isError('TransactionNotActionable'));
  });

  describe('a cash pickup (spec: rule 8; Events, tie 7)', () => {
    const pickupRecord: typeof record = {
      ...record,
      transactionId: 'txn_2',
      sourceToDestination: 'cryptoToCash',
      precursor: { type: 'quote', id: 'qt_2' },
      destination: {
        type: 'cash',
        category: 'cash',
        details: {
          asset: 'usd',
          network: 'cash',
          cashLocationId: 'loc_1',
          cashLocationReference: 'BIGMART-1006',
          locationState: 'TX',
        },
        party: { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' },
      },
      pricing: {
        ...record.pricing,
        source: { ...record.pricing.source, amountGross: '40.00', amountNet: '40.00' },
        destination: { ...record.pricing.destination, amountGross: '40.00', amountNet: '40.00' },
      },
    };
    const pickupFull = { ...pickupRecord, status: 'processing', subStatus: null, at } as TransactionCreated;
    const cashLeg = payoutLeg(pickupFull, 'txn_2.1');
    const refund = refundLeg(pickupFull, 'txn_2.2');
    const pickupPulled = { walletId: 'wlt_1', postingId: 'txn_2:pull', asset: 'usdc', amount: '40.00' };
    const started = transactionDecider.decide(
      { type: 'CreateTransaction', record: pickupRecord, pulled: pickupPulled, firstLeg: cashLeg, at },
      transactionDecider.initialState(),
    );
    const ready = transactionDecider.decide(
      { type: 'ReportLeg', legId: 'txn_2.1', outcome: { kind: 'pickupReady', pickupCode: '1234 5678' }, at },
      fold(transactionDecider, started),
    );
    const waiting = [...started, ...ready];

    it('pays out on the cash rail, in usd, for the destination amount', () => {
      expect(cashLeg).toEqual({
        id: 'txn_2.1',
        kind: 'payout',
        rail: 'cash',
        asset: 'usd',
        network: 'cash',
        amount: '40.00',
      });
    });

    it('is processing.cashPickupReady once the network issues the code, which the payout leg carries', () => {
      expect(statuses(ready)).toEqual([['transaction.cashPickupReady', 'processing', 'processing.cashPickupReady']]);
      const state = existingTransaction(fold(transactionDecider, waiting));
      expect(state.legs).toEqual([
        expect.objectContaining({ id: 'txn_2.1', status: 'pending', pickupCode: '1234 5678' }),
      ]);
      expect(transactionView(state).legs[0]).toMatchObject({
        rail: 'cash',
        status: 'pending',
        pickupCode: '1234 5678',
      });
      // A second answer from the network issues nothing new.
      given(waiting)
        .when({ type: 'ReportLeg', legId: 'txn_2.1', outcome: { kind: 'pickupReady', pickupCode: '9999 0000' }, at })
        .then([]);
    });

    it('completes completed.cashPickupCollected when the cash is collected; the leg settles for the ledger', () => {
      const collected = transactionDecider.decide(
        { type: 'ReportCashPickup', outcome: 'collected', refundLeg: refund, at },
        fold(transactionDecider, waiting),
      );
      expect(statuses(collected)).toEqual([
        ['transaction.legSettled', 'processing', 'processing.cashPickupReady'],
        ['transaction.completed', 'completed', 'completed.cashPickupCollected'],
      ]);
      expect(collected[0].data).toMatchObject({
        settlement: {
          kind: 'payout',
          transitAsset: 'usdc',
          transitAmount: '40.00',
          railAsset: 'usd',
          railAmount: '40.00',
          network: 'cash',
          walletId: null,
        },
      });
      given([...waiting, ...collected])
        .when({ type: 'ReportCashPickup', outcome: 'expired', refundLeg: refund, at })
        .thenThrows(isError('CashPickupNotReady'));
    });

    it('returns the money of an expired pickup to the wallet, then completes completed.cashPickupExpired (not failed)', () => {
      const expired = transactionDecider.decide(
        { type: 'ReportCashPickup', outcome: 'expired', refundLeg: refund, at },
        fold(transactionDecider, waiting),
      );
      expect(statuses(expired)).toEqual([
        ['transaction.legFailed', 'processing', 'processing.cashPickupReady'],
        ['transaction.refundInitiated', 'processing', 'processing.returningToSender'],
      ]);
      expect(expired[0].data).toMatchObject({ failure: { code: 'cashPickupExpired' } });
      expect(expired[1].data).toMatchObject({
        walletId: 'wlt_1',
        leg: { kind: 'refund', rail: 'crypto', asset: 'usdc', amount: '40.00' },
      });
      const back = transactionDecider.decide(
        { type: 'ConfirmRefund', legId: 'txn_2.2', at },
        fold(transactionDecider, [...waiting, ...expired]),
      );
      expect(statuses(back)).toEqual([['transaction.refunded', 'completed', 'completed.cashPickupExpired']]);
      const done = transactionView(existingTransaction(fold(transactionDecider, [...waiting, ...expired, ...back])));
      expect(done).toMatchObject({ status: 'completed', subStatus: 'completed.cashPickupExpired' });
      expect(done).not.toHaveProperty('error');
      given([...waiting, ...expired, ...back])
        .when({ type: 'ReportCashPickup', outcome: 'collected', refundLeg: refund, at })
        .thenThrows(isError('CashPickupNotReady'));
    });

    it('refuses a pickup outcome before the code is issued, and on any other corridor', () => {
      given(started)
        .when({ type: 'ReportCashPickup', outcome: 'collected', refundLeg: refund, at })
        .thenThrows(isError('CashPickupNotReady'));
      given(created)
        .when({ type: 'ReportCashPickup', outcome: 'expired', refundLeg: refundLeg(full, 'txn_1.2'), at })
        .thenThrows(isError('CashPickupNotReady'));
    });

    it('ignores a pickup code for a leg that is not a cash payout', () => {
      given(created)
        .when({ type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'pickupReady', pickupCode: '1234 5678' }, at })
        .then([]);
    });

    it('shows no pickup code on legs of other rails', () => {
      expect(transactionView(existingTransaction(fold(transactionDecider, created))).legs[0]).not.toHaveProperty(
        'pickupCode',
      );
    });
  });

  it("produces only sub-statuses of the spec's closed set", () => {
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
      'processing.cashPickupReady',
      'completed.cashPickupCollected',
      'completed.cashPickupExpired',
    ]);
    const unconfirmed = transactionDecider.decide(
      { type: 'ReportLeg', legId: 'txn_1.1', outcome: { kind: 'unconfirmed' }, at },
      fold(transactionDecider, created),
    );
    const timedOut = transactionDecider.decide(
      {
        type: 'ReportLeg',
        legId: 'txn_1.1',
        outcome: { kind: 'failed', failure: { code: 'providerTimeout', message: 'none' } },
        at,
      },
      fold(transactionDecider, [...created, ...unconfirmed]),
    );
    for (const e of [...created, ...unconfirmed, ...timedOut]) expect(closed.has(e.data.subStatus)).toBe(true);
    expect(statuses(timedOut).at(-1)).toEqual(['transaction.failed', 'failed', 'failed.outboundFailed']);
  });
});
