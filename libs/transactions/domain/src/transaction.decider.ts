// A transaction (spec: Transaction; States / Transaction). Its legs are the
// transfers that move the money: a card charge in (deposit), the payout out,
// and a refund back to the source. Every event that moves the status or the
// sub-status carries both as they are after it, so each one is a
// `transaction.statusChanged` of its own. A cash pickup's payout (rail cash) waits
// at the retail network with its code issued (`processing.cashPickupReady`) until
// the cash is collected, or the pickup expires and its money goes back to the
// wallet; both complete it (spec: States / Transaction, sub-statuses).
import {
  ApiError,
  sideExternalAccountId,
  type DepositPayoutTarget,
  type EventPayloads,
  type Party,
  type TransactionHold,
  type LegFailure,
  type LegSettlement,
  type LegReferences,
  type SettlementError,
  type TransactionCreated,
  type TransactionLeg,
  type TransactionStatus,
  type TypedEvent,
  type VirtualAccountTarget,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';
import { holdMessage, isFromDeposit } from './deposit-transactions';
import { isUnusableAccountFailure } from './leg-accounts';

export type TransactionEvent = TypedEvent<
  | 'transaction.created'
  | 'transaction.fundsPulled'
  | 'transaction.legInitiated'
  | 'transaction.legSettled'
  | 'transaction.legFailed'
  | 'transaction.reviewStarted'
  | 'transaction.reviewCleared'
  | 'transaction.completed'
  | 'transaction.failed'
  | 'transaction.refundInitiated'
  | 'transaction.refunded'
  | 'transaction.payoutUnconfirmed'
  | 'transaction.payoutRetried'
  | 'transaction.cashPickupReady'
  | 'transaction.held'
  | 'transaction.holdReleased'
  | 'transaction.refundAccepted'
  | 'transaction.refundUnconfirmed'
  | 'transaction.refundRefused'
>;

/** The first leg a new transaction starts, unless it is held for review first. */
export type NewLeg = Omit<
  TransactionLeg,
  'status' | 'txHash' | 'imad' | 'uetr' | 'endToEndId' | 'failure' | 'settledAt' | 'initiatedAt'
>;

/** What a rail reported about a leg (the sandbox provider, or a real one). */
export type RailOutcome =
  | { kind: 'settled'; references: LegReferences }
  /** A virtual account's bank refund: the bank took it (in flight), or reported it only as initiated and went quiet. */
  | { kind: 'refundAccepted' }
  | { kind: 'refundUnconfirmed' }
  /** Refused before anything moved. */
  | { kind: 'declined'; failure: LegFailure }
  /** Failed after it was sent: returned by the bank, reverted on chain, charged back. */
  | { kind: 'failed'; failure: LegFailure }
  /** No answer in time: the service stops waiting, and the sweeper asks the provider later. */
  | { kind: 'unconfirmed' }
  /** The cash rail took a cash pickup's payout: the code is issued and the cash waits to be collected. */
  | { kind: 'pickupReady'; pickupCode: string };

export type TransactionCommand =
  | {
      type: 'CreateTransaction';
      record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'>;
      /** The source wallet's money, already pulled into transit (ADR 0019). */
      pulled?: { walletId: string; postingId: string; asset: string; amount: string };
      /** Held for compliance review before the first leg. */
      review?: string;
      firstLeg: NewLeg;
      /** A virtual account deposit the bank sent straight back (the account takes no deposits): the first leg fails so. */
      returned?: LegFailure;
      at: string;
    }
  /**
   * review: a virtual account deposit that settled goes to compliance review before its delivery (instead of
   * nextLeg). destinationGone: the delivery would go to this external account, invalidated or deleted since the
   * deposit: the deposit waits for a destination instead (ADR 0056).
   */
  | {
      type: 'ReportLeg';
      legId: string;
      outcome: RailOutcome;
      nextLeg?: NewLeg;
      review?: string;
      destinationGone?: string;
      at: string;
    }
  /** Operator: a virtual account's bank refund the bank reported only as initiated is complete (spec: Operator-only, complete-refund). */
  | { type: 'CompleteRefund'; reason: string; at: string }
  /**
   * destinationGone: an approved deposit's payout would go to this external account, no longer usable (it waits
   * for a destination); refundRefused: a rejected deposit's refund cannot go to its return destination (held).
   */
  | {
      type: 'DecideReview';
      outcome: 'approved' | 'rejected';
      firstLeg: NewLeg;
      refundLeg?: NewLeg;
      destinationGone?: string;
      refundRefused?: LegFailure;
      at: string;
    }
  | { type: 'ConfirmRefund'; legId: string; at: string }
  /** Operator: send a held payout again. */
  | { type: 'RetryPayout'; leg: NewLeg; reason: string; at: string }
  /** Operator: return held money to its source. refused: its return destination is no longer usable (refused, nothing changes). */
  | { type: 'RefundHeld'; refundLeg: NewLeg; reason: string; retained?: string; refused?: LegFailure; at: string }
  /** Operator: give up on a held or unconfirmed payout; the money stays held for a refund. */
  | { type: 'MarkFailed'; reason: string; at: string }
  /**
   * The retail network reports a cash pickup waiting for collection: the recipient collected the
   * cash, or the pickup expired uncollected (its money goes back to the source wallet: refundLeg).
   */
  | { type: 'ReportCashPickup'; outcome: 'collected' | 'expired'; refundLeg: NewLeg; at: string }
  /**
   * A deposit reached a deposit address (spec: rule 3; Deposit address): the transaction starts with its
   * crypto deposit leg settled at once (the chain's transfer is final when reported), then pays out
   * (after review when the amount calls for it), waits on a hold, or returns the crypto to the sender.
   */
  | {
      type: 'CreateFromDeposit';
      record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'>;
      depositLeg: NewLeg;
      txHash: string;
      next: DepositNext;
      at: string;
    }
  /** The hold is cleared: the sender attributed, or a destination set. What follows is decided by the caller. */
  | {
      type: 'ReleaseHold';
      code: TransactionHold['code'];
      sender?: { party: Party; externalAccountId: string };
      target?: DepositPayoutTarget | VirtualAccountTarget;
      next: DepositNext;
      at: string;
    }
  /**
   * The sender was not attributed before the hold's deadline: the crypto goes back (failed.attributionTimeout),
   * or is held for an operator when the return wallet is no longer usable (refundRefused).
   */
  | { type: 'ExpireAttribution'; refundLeg: NewLeg; refundRefused?: LegFailure; at: string };

/**
 * What a deposit's transaction does once its deposit is in, or once a hold is cleared. A hold for a destination
 * names the account the payout could not go to (destinationId); a return whose return destination is no longer
 * usable is refused (refused) and the money held for an operator.
 */
export type DepositNext =
  | { kind: 'payout'; leg: NewLeg }
  | { kind: 'review'; reason: string }
  | { kind: 'hold'; hold: TransactionHold; destinationId?: string }
  | { kind: 'return'; refundLeg: NewLeg; failure: LegFailure; refused?: LegFailure };

/** No transaction yet: its stream has no events. */
export interface NoTransaction {
  status: 'none';
}

/** A transaction, from its transaction.created on. */
export interface ExistingTransaction {
  status: TransactionStatus;
  subStatus: string | null;
  record: TransactionCreated;
  legs: TransactionLeg[];
  error: SettlementError | null;
  /** The error a refund in flight ends in. */
  pendingError: SettlementError | null;
  /** The source wallet whose money was pulled, if any. */
  pulledFrom: { walletId: string; asset: string; amount: string } | null;
  /** While awaitingAction: why (spec: Transaction `hold`). */
  hold: TransactionHold | null;
  /** Where the refund in flight ends (failed.returnedToSender unless it says otherwise), or the refused one would have. */
  refundEndsIn: string | null;
  /** A compliance review approved it: a deposit released from a hold later is not reviewed again. */
  reviewed: boolean;
  updatedAt: string;
}

export type TransactionState = NoTransaction | ExistingTransaction;

/** The transaction a command acts on: a stream without one is TransactionNotFound. */
export function existingTransaction(state: TransactionState): ExistingTransaction {
  if (state.status === 'none') throw new ApiError('TransactionNotFound');
  return state;
}

/** The id of the next leg a transaction starts: the transaction's id and the leg's place among its legs. */
export function nextLegId(state: ExistingTransaction): string {
  return `${state.record.transactionId}.${state.legs.length + 1}`;
}

type CommandOf<T extends TransactionCommand['type']> = Extract<TransactionCommand, { type: T }>;

/** What every event of a command carries besides its own fields. */
interface Base {
  transactionId: string;
  projectId: string;
  at: string;
}

function baseOf(state: ExistingTransaction, at: string): Base {
  return { transactionId: state.record.transactionId, projectId: state.record.projectId, at };
}

function event<T extends TransactionEvent['type']>(type: T, data: EventPayloads[T]): TransactionEvent {
  return { type, data } as TransactionEvent;
}

function pendingLeg(leg: NewLeg, at: string): TransactionLeg {
  return {
    ...leg,
    status: 'pending',
    txHash: null,
    imad: null,
    uetr: null,
    endToEndId: null,
    failure: null,
    initiatedAt: at,
    settledAt: null,
  };
}

/** The transaction as its transaction.created makes it. */
function opened(record: TransactionCreated): ExistingTransaction {
  return {
    status: record.status,
    subStatus: record.subStatus,
    record,
    legs: [],
    error: null,
    pendingError: null,
    pulledFrom: null,
    hold: null,
    refundEndsIn: null,
    reviewed: false,
    updatedAt: record.at,
  };
}

function evolve(state: TransactionState, e: TransactionEvent): TransactionState {
  if (e.type === 'transaction.created') return opened(e.data);
  // Every other event of a stream follows its transaction.created.
  if (state.status === 'none') return state;
  return evolveExisting(state, e);
}

function evolveExisting(
  state: ExistingTransaction,
  e: Exclude<TransactionEvent, { type: 'transaction.created' }>,
): ExistingTransaction {
  const d = e.data;
  // A hold lasts while the transaction is awaitingAction (spec: Transaction `hold`).
  const moved: ExistingTransaction = {
    ...state,
    status: d.status,
    subStatus: d.subStatus,
    updatedAt: d.at,
    hold: d.status === 'awaitingAction' ? state.hold : null,
  };
  switch (e.type) {
    case 'transaction.fundsPulled':
      return { ...moved, pulledFrom: { walletId: e.data.walletId, asset: e.data.asset, amount: e.data.amount } };
    case 'transaction.legInitiated':
      return { ...moved, legs: [...state.legs, e.data.leg] };
    case 'transaction.legSettled':
      return {
        ...moved,
        legs: state.legs.map((l) =>
          l.id === e.data.legId ? { ...l, status: 'settled', ...e.data.references, settledAt: e.data.at } : l,
        ),
      };
    case 'transaction.legFailed':
      return {
        ...moved,
        legs: state.legs.map((l) => (l.id === e.data.legId ? { ...l, status: 'failed', failure: e.data.failure } : l)),
      };
    case 'transaction.reviewStarted':
      return moved;
    case 'transaction.reviewCleared':
      return { ...moved, reviewed: state.reviewed || e.data.outcome === 'approved' };
    case 'transaction.completed':
      return moved;
    case 'transaction.failed':
      return { ...moved, error: e.data.error, pendingError: null };
    case 'transaction.refundInitiated':
      return {
        ...moved,
        legs: [...state.legs, e.data.leg],
        pendingError: e.data.error,
        refundEndsIn: e.data.finalSubStatus ?? null,
      };
    case 'transaction.held':
      return { ...moved, hold: e.data.hold };
    case 'transaction.holdReleased': {
      const r = state.record;
      const { sender, target } = e.data;
      const source = sender
        ? { ...r.source, party: sender.party, details: { ...r.source.details, id: sender.externalAccountId } }
        : r.source;
      if (!target) return { ...moved, hold: null, record: { ...r, source } };
      // A virtual account's wallet destination takes no bank payout instruction.
      const { payout: _previous, ...rest } = r;
      const record = {
        ...rest,
        source,
        destination: target.destination,
        pricing: target.pricing,
        ...(target.payout ? { payout: target.payout } : {}),
      };
      return { ...moved, hold: null, record };
    }
    case 'transaction.refundRefused':
      return {
        ...moved,
        legs: [...state.legs, e.data.leg],
        pendingError: e.data.error,
        refundEndsIn: e.data.finalSubStatus ?? null,
      };
    case 'transaction.payoutUnconfirmed':
    case 'transaction.refundAccepted':
    case 'transaction.refundUnconfirmed':
      return moved;
    case 'transaction.payoutRetried':
      // (Only money held with nothing in flight is retried: a refund refused before is given up.)
      return { ...moved, legs: [...state.legs, e.data.leg], pendingError: null, refundEndsIn: null };
    case 'transaction.cashPickupReady':
      return {
        ...moved,
        legs: state.legs.map((l) => (l.id === e.data.legId ? { ...l, pickupCode: e.data.pickupCode } : l)),
      };
    case 'transaction.refunded':
      return {
        ...moved,
        legs: state.legs.map((l) =>
          l.id === e.data.legId ? { ...l, status: 'settled', ...e.data.references, settledAt: e.data.at } : l,
        ),
        error: e.data.error,
        pendingError: null,
        refundEndsIn: null,
      };
    default:
      return unknownEvent(e, state);
  }
}

const TERMINAL: readonly string[] = ['completed', 'failed'];

function settlementError(
  failure: LegFailure,
  at: string,
  recoverable: boolean,
  extra: Partial<SettlementError> = {},
): SettlementError {
  return { code: failure.code, message: failure.message, occurredAt: at, recoverable, ...extra };
}

function decide(command: TransactionCommand, state: TransactionState): TransactionEvent[] {
  switch (command.type) {
    case 'CreateTransaction':
      return createTransaction(command, state);
    case 'CreateFromDeposit':
      return createFromDeposit(command, state);
    case 'ReleaseHold':
      return releaseHold(command, existingTransaction(state));
    case 'ExpireAttribution':
      return expireAttribution(command, existingTransaction(state));
    case 'DecideReview':
      return decideReview(command, existingTransaction(state));
    case 'ConfirmRefund':
      return confirmRefund(command, existingTransaction(state));
    case 'CompleteRefund':
      return completeRefund(command, existingTransaction(state));
    case 'RetryPayout':
      return retryPayout(command, existingTransaction(state));
    case 'RefundHeld':
      return refundHeld(command, existingTransaction(state));
    case 'MarkFailed':
      return markFailed(command, existingTransaction(state));
    case 'ReportCashPickup':
      return reportCashPickup(command, existingTransaction(state));
    case 'ReportLeg':
      return reportLeg(command, existingTransaction(state));
    default:
      return unknownCommand(command);
  }
}

function createTransaction(command: CommandOf<'CreateTransaction'>, state: TransactionState): TransactionEvent[] {
  if (state.status !== 'none')
    throw new ApiError(
      'QuoteAlreadyAccepted',
      `transaction ${command.record.transactionId} already exists for quote ${command.record.precursor.id}`,
    );
  const { at } = command;
  const base = { transactionId: command.record.transactionId, projectId: command.record.projectId, at };
  // A wallet's money is pulled before its transaction is made (ADR 0019): it starts processing.fundsPulled,
  // so its first transaction.statusChanged shows it as the POST answers it.
  const subStatus = command.pulled ? 'processing.fundsPulled' : null;
  const events: TransactionEvent[] = [
    event('transaction.created', { ...command.record, status: 'processing', subStatus, at }),
  ];
  if (command.pulled)
    events.push(event('transaction.fundsPulled', { ...base, status: 'processing', subStatus, ...command.pulled }));
  if (command.review) {
    events.push(
      event('transaction.reviewStarted', {
        ...base,
        status: 'processing',
        subStatus: 'processing.underReview',
        reason: command.review,
      }),
    );
    return events;
  }
  events.push(
    event('transaction.legInitiated', {
      ...base,
      status: 'processing',
      subStatus,
      leg: pendingLeg(command.firstLeg, at),
    }),
  );
  if (command.returned) {
    events.push(
      event('transaction.legFailed', {
        ...base,
        status: 'processing',
        subStatus,
        legId: command.firstLeg.id,
        failure: command.returned,
        afterSending: true,
      }),
      event('transaction.failed', {
        ...base,
        status: 'failed',
        subStatus: 'failed.returnedToSender',
        error: settlementError(command.returned, at, false),
      }),
    );
  }
  return events;
}

/** A deposit address's deposit, once: a repeated one finds its transaction made and changes nothing. */
function createFromDeposit(command: CommandOf<'CreateFromDeposit'>, state: TransactionState): TransactionEvent[] {
  if (state.status !== 'none') return [];
  const { at } = command;
  const record: TransactionCreated = { ...command.record, status: 'processing', subStatus: null, at };
  const base = { transactionId: record.transactionId, projectId: record.projectId, at };
  const leg = pendingLeg(command.depositLeg, at);
  return [
    event('transaction.created', record),
    event('transaction.legInitiated', { ...base, status: 'processing', subStatus: null, leg }),
    event('transaction.legSettled', {
      ...base,
      status: 'processing',
      subStatus: null,
      legId: leg.id,
      references: { txHash: command.txHash },
      settlement: settlementOf(record, leg),
    }),
    ...afterDeposit(base, command.next),
  ];
}

function releaseHold(command: CommandOf<'ReleaseHold'>, state: ExistingTransaction): TransactionEvent[] {
  // A hold already cleared (or never placed: a late or repeated release) changes nothing.
  if (state.status !== 'awaitingAction' || state.hold?.code !== command.code) return [];
  const base = baseOf(state, command.at);
  const released = event('transaction.holdReleased', {
    ...base,
    status: 'processing',
    subStatus: null,
    code: command.code,
    sender: command.sender,
    target: command.target,
  });
  return [released, ...afterDeposit(base, command.next)];
}

function expireAttribution(command: CommandOf<'ExpireAttribution'>, state: ExistingTransaction): TransactionEvent[] {
  if (state.status !== 'awaitingAction' || state.hold?.code !== 'senderAttribution') return [];
  const base = baseOf(state, command.at);
  const failure = {
    code: 'attributionTimeout',
    message: 'The sender was not registered before the attribution deadline; the crypto goes back to the sender.',
  };
  const error = settlementError(failure, command.at, false);
  if (command.refundRefused)
    return [refuseRefund(base, command.refundLeg, command.refundRefused, error, 'failed.attributionTimeout')];
  return [returnDeposit(base, command.refundLeg, error, 'failed.attributionTimeout')];
}

function decideReview(command: CommandOf<'DecideReview'>, state: ExistingTransaction): TransactionEvent[] {
  // (A rejection whose refund was refused stays under review for an operator: decided already.)
  if (
    state.subStatus !== 'processing.underReview' ||
    state.legs.some((l) => l.status === 'pending') ||
    refundRefused(state)
  )
    return [];
  const base = baseOf(state, command.at);
  if (command.outcome === 'approved') {
    const subStatus = state.pulledFrom ? 'processing.fundsPulled' : null;
    const cleared = event('transaction.reviewCleared', {
      ...base,
      status: 'processing',
      subStatus,
      outcome: 'approved',
    });
    if (command.destinationGone && isAutoDeposit(state))
      return [cleared, destinationHold(state, base, command.destinationGone)];
    return [
      cleared,
      event('transaction.legInitiated', {
        ...base,
        status: 'processing',
        subStatus,
        leg: pendingLeg(command.firstLeg, command.at),
      }),
    ];
  }
  const error = settlementError(
    { code: 'complianceRejected', message: 'The transaction did not pass compliance review.' },
    command.at,
    false,
  );
  return [
    event('transaction.reviewCleared', {
      ...base,
      status: 'processing',
      subStatus: 'processing.underReview',
      outcome: 'rejected',
    }),
    ...refundOrFail(state, base, error, command.refundLeg, 'failed.providerDeclined', command.refundRefused),
  ];
}

/** The ledger credited a refund's money back to its source: the refund leg settles. */
function confirmRefund(command: CommandOf<'ConfirmRefund'>, state: ExistingTransaction): TransactionEvent[] {
  const leg = state.legs.find((l) => l.id === command.legId && l.kind === 'refund');
  if (!leg || leg.status !== 'pending') return [];
  const base = baseOf(state, command.at);
  const error = {
    ...(state.pendingError ??
      settlementError({ code: 'refunded', message: 'The money was returned to the sender.' }, command.at, false)),
  };
  error.refund = { status: 'completed', amount: leg.amount, asset: leg.asset };
  // An expired cash pickup is no failure (spec: States / Transaction): it completes, its money back home.
  if (cashPickupExpired(state))
    return [
      event('transaction.refunded', {
        ...base,
        status: 'completed',
        subStatus: 'completed.cashPickupExpired',
        legId: leg.id,
        error,
      }),
    ];
  return [
    event('transaction.refunded', {
      ...base,
      status: 'failed',
      subStatus: state.refundEndsIn ?? 'failed.returnedToSender',
      legId: leg.id,
      error,
    }),
  ];
}

function completeRefund(command: CommandOf<'CompleteRefund'>, state: ExistingTransaction): TransactionEvent[] {
  const { transactionId } = state.record;
  const refund = [...state.legs].reverse().find((l) => l.kind === 'refund');
  if (state.record.precursor.type !== 'virtualAccount' || !refund) {
    throw new ApiError(
      'refundNotCompletable',
      `transaction ${transactionId} has no virtual account bank refund to complete: only a refund of a virtual account deposit can be completed this way`,
    );
  }
  if (refund.status === 'settled') return [];
  // A refund refused before it started was never sent: there is nothing the bank could have completed.
  if (refund.status === 'failed' && isUnusableAccountFailure(refund.failure)) {
    throw new ApiError(
      'refundNotCompletable',
      `transaction ${transactionId}'s refund was never sent: ${refund.failure?.message} Refund it again instead (to the sender: {"to": "sender"})`,
    );
  }
  const error = {
    ...(state.pendingError ??
      state.error ??
      settlementError({ code: 'refunded', message: 'The money was returned to the sender.' }, command.at, false)),
  };
  error.refund = { status: 'completed', amount: refund.amount, asset: refund.asset };
  return [
    event('transaction.refunded', {
      ...baseOf(state, command.at),
      status: 'failed',
      subStatus: state.refundEndsIn ?? 'failed.returnedToSender',
      legId: refund.id,
      error,
    }),
  ];
}

function retryPayout(command: CommandOf<'RetryPayout'>, state: ExistingTransaction): TransactionEvent[] {
  if (!heldAfterFailedPayout(state))
    throw new ApiError(
      'TransactionNotActionable',
      `retry applies to a payout held for review after it failed; the transaction is ${state.subStatus ?? state.status}`,
    );
  return [
    event('transaction.payoutRetried', {
      ...baseOf(state, command.at),
      status: 'processing',
      subStatus: 'processing.payoutRetrying',
      leg: pendingLeg(command.leg, command.at),
      reason: command.reason,
    }),
  ];
}

function refundHeld(command: CommandOf<'RefundHeld'>, state: ExistingTransaction): TransactionEvent[] {
  if (!(heldAfterFailedPayout(state) || state.subStatus === 'failed.outboundFailed' || refundRefused(state))) {
    throw new ApiError(
      'TransactionNotActionable',
      `refund applies to money the service holds after a failed payout or a refused refund; the transaction is ${state.subStatus ?? state.status}`,
    );
  }
  // Nothing goes to a return destination that is gone (ADR 0056): refused, and nothing changes.
  if (command.refused) {
    throw new ApiError(
      'ExternalAccountNotActive',
      `${command.refused.message} Nothing was refunded: send it back to the sender instead (refund with {"to": "sender"}), or ask the partner for another return destination`,
    );
  }
  // A refund refused before keeps what the transaction ends with (a rejected review's, a lapsed attribution's).
  const error =
    state.error ??
    state.pendingError ??
    settlementError({ code: 'operatorRefund', message: command.reason }, command.at, false);
  return [
    event('transaction.refundInitiated', {
      ...baseOf(state, command.at),
      status: 'processing',
      subStatus: 'processing.returningToSender',
      leg: pendingLeg(command.refundLeg, command.at),
      walletId: state.pulledFrom?.walletId ?? null,
      error: {
        ...error,
        recoverable: false,
        recovery: undefined,
        refund: { status: 'pending', amount: command.refundLeg.amount, asset: command.refundLeg.asset },
      },
      ...(command.retained ? { retained: command.retained } : {}),
      ...(state.refundEndsIn ? { finalSubStatus: state.refundEndsIn } : {}),
    }),
  ];
}

function markFailed(command: CommandOf<'MarkFailed'>, state: ExistingTransaction): TransactionEvent[] {
  if (!(heldAfterFailedPayout(state) || state.subStatus === 'processing.payoutUnconfirmed')) {
    throw new ApiError(
      'TransactionNotActionable',
      `mark-failed applies to a payout held for review or unconfirmed; the transaction is ${state.subStatus ?? state.status}`,
    );
  }
  const base = baseOf(state, command.at);
  const pending = state.legs.find((l) => l.kind === 'payout' && l.status === 'pending');
  const failure = { code: 'operatorMarkedFailed', message: command.reason };
  return [
    ...(pending
      ? [
          event('transaction.legFailed', {
            ...base,
            status: state.status,
            subStatus: state.subStatus,
            legId: pending.id,
            failure,
          }),
        ]
      : []),
    event('transaction.failed', {
      ...base,
      status: 'failed',
      subStatus: 'failed.outboundFailed',
      error: settlementError(failure, command.at, true, { recovery: 'refund' }),
    }),
  ];
}

function reportCashPickup(command: CommandOf<'ReportCashPickup'>, state: ExistingTransaction): TransactionEvent[] {
  const { transactionId, sourceToDestination } = state.record;
  const pickup = state.legs.find((l) => isCashPickupLeg(l) && l.status === 'pending');
  if (state.subStatus !== 'processing.cashPickupReady' || !pickup) {
    throw new ApiError(
      'CashPickupNotReady',
      sourceToDestination !== 'cryptoToCash'
        ? `transaction ${transactionId} is ${sourceToDestination}, not a cash pickup`
        : `the cash pickup is ${state.subStatus ?? state.status}: only one waiting for collection (processing.cashPickupReady) can be collected or expire`,
    );
  }
  const base = baseOf(state, command.at);
  if (command.outcome === 'collected') {
    return [
      event('transaction.legSettled', {
        ...base,
        status: state.status,
        subStatus: state.subStatus,
        legId: pickup.id,
        references: {},
        settlement: settlementOf(state.record, pickup),
      }),
      event('transaction.completed', { ...base, status: 'completed', subStatus: 'completed.cashPickupCollected' }),
    ];
  }
  // Nothing was handed out: the money goes back to the source wallet, then the pickup completes as expired.
  return [
    event('transaction.legFailed', {
      ...base,
      status: state.status,
      subStatus: state.subStatus,
      legId: pickup.id,
      failure: CASH_PICKUP_EXPIRED,
    }),
    ...refundOrFail(
      state,
      base,
      settlementError(CASH_PICKUP_EXPIRED, command.at, false),
      command.refundLeg,
      'failed.outboundFailed',
    ),
  ];
}

/** A rail's answer about a pending leg; a repeated or late answer changes nothing. */
function reportLeg(command: CommandOf<'ReportLeg'>, state: ExistingTransaction): TransactionEvent[] {
  const base = baseOf(state, command.at);
  const leg = state.legs.find((l) => l.id === command.legId);
  if (!leg || leg.status !== 'pending' || TERMINAL.includes(state.status)) return [];
  const outcome = command.outcome;
  if (outcome.kind === 'refundAccepted' || outcome.kind === 'refundUnconfirmed') {
    if (leg.kind !== 'refund') return [];
    if (outcome.kind === 'refundAccepted')
      return [
        event('transaction.refundAccepted', {
          ...base,
          status: state.status,
          subStatus: state.subStatus,
          legId: leg.id,
        }),
      ];
    if (state.subStatus === 'processing.underReview') return [];
    return [
      event('transaction.refundUnconfirmed', {
        ...base,
        status: 'processing',
        subStatus: 'processing.underReview',
        legId: leg.id,
      }),
    ];
  }
  if (leg.kind === 'refund') {
    // A bank refund's settlement (the sandbox bank), or a return's transfer on a chain (with its hash): as the
    // ledger's confirmation is for the other refunds.
    if (outcome.kind !== 'settled') return [];
    const error = {
      ...(state.pendingError ??
        settlementError({ code: 'refunded', message: 'The money was returned to the sender.' }, command.at, false)),
    };
    error.refund = { status: 'completed', amount: leg.amount, asset: leg.asset };
    const references = Object.keys(outcome.references).length > 0 ? { references: outcome.references } : {};
    return [
      event('transaction.refunded', {
        ...base,
        status: 'failed',
        subStatus: state.refundEndsIn ?? 'failed.returnedToSender',
        legId: leg.id,
        error,
        ...references,
      }),
    ];
  }
  if (outcome.kind === 'unconfirmed') {
    if (state.subStatus === 'processing.payoutUnconfirmed' || leg.kind !== 'payout') return [];
    return [
      event('transaction.payoutUnconfirmed', {
        ...base,
        status: 'processing',
        subStatus: 'processing.payoutUnconfirmed',
        legId: leg.id,
      }),
    ];
  }
  if (outcome.kind === 'pickupReady') {
    if (!isCashPickupLeg(leg) || state.subStatus === 'processing.cashPickupReady') return [];
    return [
      event('transaction.cashPickupReady', {
        ...base,
        status: 'processing',
        subStatus: 'processing.cashPickupReady',
        legId: leg.id,
        pickupCode: outcome.pickupCode,
      }),
    ];
  }
  if (outcome.kind === 'settled') {
    if (leg.kind === 'deposit') {
      // The card charge is final: the customer's money is taken; the crypto goes out next. A virtual
      // account's bank deposit is in: the money is held for its delivery (after review when it calls for one).
      const inbound = state.record.precursor.type === 'virtualAccount';
      const subStatus = inbound ? null : 'processing.fundsPulled';
      const settled = event('transaction.legSettled', {
        ...base,
        status: 'processing',
        subStatus,
        legId: leg.id,
        references: outcome.references,
        settlement: settlementOf(state.record, leg),
      });
      if (command.review)
        return [
          settled,
          event('transaction.reviewStarted', {
            ...base,
            status: 'processing',
            subStatus: 'processing.underReview',
            reason: command.review,
          }),
        ];
      // The delivery's account went away while the bank had the deposit: the deposit waits for a destination.
      if (command.destinationGone && inbound) return [settled, destinationHold(state, base, command.destinationGone)];
      if (!command.nextLeg) return [settled];
      return [
        settled,
        event('transaction.legInitiated', {
          ...base,
          status: 'processing',
          subStatus,
          leg: pendingLeg(command.nextLeg, command.at),
        }),
      ];
    }
    return [
      event('transaction.legSettled', {
        ...base,
        status: state.status,
        subStatus: state.subStatus,
        legId: leg.id,
        references: outcome.references,
        settlement: settlementOf(state.record, leg),
      }),
      event('transaction.completed', {
        ...base,
        status: 'completed',
        subStatus: isCashPickupLeg(leg) ? 'completed.cashPickupCollected' : null,
      }),
    ];
  }
  const failed = event('transaction.legFailed', {
    ...base,
    status: state.status,
    subStatus: state.subStatus,
    legId: leg.id,
    failure: outcome.failure,
    afterSending: outcome.kind === 'failed',
  });
  if (
    leg.kind === 'payout' &&
    outcome.kind === 'declined' &&
    isAutoDeposit(state) &&
    isUnusableAccountFailure(outcome.failure)
  ) {
    // A deposit's destination went away before its payout settled: nothing was paid; the deposit waits for a
    // new destination (spec: Deposit address, "whose destination external account was deleted").
    return [failed, destinationHold(state, base, sideExternalAccountId(state.record.destination))];
  }
  if (leg.kind === 'deposit') {
    // A single-leg refusal by the card processor, or a charge that failed after it was authorised.
    const subStatus = outcome.kind === 'declined' ? 'failed.providerDeclined' : 'failed.inboundFailed';
    return [
      failed,
      event('transaction.failed', {
        ...base,
        status: 'failed',
        subStatus,
        error: settlementError(outcome.failure, command.at, false),
      }),
    ];
  }
  if (state.record.source.type === 'cash') {
    // A cash-in's crypto could not be delivered: the transaction fails; the cash-in stays completed
    // (spec: States / Cash-in) and the deposited cash stays in the transaction's transit account.
    const subStatus = outcome.kind === 'declined' ? 'failed.providerDeclined' : 'failed.outboundFailed';
    return [
      failed,
      event('transaction.failed', {
        ...base,
        status: 'failed',
        subStatus,
        error: settlementError(outcome.failure, command.at, false),
      }),
    ];
  }
  if (!state.pulledFrom) {
    // A card buy's crypto could not go out after the charge settled: the service holds the money.
    return [
      failed,
      event('transaction.reviewStarted', {
        ...base,
        status: 'processing',
        subStatus: 'processing.underReview',
        reason: `payout failed: ${outcome.failure.code}`,
      }),
    ];
  }
  if (outcome.kind === 'declined') {
    // Nothing left the service: the money goes back to the source wallet.
    return [
      failed,
      ...refundOrFail(
        state,
        base,
        settlementError(outcome.failure, command.at, false),
        command.nextLeg,
        'failed.providerDeclined',
      ),
    ];
  }
  // Sent and lost (returned, reverted): terminal, the money held for an operator's refund or retry.
  return [
    failed,
    event('transaction.failed', {
      ...base,
      status: 'failed',
      subStatus: 'failed.outboundFailed',
      error: settlementError(outcome.failure, command.at, true, { recovery: 'refund' }),
    }),
  ];
}

/** The failure of a cash pickup's payout leg that lapsed uncollected. */
export const CASH_PICKUP_EXPIRED: LegFailure = {
  code: 'cashPickupExpired',
  message: 'The cash was not collected before the pickup expired.',
};

/** A cash pickup's payout: to the retail network's cash rail (spec: rule 8). */
function isCashPickupLeg(leg: Pick<TransactionLeg, 'kind' | 'rail'>): boolean {
  return leg.kind === 'payout' && leg.rail === 'cash';
}

function cashPickupExpired(state: ExistingTransaction): boolean {
  return state.legs.some(
    (l) => isCashPickupLeg(l) && l.status === 'failed' && l.failure?.code === CASH_PICKUP_EXPIRED.code,
  );
}

/** A deposit's refund was refused before it started (its return destination is gone): the money waits for an operator. */
function refundRefused(state: ExistingTransaction): boolean {
  const last = state.legs.at(-1);
  return (
    state.subStatus === 'processing.underReview' &&
    last?.kind === 'refund' &&
    last.status === 'failed' &&
    isUnusableAccountFailure(last.failure)
  );
}

/** The service holds the money of a payout that failed: a card buy's crypto, awaiting an operator. */
function heldAfterFailedPayout(state: ExistingTransaction): boolean {
  return (
    state.subStatus === 'processing.underReview' &&
    state.legs.some((l) => l.kind === 'payout' && l.status === 'failed') &&
    !state.legs.some((l) => l.status === 'pending')
  );
}

function settlementOf(record: TransactionCreated, leg: TransactionLeg): LegSettlement {
  const destination = record.destination;
  return {
    kind: leg.kind === 'deposit' ? 'deposit' : 'payout',
    transitAsset: record.pricing.source.asset,
    transitAmount: record.pricing.source.amountNet,
    railAsset: leg.asset,
    railAmount: leg.amount,
    network: leg.network,
    walletId: leg.kind === 'payout' && destination.type === 'walletOms' ? String(destination.details.id) : null,
  };
}

/** Sends pulled money back to its wallet; with nothing pulled, fails at once. */
function refundOrFail(
  state: ExistingTransaction,
  base: Base,
  error: SettlementError,
  refundLeg: NewLeg | undefined,
  failedSubStatus: string,
  /** A deposit's refund whose return destination is no longer usable: refused, the money held for an operator. */
  refused?: LegFailure,
): TransactionEvent[] {
  if (isAutoDeposit(state) && refundLeg && refused)
    return [refuseRefund(base, refundLeg, refused, error, 'failed.returnedToSender')];
  if (isAutoDeposit(state) && refundLeg) return [returnDeposit(base, refundLeg, error, 'failed.returnedToSender')];
  if (state.pulledFrom && refundLeg) {
    return [
      event('transaction.refundInitiated', {
        ...base,
        status: 'processing',
        subStatus: 'processing.returningToSender',
        leg: pendingLeg(refundLeg, base.at),
        walletId: state.pulledFrom.walletId,
        error: { ...error, refund: { status: 'pending', amount: refundLeg.amount, asset: refundLeg.asset } },
      }),
    ];
  }
  return [event('transaction.failed', { ...base, status: 'failed', subStatus: failedSubStatus, error })];
}

/** A deposit address or virtual account deposit's transaction: its money came in by itself, and goes back where it came from. */
function isAutoDeposit(state: ExistingTransaction): boolean {
  return isFromDeposit(state.record);
}

/** The crypto of a deposit goes back on chain (to the return destination or the sender); it ends in finalSubStatus. */
function returnDeposit(
  base: Base,
  refundLeg: NewLeg,
  error: SettlementError,
  finalSubStatus: string,
): TransactionEvent {
  return event('transaction.refundInitiated', {
    ...base,
    status: 'processing',
    subStatus: 'processing.returningToSender',
    leg: pendingLeg(refundLeg, base.at),
    walletId: null,
    error: {
      ...error,
      recoverable: false,
      recovery: undefined,
      refund: { status: 'pending', amount: refundLeg.amount, asset: refundLeg.asset },
    },
    finalSubStatus,
  });
}

/**
 * A deposit's refund that cannot start because its return destination was invalidated or deleted (ADR 0056):
 * recorded as a refund leg refused before anything was sent, the money held for an operator (processing.underReview)
 * with what the transaction will end with once an operator's refund arrives (error, finalSubStatus).
 */
function refuseRefund(
  base: Base,
  refundLeg: NewLeg,
  failure: LegFailure,
  error: SettlementError,
  finalSubStatus: string,
): TransactionEvent {
  return event('transaction.refundRefused', {
    ...base,
    status: 'processing',
    subStatus: 'processing.underReview',
    leg: { ...pendingLeg(refundLeg, base.at), status: 'failed', failure },
    error: { ...error, recoverable: false, recovery: undefined },
    finalSubStatus,
  });
}

/** A deposit waits for a destination: destinationId, the account its payout could not go to (ADR 0056). */
function destinationHold(state: ExistingTransaction, base: Base, destinationId: string | undefined): TransactionEvent {
  const hold: TransactionHold = {
    code: 'payoutDestinationMissing',
    message: holdMessage('payoutDestinationMissing', state.record.precursor.type),
  };
  return event('transaction.held', {
    ...base,
    status: 'awaitingAction',
    subStatus: HOLD_SUB_STATUS.payoutDestinationMissing,
    hold,
    ...(destinationId ? { destinationId } : {}),
  });
}

/** A deposit's transaction with its money in: pay out, go to review, wait on a hold, or return the crypto. */
function afterDeposit(base: Base, next: DepositNext): TransactionEvent[] {
  switch (next.kind) {
    case 'payout':
      return [
        event('transaction.legInitiated', {
          ...base,
          status: 'processing',
          subStatus: null,
          leg: pendingLeg(next.leg, base.at),
        }),
      ];
    case 'review':
      return [
        event('transaction.reviewStarted', {
          ...base,
          status: 'processing',
          subStatus: 'processing.underReview',
          reason: next.reason,
        }),
      ];
    case 'hold':
      return [
        event('transaction.held', {
          ...base,
          status: 'awaitingAction',
          subStatus: HOLD_SUB_STATUS[next.hold.code],
          hold: next.hold,
          ...(next.destinationId ? { destinationId: next.destinationId } : {}),
        }),
      ];
    case 'return': {
      const error = settlementError(next.failure, base.at, false);
      if (next.refused) return [refuseRefund(base, next.refundLeg, next.refused, error, 'failed.returnedToSender')];
      return [returnDeposit(base, next.refundLeg, error, 'failed.returnedToSender')];
    }
  }
}

const HOLD_SUB_STATUS: Record<TransactionHold['code'], string> = {
  senderAttribution: 'awaitingAction.awaitingSenderAttribution',
  payoutDestinationMissing: 'awaitingAction.payoutDestinationMissing',
};

export const transactionDecider: Decider<TransactionCommand, TransactionEvent, TransactionState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const transactionStreamId = (transactionId: string) => `transaction-${transactionId}`;

/** A quote is accepted by exactly one transaction, whose id is the quote's own (ADR 0019). */
export function transactionIdForQuote(quoteId: string): string {
  return `txn_${quoteId.slice(quoteId.indexOf('_') + 1)}`;
}
