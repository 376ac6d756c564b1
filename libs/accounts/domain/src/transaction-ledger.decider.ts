// The ledger side of one transaction (ADR 0019): the postings between ledger
// accounts that are not wallets (transit, conversion, rails), each applied once,
// and the refund's return to its wallet, announced once.
import type { EventPayloads, TypedEvent } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';

export type TransactionLedgerEvent = TypedEvent<'ledger.posted' | 'funds.returned'>;

export type TransactionLedgerCommand =
  | { type: 'Post'; posting: EventPayloads['ledger.posted'] }
  | { type: 'AnnounceReturn'; returned: EventPayloads['funds.returned'] };

export interface TransactionLedgerState {
  postings: string[];
  returned: boolean;
}

export const transactionLedgerDecider: Decider<TransactionLedgerCommand, TransactionLedgerEvent, TransactionLedgerState> = {
  initialState: () => ({ postings: [], returned: false }),
  evolve: (state, event) =>
    event.type === 'ledger.posted' ? { ...state, postings: [...state.postings, event.data.postingId] } : { ...state, returned: true },
  decide: (command, state) => {
    if (command.type === 'Post') return state.postings.includes(command.posting.postingId) ? [] : [{ type: 'ledger.posted', data: command.posting }];
    return state.returned ? [] : [{ type: 'funds.returned', data: command.returned }];
  },
};

export const transactionLedgerStreamId = (transactionId: string) => `ledger-${transactionId}`;
