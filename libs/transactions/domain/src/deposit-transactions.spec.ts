// Spec: States / Transaction (holds, attribution timeout, failed payouts held for review on deposit address
// payouts); Events, deposit address legs and tie 5. The transaction a deposit address deposit makes.
import type { DepositAddressDepositReceived, DepositPayoutTarget, TransactionCreated } from '@mm/contracts';
import { fold } from '@mm/platform/decider';
import { depositAddressLegEvents } from './deposit-address-legs';
import {
  cryptoDepositLeg,
  depositNext,
  depositTransactionRecord,
  HOLD_MESSAGES,
  payoutNext,
  withTarget,
} from './deposit-transactions';
import { sentBackToSender, unusableAccountFailure } from './leg-accounts';
import { refundLeg } from './rails';
import { transactionView } from './transaction-view';
import {
  existingTransaction,
  transactionDecider,
  type ExistingTransaction,
  type TransactionCommand,
  type TransactionEvent,
} from './transaction.decider';

const at = '2026-01-01T00:00:00.000Z';
const zero = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };
const customer = { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } as const;
const target = (amount: string, account = 'ext_bank1', rail = 'ach'): DepositPayoutTarget => ({
  destination: {
    type: 'bankUs',
    category: 'fiat',
    details: { id: account, asset: 'usd', network: rail, accountHolder: 'customer', last4: '6789' },
    party: customer,
  },
  payout: { rail },
  pricing: {
    source: { asset: 'usdc', amountGross: amount, amountNet: amount, feesDeducted: zero },
    destination: { asset: 'usd', amountGross: amount, amountNet: amount, feesDeducted: zero },
    pair: 'usdc/usd',
    exchangeRate: '1.00',
    effectiveRate: '1.00',
    fixedAmountSide: 'source',
    sponsorGas: true,
    sponsorGasCost: '0.00',
  },
});
const deposit = (
  amount: string,
  disposition: DepositAddressDepositReceived['disposition'],
): DepositAddressDepositReceived => ({
  depositAddressId: 'da_1',
  projectId: 'prj_1',
  customerId: 'cst_1',
  transactionId: 'txn_1',
  deposit: {
    asset: 'usdc',
    network: 'ethereum',
    amount,
    address: '0xinlet',
    senderAddress: '0xsender',
    txHash: '0xhash',
  },
  sender: { relationship: 'externalUnregistered' },
  senderExternalAccountId: null,
  disposition,
  target: target(amount),
  returnTo: { address: '0xsender', network: 'ethereum', externalAccountId: null },
  attributionDeadline: disposition === 'awaitingSenderAttribution' ? '2026-01-04T00:00:00.000Z' : null,
  metadata: {},
  at,
});

function create(d: DepositAddressDepositReceived): TransactionEvent[] {
  const record = depositTransactionRecord(d);
  const full = { ...record, status: 'processing', subStatus: null, at } as TransactionCreated;
  return transactionDecider.decide(
    {
      type: 'CreateFromDeposit',
      record,
      depositLeg: cryptoDepositLeg(d),
      txHash: d.deposit.txHash,
      next: depositNext(full, d, 'txn_1.2'),
      at,
    },
    transactionDecider.initialState(),
  );
}
const statuses = (events: TransactionEvent[]) => events.map((e) => [e.type, e.data.status, e.data.subStatus]);
/** Runs the commands in turn; answers every event and the partner leg events each announced. */
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
    legs.push(...depositAddressLegEvents(state, e, after));
    state = after;
  }
  return { events, state: existingTransaction(state), legs };
}
const legId = (s: ExistingTransaction, kind: string) => [...s.legs].reverse().find((l) => l.kind === kind)!.id;
const next = (s: ExistingTransaction) => `txn_1.${s.legs.length + 1}`;

describe('a deposit address deposit transaction', () => {
  it('starts processing with its crypto deposit settled and the bank payout pending; completes when the payout settles', () => {
    const { state, legs } = run(create(deposit('25.00', 'payout')), (s) => ({
      type: 'ReportLeg',
      legId: legId(s, 'payout'),
      outcome: { kind: 'settled', references: { endToEndId: 'E1' } },
      at,
    }));
    expect(state.status).toBe('completed');
    expect(state.legs.map((l) => [l.kind, l.rail, l.status])).toEqual([
      ['deposit', 'crypto', 'settled'],
      ['payout', 'ach', 'settled'],
    ]);
    expect(state.legs[0].txHash).toBe('0xhash');
    expect(legs).toEqual([
      'deposit_address.crypto_deposit.pending',
      'deposit_address.crypto_deposit.settled',
      'deposit_address.ach_payout.initiated',
      'deposit_address.ach_payout.pending',
      'deposit_address.ach_payout.settled',
    ]);
    expect(transactionView(state)).toMatchObject({
      precursor: { type: 'depositAddress', id: 'da_1' },
      payoutOrigin: { type: 'depositAddress', id: 'da_1' },
    });
  });

  it('holds a payout that was refused or came back for review, the money kept; an operator refund returns the crypto', () => {
    for (const [kind, name] of [
      ['declined', 'deposit_address.ach_payout.failed'],
      ['failed', 'deposit_address.ach_payout.returned'],
    ] as const) {
      const failed = run(create(deposit('25.00', 'payout')), (s) => ({
        type: 'ReportLeg',
        legId: legId(s, 'payout'),
        outcome: { kind, failure: { code: 'providerError', message: 'no' } },
        at,
      }));
      expect([failed.state.status, failed.state.subStatus]).toEqual(['processing', 'processing.underReview']);
      expect(failed.legs.at(-1)).toBe(name);
      const refunded = run(
        failed.events,
        (s) => ({ type: 'RefundHeld', refundLeg: refundLeg(s.record, next(s)), reason: 'customer asked', at }),
        (s) => ({ type: 'ConfirmRefund', legId: legId(s, 'refund'), at }),
      );
      expect([refunded.state.status, refunded.state.subStatus]).toEqual(['failed', 'failed.returnedToSender']);
      expect(refunded.state.legs.at(-1)).toMatchObject({
        kind: 'refund',
        rail: 'crypto',
        network: 'ethereum',
        asset: 'usdc',
        amount: '25.00',
        status: 'settled',
      });
      expect(refunded.legs.slice(-3)).toEqual([
        'deposit_address.crypto_payout.initiated',
        'deposit_address.crypto_payout.pending',
        'deposit_address.crypto_payout.settled',
      ]);
    }
  });

  it('holds an unattributed sender awaitingAction with the deadline and the wallet to register; attribution releases it to the payout', () => {
    const held = run(create(deposit('25.00', 'awaitingSenderAttribution')));
    expect([held.state.status, held.state.subStatus]).toEqual([
      'awaitingAction',
      'awaitingAction.awaitingSenderAttribution',
    ]);
    expect(transactionView(held.state).hold).toEqual({
      code: 'senderAttribution',
      message: expect.any(String),
      deadline: '2026-01-04T00:00:00.000Z',
      match: { address: '0xsender', network: 'ethereum' },
    });
    expect(held.legs).toContain('deposit_address.crypto_deposit.needs_attribution');
    const sender = {
      party: {
        relationship: 'externalRegistered',
        counterpartyId: 'cp_1',
        entityType: 'individual',
        name: 'Ada',
      } as const,
      externalAccountId: 'ext_w1',
    };
    const released = run(held.events, (s) => ({
      type: 'ReleaseHold',
      code: 'senderAttribution',
      sender,
      target: target('25.00'),
      next: payoutNext(withTarget(s.record, target('25.00')), next(s)),
      at,
    }));
    expect([released.state.status, released.state.subStatus]).toEqual(['processing', null]);
    expect(transactionView(released.state).hold).toBeUndefined();
    expect(transactionView(released.state).source).toMatchObject({
      party: sender.party,
      details: { id: 'ext_w1', address: '0xsender' },
    });
    expect(released.state.legs.at(-1)).toMatchObject({ kind: 'payout', status: 'pending' });
    // A second release, or the deadline after the release, changes nothing.
    expect(
      transactionDecider.decide(
        { type: 'ExpireAttribution', refundLeg: refundLeg(released.state.record, 'txn_1.9'), at },
        released.state,
      ),
    ).toEqual([]);
  });

  it('ends an unattributed deposit failed.attributionTimeout once its crypto is back with the sender', () => {
    const { state } = run(
      create(deposit('25.00', 'awaitingSenderAttribution')),
      (s) => ({ type: 'ExpireAttribution', refundLeg: refundLeg(s.record, next(s)), at }),
      (s) => ({ type: 'ConfirmRefund', legId: legId(s, 'refund'), at }),
    );
    expect([state.status, state.subStatus]).toEqual(['failed', 'failed.attributionTimeout']);
    expect(transactionView(state).error).toMatchObject({
      code: 'attributionTimeout',
      refund: { status: 'completed', amount: '25.00', asset: 'usdc' },
    });
  });

  it('waits for a destination, then pays out to the new one at its new price', () => {
    const held = run(create(deposit('25.00', 'payoutDestinationMissing')));
    expect([held.state.status, held.state.subStatus, transactionView(held.state).hold?.code]).toEqual([
      'awaitingAction',
      'awaitingAction.payoutDestinationMissing',
      'payoutDestinationMissing',
    ]);
    const wire = target('25.00', 'ext_bank2', 'wire');
    const released = run(held.events, (s) => ({
      type: 'ReleaseHold',
      code: 'payoutDestinationMissing',
      target: wire,
      next: payoutNext(withTarget(s.record, wire), next(s)),
      at,
    }));
    expect(released.state.legs.at(-1)).toMatchObject({ kind: 'payout', rail: 'wire', status: 'pending' });
    expect(transactionView(released.state).destination).toMatchObject({ details: { id: 'ext_bank2' } });
    expect(released.legs.slice(-2)).toEqual([
      'deposit_address.wire_payout.initiated',
      'deposit_address.wire_payout.pending',
    ]);
  });

  it('returns a deposit to a frozen or closed address to its sender', () => {
    const { state } = run(create(deposit('25.00', 'returnToSender')), (s) => ({
      type: 'ConfirmRefund',
      legId: legId(s, 'refund'),
      at,
    }));
    expect([state.status, state.subStatus]).toEqual(['failed', 'failed.returnedToSender']);
    expect(state.legs.map((l) => l.kind)).toEqual(['deposit', 'refund']);
  });

  it('holds amounts at the review threshold for review; a rejection returns the crypto', () => {
    const created = create(deposit('10000.98', 'payout'));
    expect(statuses(created).at(-1)).toEqual(['transaction.reviewStarted', 'processing', 'processing.underReview']);
    const { state } = run(created, (s) => ({
      type: 'DecideReview',
      outcome: 'rejected',
      firstLeg: { id: 'x', kind: 'payout', rail: 'ach', asset: 'usd', network: 'ach', amount: '1' },
      refundLeg: refundLeg(s.record, next(s)),
      at,
    }));
    expect([state.status, state.subStatus]).toEqual(['processing', 'processing.returningToSender']);
  });

  // Issue 42 (spec: Deposit address, "a deposit ... whose destination external account was deleted leaves the
  // transaction in awaitingAction"; ADR 0056).
  it('a payout refused because its destination went away while it was in flight waits for a destination, naming the account', () => {
    const refused = unusableAccountFailure({ kind: 'payout' }, { side: 'destination', id: 'ext_bank1' }, 'deleted')!;
    const { state, events, legs } = run(create(deposit('25.00', 'payout')), (s) => ({
      type: 'ReportLeg',
      legId: legId(s, 'payout'),
      outcome: { kind: 'declined', failure: refused },
      at,
    }));
    expect([state.status, state.subStatus]).toEqual(['awaitingAction', 'awaitingAction.payoutDestinationMissing']);
    expect(transactionView(state).hold).toEqual({
      code: 'payoutDestinationMissing',
      message: HOLD_MESSAGES.payoutDestinationMissing,
    });
    expect(events.at(-1)).toMatchObject({ type: 'transaction.held', data: { destinationId: 'ext_bank1' } });
    expect(legs.slice(-1)).toEqual(['deposit_address.ach_payout.failed']);
    // A new destination releases it to a new payout leg; the refused one stays failed.
    const wire = target('25.00', 'ext_bank2', 'wire');
    const released = run(events, (s) => ({
      type: 'ReleaseHold',
      code: 'payoutDestinationMissing',
      target: wire,
      next: payoutNext(withTarget(s.record, wire), next(s)),
      at,
    }));
    expect(released.state.legs.map((l) => [l.kind, l.status])).toEqual([
      ['deposit', 'settled'],
      ['payout', 'failed'],
      ['payout', 'pending'],
    ]);
  });

  it('a deposit held for a destination when it arrives names the destination it could not be paid to', () => {
    const created = create(deposit('25.00', 'payoutDestinationMissing'));
    expect(created.at(-1)).toMatchObject({ type: 'transaction.held', data: { destinationId: 'ext_bank1' } });
  });

  it('a return to a return wallet that went away is refused: the crypto held for an operator, who sends it back to the sender', () => {
    const gone = unusableAccountFailure(
      { kind: 'refund' },
      { side: 'returnDestination', id: 'ext_ret' },
      { status: 'invalid', failure: null },
      'start',
    )!;
    const d = {
      ...deposit('25.00', 'awaitingSenderAttribution'),
      returnTo: {
        address: '0xret',
        network: 'ethereum',
        externalAccountId: 'ext_ret',
        kind: 'returnDestination' as const,
      },
    };
    const lapsed = run(create(d), (s) => ({
      type: 'ExpireAttribution',
      refundLeg: refundLeg(s.record, next(s)),
      refundRefused: gone,
      at,
    }));
    expect([lapsed.state.status, lapsed.state.subStatus]).toEqual(['processing', 'processing.underReview']);
    expect(lapsed.state.legs.at(-1)).toMatchObject({ kind: 'refund', status: 'failed', failure: gone });
    expect(lapsed.legs.at(-1)).toBe('deposit_address.crypto_payout.failed');
    // Sent to the sender by an operator, it ends as the lapsed attribution would have.
    const back = run(
      lapsed.events,
      (s) => ({
        type: 'RefundHeld',
        refundLeg: refundLeg(sentBackToSender(s.record), next(s)),
        reason: 'the return wallet is gone',
        at,
      }),
      (s) => ({ type: 'ConfirmRefund', legId: legId(s, 'refund'), at }),
    );
    expect([back.state.status, back.state.subStatus]).toEqual(['failed', 'failed.attributionTimeout']);
    expect(transactionView(back.state).error).toMatchObject({
      code: 'attributionTimeout',
      refund: { status: 'completed', amount: '25.00' },
    });

    // A deposit to a frozen address sent straight back, its return wallet gone: refused the same way.
    const frozen = { ...deposit('25.00', 'returnToSender'), returnTo: d.returnTo };
    const record = depositTransactionRecord(frozen);
    const full = { ...record, status: 'processing', subStatus: null, at } as TransactionCreated;
    const nextStep = depositNext(full, frozen, 'txn_1.2');
    if (nextStep.kind !== 'return') throw new Error('a return');
    const created = transactionDecider.decide(
      {
        type: 'CreateFromDeposit',
        record,
        depositLeg: cryptoDepositLeg(frozen),
        txHash: '0xhash',
        next: { ...nextStep, refused: gone },
        at,
      },
      transactionDecider.initialState(),
    );
    expect(statuses(created).at(-1)).toEqual(['transaction.refundRefused', 'processing', 'processing.underReview']);
  });

  it('makes one transaction per deposit, however often it is created', () => {
    const first = create(deposit('25.00', 'payout'));
    const record = depositTransactionRecord(deposit('25.00', 'payout'));
    expect(
      transactionDecider.decide(
        {
          type: 'CreateFromDeposit',
          record,
          depositLeg: cryptoDepositLeg(deposit('25.00', 'payout')),
          txHash: '0xhash',
          next: { kind: 'review', reason: 'x' },
          at,
        },
        fold(transactionDecider, first),
      ),
    ).toEqual([]);
  });
});
