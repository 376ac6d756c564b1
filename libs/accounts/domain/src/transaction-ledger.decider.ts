// The ledger side of one transaction (ADR 0019): the postings between ledger
// accounts that are not wallets (transit, conversion, rails), each applied once,
// and the refund's return to its wallet, announced once.
import type { EventPayloads, TypedEvent } from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type TransactionLedgerEvent = TypedEvent<'ledger.posted' | 'funds.returned'>;

export type TransactionLedgerCommand =
  | { type: 'Post'; posting: EventPayloads['ledger.posted'] }
  | { type: 'AnnounceReturn'; returned: EventPayloads['funds.returned'] };

/** No 'none' case: a ledger stream with no events is one that has posted nothing and announced no return. */
export interface TransactionLedgerState {
  postings: string[];
  returned: boolean;
}

function evolve(state: TransactionLedgerState, event: TransactionLedgerEvent): TransactionLedgerState {
  switch (event.type) {
    case 'ledger.posted':
      return { ...state, postings: [...state.postings, event.data.postingId] };
    case 'funds.returned':
      return { ...state, returned: true };
    default:
      return unknownEvent(event, state);
  }
}

type CommandOf<T extends TransactionLedgerCommand['type']> = Extract<TransactionLedgerCommand, { type: T }>;

/** Each posting id once, so a redelivered step posts nothing twice. */
function post({ posting }: CommandOf<'Post'>, state: TransactionLedgerState): TransactionLedgerEvent[] {
  return state.postings.includes(posting.postingId) ? [] : [{ type: 'ledger.posted', data: posting }];
}

function announceReturn(
  { returned }: CommandOf<'AnnounceReturn'>,
  state: TransactionLedgerState,
): TransactionLedgerEvent[] {
  return state.returned ? [] : [{ type: 'funds.returned', data: returned }];
}

function decide(command: TransactionLedgerCommand, state: TransactionLedgerState): TransactionLedgerEvent[] {
  switch (command.type) {
    case 'Post':
      return post(command, state);
    case 'AnnounceReturn':
      return announceReturn(command, state);
    default:
      return unknownCommand(command);
  }
}

export const transactionLedgerDecider: Decider<
  TransactionLedgerCommand,
  TransactionLedgerEvent,
  TransactionLedgerState
> = {
  initialState: () => ({ postings: [], returned: false }),
  evolve,
  decide,
};

export const transactionLedgerStreamId = (transactionId: string) => `ledger-${transactionId}`;
