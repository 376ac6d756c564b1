// An inbound transfer's own stream (`virtualAccountDeposit-<txn_id>`; spec: Virtual account; ADR 0032): its
// arrival, decided from the account as it was when the transfer came (receiveTransfer: delivered or sent
// back). The account is read under its own lock by the use case and handed to the command.
import type { TypedEvent } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';
import type { VirtualAccountState } from './virtual-account.decider';
import { receiveTransfer, type ReceiveTransfer } from './deposits';

export type DepositEvent = TypedEvent<'virtualAccount.depositReceived'>;

export type DepositCommand = { type: 'ReceiveTransfer'; account: VirtualAccountState; transfer: ReceiveTransfer };

export type DepositState = { status: 'none' } | { status: 'received' };

// One command and one event: nothing for a switch to be exhaustive over.
function evolve(_state: DepositState, _e: DepositEvent): DepositState {
  return { status: 'received' };
}

function decide(command: DepositCommand): DepositEvent[] {
  return [{ type: 'virtualAccount.depositReceived', data: receiveTransfer(command.account, command.transfer) }];
}

export const depositDecider: Decider<DepositCommand, DepositEvent, DepositState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
