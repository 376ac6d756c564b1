// A cash-in (spec: States / Cash-in): pending with a one-time code valid one
// hour, refreshed with a new code while pending, completed once by the retail
// partner's deposit (single-use), or expired when its code lapses. From the
// code's expiresAt on, a pending cash-in is expired on the project's clock
// whether or not its expiry timer has fired yet: reads show it expired and
// commands refuse it, so the answer never depends on the timer's timing.
import {
  ApiError,
  requireAmount,
  type CashInCreated,
  type CashInDeposited,
  type EventPayloads,
  type TypedEvent,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';
import { checkCashInCreation, checkDeposit, type CashInUsage } from './cash-in-limits';
import { CASH_ASSET, cashInPricing } from './cash-in-pricing';
import { codeExpiresAt } from './deposit-code';

export type CashInEvent = TypedEvent<'cashIn.created' | 'cashIn.codeRefreshed' | 'cashIn.deposited' | 'cashIn.expired'>;
export type CashInStatus = 'pending' | 'completed' | 'expired';

export type CashInCommand =
  | { type: 'CreateCashIn'; record: CashInCreated; usage: CashInUsage }
  | { type: 'RefreshCode'; projectId: string; code: string; at: string }
  | {
      type: 'DepositCash';
      projectId: string;
      amount: string;
      code?: string;
      rate: string;
      usage: CashInUsage;
      at: string;
    }
  | { type: 'ExpireCashIn'; projectId: string; at: string };

/** The fields every cash-in has, whatever its status. */
interface CashInFields {
  record: CashInCreated;
  /** The live code and when it lapses (the record keeps the first ones). */
  code: string;
  expiresAt: string;
  updatedAt: string;
}

/** Waiting for the retail partner's deposit, or past its code without one. */
export interface OpenCashIn extends CashInFields {
  status: 'pending' | 'expired';
  deposit: null;
}

/** Completed by its one deposit (single-use). */
export interface CompletedCashIn extends CashInFields {
  status: 'completed';
  deposit: CashInDeposited;
}

export type ExistingCashIn = OpenCashIn | CompletedCashIn;

export type CashInState = { status: 'none' } | ExistingCashIn;

type CommandOf<T extends CashInCommand['type']> = Extract<CashInCommand, { type: T }>;

function event<T extends CashInEvent['type']>(type: T, data: EventPayloads[T]): CashInEvent {
  return { type, data } as CashInEvent;
}

function evolve(state: CashInState, e: CashInEvent): CashInState {
  switch (e.type) {
    case 'cashIn.created':
      return {
        status: 'pending',
        record: e.data,
        code: e.data.code,
        expiresAt: e.data.expiresAt,
        deposit: null,
        updatedAt: e.data.createdAt,
      };
    case 'cashIn.codeRefreshed':
      if (state.status === 'none') return state;
      return { ...state, code: e.data.code, expiresAt: e.data.expiresAt, updatedAt: e.data.at };
    case 'cashIn.deposited':
      if (state.status === 'none') return state;
      return { ...state, status: 'completed', deposit: e.data, updatedAt: e.data.at };
    case 'cashIn.expired':
      // Only a pending cash-in expires (ExpireCashIn): it has no deposit.
      if (state.status === 'none') return state;
      return { ...state, status: 'expired', deposit: null, updatedAt: e.data.expiredAt };
    default:
      return unknownEvent(e, state);
  }
}

/** The status at a moment of project time: a pending cash-in whose code lapsed is expired. */
export function statusAt(state: ExistingCashIn, at: string): CashInStatus {
  return state.status === 'pending' && Date.parse(at) >= Date.parse(state.expiresAt) ? 'expired' : state.status;
}

/**
 * The cash-in a stream holds: CashInNotFound when it has none, or, with `projectId`, when it is another
 * project's (another project's cash-in is no cash-in of this one).
 */
export function requireCashIn(state: CashInState, projectId?: string): ExistingCashIn {
  if (state.status === 'none' || (projectId !== undefined && state.record.projectId !== projectId))
    throw new ApiError('CashInNotFound');
  return state;
}

function requirePending(state: ExistingCashIn, at: string, action: string): void {
  const status = statusAt(state, at);
  if (status === 'completed')
    throw new ApiError(
      'CashInNotPending',
      `cash-in ${state.record.cashInId} is completed: a cash-in is single-use, so it cannot be ${action}`,
    );
  if (status === 'expired')
    throw new ApiError(
      'CashInNotPending',
      `cash-in ${state.record.cashInId} expired at ${state.expiresAt}: it cannot be ${action}; create a new cash-in`,
    );
}

/** The transaction a cash-in's deposit creates: `txn_` and the cash-in's own TypeID body. */
export function transactionIdForCashIn(cashInId: string): string {
  return `txn_${cashInId.slice(cashInId.indexOf('_') + 1)}`;
}

function createCashIn(command: CommandOf<'CreateCashIn'>, state: CashInState): CashInEvent[] {
  if (state.status !== 'none') return [];
  const { record } = command;
  checkCashInCreation(record.indicatedAmount, record.location.provider, command.usage);
  return [event('cashIn.created', record)];
}

function refreshCode(command: CommandOf<'RefreshCode'>, state: ExistingCashIn): CashInEvent[] {
  const { cashInId, projectId } = state.record;
  requirePending(state, command.at, 'refreshed');
  if (command.code === state.code) throw new Error('a refreshed code must differ from the one it replaces');
  return [
    event('cashIn.codeRefreshed', {
      cashInId,
      projectId,
      code: command.code,
      expiresAt: codeExpiresAt(command.at),
      previousExpiresAt: state.expiresAt,
      at: command.at,
    }),
  ];
}

function depositCash(command: CommandOf<'DepositCash'>, state: ExistingCashIn): CashInEvent[] {
  const { record } = state;
  const { cashInId, projectId } = record;
  requireAmount(command.amount, 'amount', { asset: CASH_ASSET });
  requirePending(state, command.at, 'deposited');
  if (command.code !== undefined && command.code !== state.code) {
    throw new ApiError(
      'DepositCodeMismatch',
      `the code is not cash-in ${cashInId}'s current code (a refresh voids the previous one)`,
    );
  }
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

/** The code's timer: a cash-in still pending once its code lapsed expires; any other (or none of this project) stays as it is. */
function expireCashIn(command: CommandOf<'ExpireCashIn'>, state: CashInState): CashInEvent[] {
  if (state.status === 'none' || state.record.projectId !== command.projectId) return [];
  if (statusAt(state, command.at) !== 'expired' || state.status !== 'pending') return [];
  return [
    event('cashIn.expired', {
      cashInId: state.record.cashInId,
      projectId: state.record.projectId,
      expiredAt: state.expiresAt,
    }),
  ];
}

function decide(command: CashInCommand, state: CashInState): CashInEvent[] {
  switch (command.type) {
    case 'CreateCashIn':
      return createCashIn(command, state);
    case 'RefreshCode':
      return refreshCode(command, requireCashIn(state, command.projectId));
    case 'DepositCash':
      return depositCash(command, requireCashIn(state, command.projectId));
    case 'ExpireCashIn':
      return expireCashIn(command, state);
    default:
      return unknownCommand(command);
  }
}

/** Unreachable while the switch above is exhaustive (the compiler checks it); a caller's bug at run time. */

export const cashInDecider: Decider<CashInCommand, CashInEvent, CashInState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const cashInStreamId = (cashInId: string) => `cashIn-${cashInId}`;
