// Spec: rule 3; Virtual account; States / Transaction (failed deliveries held for review on virtual account
// payouts); Operator-only (complete-refund); Events, virtual account legs and ties 4 and 5. The transaction an
// inbound transfer to a virtual account makes.
import { ApiError, type TransactionCreated, type VirtualAccountDepositReceived } from '@mm/contracts';
import { fold } from '@mm/platform/decider';
import { releaseNext, VIRTUAL_ACCOUNT_DESTINATION_MISSING, withTarget } from './deposit-transactions';
import { sentBackToSender, unusableAccountFailure } from './leg-accounts';
import { payoutLeg, sandboxOutcome, sandboxRefundSteps } from './rails';
import { transactionView } from './transaction-view';
import {
  existingTransaction,
  transactionDecider,
  type ExistingTransaction,
  type RailOutcome,
  type TransactionCommand,
  type TransactionEvent,
} from './transaction.decider';
import { virtualAccountLegEvents } from './virtual-account-legs';
import {
  bankDepositLeg,
  bankRefundLeg,
  inboundReferences,
  virtualAccountTransactionRecord,
  VIRTUAL_ACCOUNT_INACTIVE,
} from './virtual-account-transactions';

const at = '2026-01-01T00:00:00.000Z';
const zero = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };
const customer = { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } as const;
const wallet = {
  type: 'walletExternal',
  category: 'crypto',
  details: { id: 'ext_w1', asset: 'usdc', network: 'ethereum', address: '0xdest' },
  party: customer,
} as const;
const bank = {
  type: 'bankUs',
  category: 'fiat',
  details: { id: 'ext_b1', asset: 'usd', network: 'wire', accountHolder: 'customer', last4: '6789' },
  party: customer,
} as const;

function transfer(
  amount: string,
  options: {
    rail?: 'ach' | 'wire' | 'internationalWire';
    disposition?: 'deliver' | 'returnToSender';
    toBank?: boolean;
    returnTo?: string | null;
  } = {},
): VirtualAccountDepositReceived {
  const toBank = options.toBank ?? false;
  return {
    virtualAccountId: 'va_1',
    projectId: 'prj_1',
    customerId: 'cst_1',
    transactionId: 'txn_1',
    deposit: {
      asset: 'usd',
      rail: options.rail ?? 'ach',
      amount,
      senderName: 'Acme Payroll',
      reference: options.rail === 'wire' ? '20260101MMQFMPAB000001' : 'TRACE0001',
    },
    disposition: options.disposition ?? 'deliver',
    target: {
      destination: toBank ? bank : wallet,
      payout: toBank ? { rail: 'wire' } : null,
      pricing: {
        source: { asset: 'usd', amountGross: amount, amountNet: amount, feesDeducted: zero },
        destination: { asset: toBank ? 'usd' : 'usdc', amountGross: amount, amountNet: amount, feesDeducted: zero },
        pair: toBank ? 'usd/usd' : 'usd/usdc',
        exchangeRate: '1.00',
        effectiveRate: '1.00',
        fixedAmountSide: 'source',
        sponsorGas: true,
        sponsorGasCost: '0.00',
      },
    },
    returnTo:
      options.returnTo === undefined
        ? { externalAccountId: 'ext_ret', rail: 'ach' }
        : { externalAccountId: options.returnTo, rail: options.rail ?? 'ach' },
    metadata: { payroll: 'march' },
    at,
  };
}

function create(d: VirtualAccountDepositReceived): TransactionEvent[] {
  const returned = d.disposition === 'returnToSender' ? VIRTUAL_ACCOUNT_INACTIVE : undefined;
  return transactionDecider.decide(
    {
      type: 'CreateTransaction',
      record: virtualAccountTransactionRecord(d),
      firstLeg: bankDepositLeg(d),
      returned,
      at,
    },
    transactionDecider.initialState(),
  );
}

/** Runs the commands in turn; answers the state and the partner leg events each event announced. */
function run(start: TransactionEvent[], ...commands: Array<(s: ExistingTransaction) => TransactionCommand>) {
  const events = [...start];
  for (const command of commands)
    events.push(
      ...transactionDecider.decide(
        command(existingTransaction(fold(transactionDecider, events))),
        fold(transactionDecider, events),
      ),
    );
  let state = transactionDecider.initialState();
  const legs: string[] = [];
  for (const e of events) {
    const after = transactionDecider.evolve(state, e);
    legs.push(...virtualAccountLegEvents(state, e, after));
    state = after;
  }
  return { events, state: existingTransaction(state), legs };
}
const legId = (s: ExistingTransaction, kind: string) => [...s.legs].reverse().find((l) => l.kind === kind)!.id;
const next = (s: ExistingTransaction) => `txn_1.${s.legs.length + 1}`;
const report =
  (kind: string, outcome: RailOutcome, extra: Partial<Extract<TransactionCommand, { type: 'ReportLeg' }>> = {}) =>
  (s: ExistingTransaction): TransactionCommand => ({
    type: 'ReportLeg',
    legId: legId(s, kind),
    outcome,
    at,
    ...extra,
  });
const settled: RailOutcome = { kind: 'settled', references: {} };
const depositIn = (s: ExistingTransaction): TransactionCommand => ({
  type: 'ReportLeg',
  legId: legId(s, 'deposit'),
  outcome: settled,
  nextLeg: payoutLeg(s.record, next(s)),
  at,
});

describe('a virtual account deposit transaction', () => {
  it('starts processing with the bank deposit pending; once it settles the USDC goes to the wallet, and it completes', () => {
    const created = create(transfer('250.00'));
    expect(created.map((e) => [e.type, e.data.status, e.data.subStatus])).toEqual([
      ['transaction.created', 'processing', null],
      ['transaction.legInitiated', 'processing', null],
    ]);
    const { state, legs } = run(
      created,
      depositIn,
      report('payout', { kind: 'settled', references: { txHash: '0xabc' } }),
    );
    expect([state.status, state.subStatus]).toEqual(['completed', null]);
    expect(state.legs.map((l) => [l.kind, l.rail, l.asset, l.amount, l.status])).toEqual([
      ['deposit', 'ach', 'usd', '250.00', 'settled'],
      ['payout', 'crypto', 'usdc', '250.00', 'settled'],
    ]);
    expect(legs).toEqual([
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.settled',
      'virtualAccount.cryptoTransfer.initiated',
      'virtualAccount.cryptoTransfer.pending',
      'virtualAccount.cryptoTransfer.settled',
    ]);
    const view = transactionView(state);
    expect(view).toMatchObject({
      sourceToDestination: 'fiatAccountToCrypto',
      precursor: { type: 'virtualAccount', id: 'va_1' },
      source: {
        type: 'virtualAccount',
        category: 'fiat',
        details: { id: 'va_1', asset: 'usd', network: 'ach', senderName: 'Acme Payroll' },
        party: { relationship: 'externalUnregistered' },
      },
      destination: { type: 'walletExternal', details: { id: 'ext_w1' } },
      metadata: { payroll: 'march' },
    });
    expect(view.payoutOrigin).toBeUndefined();
  });

  it('pays a bank destination as a fiat transfer on its rail', () => {
    const { state, legs } = run(create(transfer('40.00', { toBank: true })), depositIn, report('payout', settled));
    expect(state.legs.at(-1)).toMatchObject({ kind: 'payout', rail: 'wire', asset: 'usd', status: 'settled' });
    expect(legs.slice(2)).toEqual([
      'virtualAccount.fiatTransfer.initiated',
      'virtualAccount.fiatTransfer.pending',
      'virtualAccount.fiatTransfer.settled',
    ]);
    expect(transactionView(state)).toMatchObject({
      status: 'completed',
      payoutOrigin: { type: 'virtualAccount', id: 'va_1' },
    });
  });

  it('fails a deposit the bank refused (failed.providerDeclined) or returned (failed.inboundFailed); nothing goes out', () => {
    const declined = run(
      create(transfer('25.91')),
      report('deposit', { kind: 'declined', failure: { code: 'providerError', message: 'no' } }),
    );
    expect([declined.state.status, declined.state.subStatus, declined.legs.at(-1)]).toEqual([
      'failed',
      'failed.providerDeclined',
      'virtualAccount.deposit.failed',
    ]);
    const returned = run(
      create(transfer('25.92')),
      report('deposit', { kind: 'failed', failure: { code: 'providerError', message: 'back' } }),
    );
    expect([returned.state.status, returned.state.subStatus, returned.legs.at(-1)]).toEqual([
      'failed',
      'failed.inboundFailed',
      'virtualAccount.deposit.returned',
    ]);
    expect(returned.state.legs).toHaveLength(1);
  });

  it('returns a deposit to an account that takes none at once: failed.returnedToSender, nothing credited', () => {
    const { state, legs } = run(create(transfer('25.00', { disposition: 'returnToSender' })));
    expect([state.status, state.subStatus]).toEqual(['failed', 'failed.returnedToSender']);
    expect(state.legs).toEqual([
      expect.objectContaining({ kind: 'deposit', status: 'failed', failure: VIRTUAL_ACCOUNT_INACTIVE }),
    ]);
    expect(legs).toEqual(['virtualAccount.deposit.pending', 'virtualAccount.deposit.returned']);
    expect(transactionView(state).error).toMatchObject({ code: 'virtualAccountInactive', recoverable: false });
  });

  it('holds a delivery that failed for review with the money kept; an operator refund goes to the return destination as a fiat transfer', () => {
    const failed = run(
      create(transfer('25.94')),
      depositIn,
      report('payout', { kind: 'failed', failure: { code: 'providerError', message: 'reverted' } }),
    );
    expect([failed.state.status, failed.state.subStatus, failed.legs.at(-1)]).toEqual([
      'processing',
      'processing.underReview',
      'virtualAccount.cryptoTransfer.failed',
    ]);
    const refunded = run(
      failed.events,
      (s) => ({ type: 'RefundHeld', refundLeg: bankRefundLeg(s.record, next(s)), reason: 'customer asked', at }),
      report('refund', { kind: 'refundAccepted' }),
      report('refund', settled),
    );
    expect([refunded.state.status, refunded.state.subStatus]).toEqual(['failed', 'failed.returnedToSender']);
    expect(refunded.state.legs.at(-1)).toMatchObject({
      kind: 'refund',
      rail: 'ach',
      asset: 'usd',
      amount: '25.94',
      status: 'settled',
    });
    expect(refunded.legs.slice(-3)).toEqual([
      'virtualAccount.fiatTransfer.initiated',
      'virtualAccount.fiatTransfer.pending',
      'virtualAccount.fiatTransfer.settled',
    ]);
    expect(transactionView(refunded.state).error).toMatchObject({
      refund: { status: 'completed', amount: '25.94', asset: 'usd' },
    });
  });

  it('respects a partial or zero refund: the leg and error.refund carry what goes back, the rest is recorded as retained', () => {
    for (const amount of ['10.00', '0.00']) {
      const failed = run(
        create(transfer('25.94')),
        depositIn,
        report('payout', { kind: 'failed', failure: { code: 'providerError', message: 'reverted' } }),
      );
      const refunding = run(failed.events, (s) => ({
        type: 'RefundHeld',
        refundLeg: bankRefundLeg(s.record, next(s), amount),
        reason: 'fee kept',
        retained: amount === '0.00' ? '25.94' : '15.94',
        at,
      }));
      const initiated = refunding.events.at(-1)!;
      expect(initiated).toMatchObject({
        type: 'transaction.refundInitiated',
        data: {
          leg: { amount },
          retained: amount === '0.00' ? '25.94' : '15.94',
          error: { refund: { status: 'pending', amount } },
        },
      });
    }
  });

  it('a refund the bank reported only as initiated is held for review; complete-refund finishes it once, then answers nothing to do', () => {
    const stuck = run(
      create(transfer('25.99')),
      depositIn,
      report('payout', { kind: 'failed', failure: { code: 'providerError', message: 'reverted' } }),
      (s) => ({ type: 'RefundHeld', refundLeg: bankRefundLeg(s.record, next(s)), reason: 'customer asked', at }),
      report('refund', { kind: 'refundUnconfirmed' }),
    );
    expect([stuck.state.status, stuck.state.subStatus]).toEqual(['processing', 'processing.underReview']);
    expect(stuck.legs.slice(-1)).toEqual(['virtualAccount.fiatTransfer.initiated']);
    // Neither a retry nor another refund may touch money whose refund is out.
    expect(() =>
      transactionDecider.decide(
        { type: 'RetryPayout', leg: payoutLeg(stuck.state.record, next(stuck.state)), reason: 'x', at },
        stuck.state,
      ),
    ).toThrow(ApiError);
    const done = run(stuck.events, () => ({ type: 'CompleteRefund', reason: 'bank confirmed by phone', at }));
    expect([done.state.status, done.state.subStatus]).toEqual(['failed', 'failed.returnedToSender']);
    expect(done.state.legs.at(-1)).toMatchObject({ kind: 'refund', status: 'settled' });
    expect(done.legs.at(-1)).toBe('virtualAccount.fiatTransfer.settled');
    expect(transactionView(done.state).error).toMatchObject({ refund: { status: 'completed', amount: '25.99' } });
    expect(transactionDecider.decide({ type: 'CompleteRefund', reason: 'again', at }, done.state)).toEqual([]);
  });

  it('refuses complete-refund on any payment that is not a virtual account bank refund (refundNotCompletable)', () => {
    const noRefund = existingTransaction(fold(transactionDecider, create(transfer('25.00'))));
    expect(() => transactionDecider.decide({ type: 'CompleteRefund', reason: 'x', at }, noRefund)).toThrow(
      expect.objectContaining({ errorName: 'refundNotCompletable' }),
    );
    const quoted = {
      ...noRefund,
      record: { ...noRefund.record, precursor: { type: 'quote', id: 'qt_1' } },
    } as ExistingTransaction;
    expect(() => transactionDecider.decide({ type: 'CompleteRefund', reason: 'x', at }, quoted)).toThrow(
      expect.objectContaining({ errorName: 'refundNotCompletable' }),
    );
  });

  it('sends a settled deposit at the review threshold to review; a rejection refunds it to the sender without a return destination', () => {
    const review = run(
      create(transfer('10000.98', { returnTo: null, rail: 'wire' })),
      report('deposit', settled, { review: 'amount over the compliance review threshold' }),
    );
    expect([review.state.status, review.state.subStatus]).toEqual(['processing', 'processing.underReview']);
    const { state, legs } = run(review.events, (s) => ({
      type: 'DecideReview',
      outcome: 'rejected',
      firstLeg: payoutLeg(s.record, next(s)),
      refundLeg: bankRefundLeg(s.record, next(s)),
      at,
    }));
    expect([state.status, state.subStatus]).toEqual(['processing', 'processing.returningToSender']);
    expect(state.legs.at(-1)).toMatchObject({ kind: 'refund', rail: 'wire', asset: 'usd', amount: '10000.98' });
    expect(legs.at(-1)).toBe('virtualAccount.fiatTransfer.initiated');
  });

  it('makes one transaction per deposit, however often it is created', () => {
    const first = create(transfer('25.00'));
    const d = transfer('25.00');
    expect(() =>
      transactionDecider.decide(
        { type: 'CreateTransaction', record: virtualAccountTransactionRecord(d), firstLeg: bankDepositLeg(d), at },
        fold(transactionDecider, first),
      ),
    ).toThrow(ApiError);
  });
});

// Issue 42. Spec: States / Transaction ("blocked on ... missing payout destination" -> awaitingAction with
// `hold`; "hold cleared (for example a new payout destination is set)" -> processing); Deposit address (a
// deposit whose destination was deleted waits for a new one: a virtual account's the same); the sub-status
// `processing.underReview` (the service holds the money) for a refund that cannot go; Operator-only.
describe('a virtual account deposit whose destination or return destination went away', () => {
  const gone = (id: string) =>
    unusableAccountFailure({ kind: 'refund' }, { side: 'returnDestination', id }, 'deleted', 'start')!;
  const newBank = {
    type: 'bankUs',
    category: 'fiat',
    details: { id: 'ext_b2', asset: 'usd', network: 'wire', accountHolder: 'customer' },
    party: customer,
  } as const;
  const retarget = (s: ExistingTransaction) => ({
    destination: newBank,
    payout: { rail: 'wire' },
    pricing: s.record.pricing,
  });
  const HELD = ['awaitingAction', 'awaitingAction.payoutDestinationMissing'];

  it("the deposit settles with its delivery's account gone: it waits for a destination, no payout leg, the account named for its origin", () => {
    const { state, events, legs } = run(
      create(transfer('40.00', { toBank: true, rail: 'wire' })),
      report('deposit', settled, { destinationGone: 'ext_b1' }),
    );
    expect([state.status, state.subStatus]).toEqual(HELD);
    expect(state.hold).toEqual({ code: 'payoutDestinationMissing', message: VIRTUAL_ACCOUNT_DESTINATION_MISSING });
    expect(state.legs.map((l) => [l.kind, l.status])).toEqual([['deposit', 'settled']]);
    expect(events.at(-1)).toMatchObject({ type: 'transaction.held', data: { destinationId: 'ext_b1' } });
    expect(legs).toEqual(['virtualAccount.deposit.pending', 'virtualAccount.deposit.settled']);
    expect(transactionView(state).hold).toEqual({
      code: 'payoutDestinationMissing',
      message: VIRTUAL_ACCOUNT_DESTINATION_MISSING,
    });
  });

  it('a new destination releases it: the record takes the new target and the payout starts, without a second review', () => {
    const held = run(
      create(transfer('40.00', { toBank: true, rail: 'wire' })),
      report('deposit', settled, { destinationGone: 'ext_b1' }),
    );
    const { state, legs } = run(held.events, (s) => {
      const target = retarget(s);
      return {
        type: 'ReleaseHold',
        code: 'payoutDestinationMissing',
        target,
        next: releaseNext(s, withTarget(s.record, target), next(s)),
        at,
      };
    });
    expect([state.status, state.subStatus, state.hold]).toEqual(['processing', null, null]);
    expect(state.record.destination.details.id).toBe('ext_b2');
    expect(state.legs.at(-1)).toMatchObject({ kind: 'payout', rail: 'wire', status: 'pending' });
    expect(legs.slice(-2)).toEqual(['virtualAccount.fiatTransfer.initiated', 'virtualAccount.fiatTransfer.pending']);
    // A deposit at the review threshold that passed its review is not reviewed again when released.
    const reviewed = run(
      create(transfer('10000.00', { toBank: true, rail: 'wire' })),
      report('deposit', settled, { review: 'amount over the compliance review threshold' }),
      (s) => ({
        type: 'DecideReview',
        outcome: 'approved',
        firstLeg: payoutLeg(s.record, next(s)),
        destinationGone: 'ext_b1',
        at,
      }),
    );
    expect([reviewed.state.status, reviewed.state.subStatus, reviewed.state.reviewed]).toEqual([...HELD, true]);
    expect(releaseNext(reviewed.state, reviewed.state.record, 'txn_1.2')).toMatchObject({ kind: 'payout' });
    expect(releaseNext(transactionDecider.initialState(), reviewed.state.record, 'txn_1.2')).toMatchObject({
      kind: 'review',
    });
  });

  it('a wallet destination released to from a bank one keeps no bank payout instruction', () => {
    const held = run(
      create(transfer('40.00', { toBank: true })),
      report('deposit', settled, { destinationGone: 'ext_b1' }),
    );
    const target = { destination: wallet, payout: null, pricing: held.state.record.pricing };
    const { state } = run(held.events, (s) => ({
      type: 'ReleaseHold',
      code: 'payoutDestinationMissing',
      target,
      next: releaseNext(s, withTarget(s.record, target), next(s)),
      at,
    }));
    expect(state.record).not.toHaveProperty('payout');
    expect(state.legs.at(-1)).toMatchObject({ kind: 'payout', rail: 'crypto' });
  });

  it('the delivery refused because its account went away while it was in flight: nothing paid, it waits for a destination', () => {
    const refused = unusableAccountFailure({ kind: 'payout' }, { side: 'destination', id: 'ext_b1' }, 'deleted')!;
    const { state, events, legs } = run(
      create(transfer('40.00', { toBank: true, rail: 'wire' })),
      depositIn,
      report('payout', { kind: 'declined', failure: refused }),
    );
    expect([state.status, state.subStatus]).toEqual(HELD);
    expect(state.legs.at(-1)).toMatchObject({ kind: 'payout', status: 'failed', failure: refused, settledAt: null });
    expect(events.at(-1)).toMatchObject({ type: 'transaction.held', data: { destinationId: 'ext_b1' } });
    expect(legs.slice(-1)).toEqual(['virtualAccount.fiatTransfer.failed']);
    // Refused by the provider for its own reasons, the money is held for an operator as before.
    const declined = run(
      create(transfer('40.00', { toBank: true })),
      depositIn,
      report('payout', { kind: 'declined', failure: { code: 'providerError', message: 'no' } }),
    );
    expect([declined.state.status, declined.state.subStatus]).toEqual(['processing', 'processing.underReview']);
  });

  it("a rejected review's refund to a return destination that went away is refused: the money held for an operator, nothing sent", () => {
    const review = run(
      create(transfer('10000.98', { rail: 'wire' })),
      report('deposit', settled, { review: 'amount over the compliance review threshold' }),
    );
    const rejected = run(review.events, (s) => ({
      type: 'DecideReview',
      outcome: 'rejected',
      firstLeg: payoutLeg(s.record, next(s)),
      refundLeg: bankRefundLeg(s.record, next(s)),
      refundRefused: gone('ext_ret'),
      at,
    }));
    expect([rejected.state.status, rejected.state.subStatus]).toEqual(['processing', 'processing.underReview']);
    expect(rejected.state.legs.at(-1)).toMatchObject({
      kind: 'refund',
      rail: 'ach',
      amount: '10000.98',
      status: 'failed',
      failure: gone('ext_ret'),
    });
    expect(rejected.events.map((e) => e.type).slice(-2)).toEqual([
      'transaction.reviewCleared',
      'transaction.refundRefused',
    ]);
    expect(rejected.legs.at(-1)).toBe('virtualAccount.fiatTransfer.failed');
    expect(transactionView(rejected.state)).not.toHaveProperty('error');
    // Decided already: a repeated decision changes nothing.
    expect(
      transactionDecider.decide(
        {
          type: 'DecideReview',
          outcome: 'rejected',
          firstLeg: payoutLeg(rejected.state.record, next(rejected.state)),
          refundLeg: bankRefundLeg(rejected.state.record, next(rejected.state)),
          at,
        },
        rejected.state,
      ),
    ).toEqual([]);

    // Nothing to complete (it was never sent); no payout to retry (the review rejected it); the return destination refuses again.
    expect(() => transactionDecider.decide({ type: 'CompleteRefund', reason: 'x', at }, rejected.state)).toThrow(
      expect.objectContaining({ errorName: 'refundNotCompletable' }),
    );
    expect(() =>
      transactionDecider.decide(
        { type: 'RetryPayout', leg: payoutLeg(rejected.state.record, next(rejected.state)), reason: 'x', at },
        rejected.state,
      ),
    ).toThrow(expect.objectContaining({ errorName: 'TransactionNotActionable' }));
    expect(() =>
      transactionDecider.decide(
        {
          type: 'RefundHeld',
          refundLeg: bankRefundLeg(rejected.state.record, next(rejected.state)),
          reason: 'x',
          refused: gone('ext_ret'),
          at,
        },
        rejected.state,
      ),
    ).toThrow(
      expect.objectContaining({
        errorName: 'ExternalAccountNotActive',
        causeText: expect.stringContaining('{"to": "sender"}'),
      }),
    );

    // The operator sends it back to the sender, on the rail it came by; it ends as the review decided.
    const back = run(
      rejected.events,
      (s) => ({
        type: 'RefundHeld',
        refundLeg: bankRefundLeg(sentBackToSender(s.record), next(s)),
        reason: 'return it to the sender',
        at,
      }),
      report('refund', { kind: 'refundAccepted' }),
      report('refund', settled),
    );
    expect([back.state.status, back.state.subStatus]).toEqual(['failed', 'failed.returnedToSender']);
    expect(back.state.legs.at(-1)).toMatchObject({
      kind: 'refund',
      rail: 'wire',
      status: 'settled',
      amount: '10000.98',
    });
    expect(transactionView(back.state).error).toMatchObject({
      code: 'complianceRejected',
      refund: { status: 'completed', amount: '10000.98' },
    });
  });

  it("an operator's refund to a return destination that went away is refused and changes nothing", () => {
    const held = run(
      create(transfer('25.94')),
      depositIn,
      report('payout', { kind: 'failed', failure: { code: 'providerError', message: 'reverted' } }),
    );
    expect(() =>
      transactionDecider.decide(
        {
          type: 'RefundHeld',
          refundLeg: bankRefundLeg(held.state.record, next(held.state)),
          reason: 'x',
          refused: gone('ext_ret'),
          at,
        },
        held.state,
      ),
    ).toThrow(
      expect.objectContaining({ errorName: 'ExternalAccountNotActive', causeText: expect.stringContaining('ext_ret') }),
    );
    // ...while the payout may still be retried.
    expect(
      transactionDecider
        .decide(
          { type: 'RetryPayout', leg: payoutLeg(held.state.record, next(held.state)), reason: 'x', at },
          held.state,
        )
        .map((e) => e.type),
    ).toEqual(['transaction.payoutRetried']);
  });
});

describe('the sandbox bank of virtual accounts', () => {
  const record = (amount: string) =>
    ({
      ...virtualAccountTransactionRecord(transfer(amount)),
      status: 'processing',
      subStatus: null,
      at,
    }) as TransactionCreated;

  it('settles, refuses (.91) or returns (.92) an inbound transfer on its rail; card verification (.93) is not a bank outcome', () => {
    const leg = bankDepositLeg(transfer('1.00', { rail: 'wire' }));
    expect(sandboxOutcome(record('25.00'), leg)).toEqual({ outcome: { kind: 'settled' }, afterSeconds: 30 });
    expect(sandboxOutcome(record('25.91'), leg).outcome.kind).toBe('declined');
    expect(sandboxOutcome(record('25.92'), leg).outcome.kind).toBe('failed');
    expect(sandboxOutcome(record('25.93'), leg).outcome.kind).toBe('settled');
  });

  it('fails the delivery of a .99 deposit after sending and reports its refund only as initiated; other refunds are accepted then settle', () => {
    const r = record('25.99');
    expect(sandboxOutcome(r, payoutLeg(r, 'txn_1.2')).outcome.kind).toBe('failed');
    expect(sandboxRefundSteps(r, { rail: 'ach' })).toEqual({ unconfirmed: 300 });
    expect(sandboxRefundSteps(record('25.94'), { rail: 'ach' })).toEqual({ accepted: 0, settled: 60 });
  });

  it('names the inbound transfer by the bank reference of its rail', () => {
    expect(inboundReferences(record('1.00'), {})).toEqual({ endToEndId: 'TRACE0001' });
    const wire = {
      ...virtualAccountTransactionRecord(transfer('1.00', { rail: 'wire' })),
      status: 'processing',
      subStatus: null,
      at,
    } as TransactionCreated;
    expect(inboundReferences(wire, {})).toEqual({ imad: '20260101MMQFMPAB000001' });
  });
});
