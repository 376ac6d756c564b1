// A cash-in (spec: States / Cash-in): pending with a one-time code valid one
// hour, refreshed with a new code while pending, completed once by the retail
// partner's deposit (single-use), or expired when its code lapses. From the
// code's expiresAt on, a pending cash-in is expired on the project's clock
// whether or not its expiry timer has fired yet: reads show it expired and
// commands refuse it, so the answer never depends on the timer's timing.
import { ApiError, requireAmount, type CashInCreated, type CashInDeposited, type EventPayloads, type TypedEvent } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';
import { checkCashInCreation, checkDeposit, type CashInUsage } from './cash-in-limits';
import { CASH_ASSET, cashInPricing } from './cash-in-pricing';
import { codeExpiresAt } from './deposit-code';

export type CashInEvent = TypedEvent<'cashIn.created' | 'cashIn.codeRefreshed' | 'cashIn.deposited' | 'cashIn.expired'>;
export type CashInStatus = 'pending' | 'completed' | 'expired';

export type CashInCommand =
  | { type: 'CreateCashIn'; record: CashInCreated; usage: CashInUsage }
  | { type: 'RefreshCode'; projectId: string; code: string; at: string }
  | { type: 'DepositCash'; projectId: string; amount: string; code?: string; rate: string; usage: CashInUsage; at: string }
  | { type: 'ExpireCashIn'; projectId: string; at: string };

export type CashInState =
  | { status: 'none' }
  | {
      status: CashInStatus;
      record: CashInCreated;
      /** The live code and when it lapses (the record keeps the first ones). */
      code: string;
      expiresAt: string;
      deposit: CashInDeposited | null;
      updatedAt: string;
    };

export type ExistingCashIn = Exclude<CashInState, { status: 'none' }>;

function event<T extends CashInEvent['type']>(type: T, data: EventPayloads[T]): CashInEvent {
  return { type, data } as CashInEvent;
}

function evolve(state: CashInState, e: CashInEvent): CashInState {
  if (e.type === 'cashIn.created') return { status: 'pending', record: e.data, code: e.data.code, expiresAt: e.data.expiresAt, deposit: null, updatedAt: e.data.createdAt };
  if (state.status === 'none') return state;
  switch (e.type) {
    case 'cashIn.codeRefreshed':
      return { ...state, code: e.data.code, expiresAt: e.data.expiresAt, updatedAt: e.data.at };
    case 'cashIn.deposited':
      return { ...state, status: 'completed', deposit: e.data, updatedAt: e.data.at };
    case 'cashIn.expired':
      return { ...state, status: 'expired', updatedAt: e.data.expiredAt };
  }
}

/** The status at a moment of project time: a pending cash-in whose code lapsed is expired. */
export function statusAt(state: ExistingCashIn, at: string): CashInStatus {
  return state.status === 'pending' && Date.parse(at) >= Date.parse(state.expiresAt) ? 'expired' : state.status;
}

function requirePending(state: ExistingCashIn, at: string, action: string): void {
  const status = statusAt(state, at);
  if (status === 'completed') throw new ApiError('CashInNotPending', `cash-in ${state.record.cashInId} is completed: a cash-in is single-use, so it cannot be ${action}`);
  if (status === 'expired') throw new ApiError('CashInNotPending', `cash-in ${state.record.cashInId} expired at ${state.expiresAt}: it cannot be ${action}; create a new cash-in`);
}

/** The transaction a cash-in's deposit creates: `txn_` and the cash-in's own TypeID body. */
export function transactionIdForCashIn(cashInId: string): string {
  return `txn_${cashInId.slice(cashInId.indexOf('_') + 1)}`;
}

function decide(command: CashInCommand, state: CashInState): CashInEvent[] {
  if (command.type === 'CreateCashIn') {
    if (state.status !== 'none') return [];
    const { record } = command;
    checkCashInCreation(record.indicatedAmount, record.location.provider, command.usage);
    return [event('cashIn.created', record)];
  }
  // Another project's cash-in is no cash-in of this one.
  if (state.status === 'none' || state.record.projectId !== command.projectId) {
    if (command.type === 'ExpireCashIn') return [];
    throw new ApiError('CashInNotFound');
  }
  const { cashInId, projectId } = state.record;
  switch (command.type) {
    case 'RefreshCode': {
      requirePending(state, command.at, 'refreshed');
      if (command.code === state.code) throw new Error('a refreshed code must differ from the one it replaces');
      return [event('cashIn.codeRefreshed', { cashInId, projectId, code: command.code, expiresAt: codeExpiresAt(command.at), previousExpiresAt: state.expiresAt, at: command.at })];
    }
    case 'DepositCash': {
      requireAmount(command.amount, 'amount', { asset: CASH_ASSET });
      requirePending(state, command.at, 'deposited');
      if (command.code !== undefined && command.code !== state.code) {
        throw new ApiError('DepositCodeMismatch', `the code is not cash-in ${cashInId}'s current code (a refresh voids the previous one)`);
      }
      const { record } = state;
      checkDeposit(command.amount, record.location.provider, command.usage);
      const pricing = cashInPricing(command.amount, record.destination.asset, command.rate);
      return [
        event('cashIn.deposited', {
          cashInId,
          projectId,
          customerId: record.customerId,
          transactionId: transactionIdForCashIn(cashInId),
          deposit: { asset: 'usd', amount: pricing.source.amountGross },
          destination: record.destination,
          pricing,
          location: record.location,
          metadata: record.metadata,
          at: command.at,
        }),
      ];
    }
    case 'ExpireCashIn':
      if (statusAt(state, command.at) !== 'expired' || state.status !== 'pending') return [];
      return [event('cashIn.expired', { cashInId, projectId, expiredAt: state.expiresAt })];
  }
}

export const cashInDecider: Decider<CashInCommand, CashInEvent, CashInState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const cashInStreamId = (cashInId: string) => `cashIn-${cashInId}`;
