// A deposit's own stream (`depositAddressDeposit-<txn_id>`; spec: Deposit address; Transaction, hold; ADR
// 0030): its arrival, decided from the address as it was when the deposit came (receiveDeposit: what becomes
// of it), and, for one held for its sender, the sender's attribution. The address is read under its own lock
// by the use case and handed to the command; the stream itself is written once at each step.
import type { DepositAddressDepositReceived, ExternalAccountView, TypedEvent } from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';
import type { DepositAddressState, ExistingDepositAddress } from './deposit-address.decider';
import { attributeSender, receiveDeposit, type ReceiveDeposit } from './deposits';

export type DepositEvent = TypedEvent<'depositAddress.depositReceived' | 'depositAddress.senderAttributed'>;

export type DepositCommand =
  | { type: 'ReceiveDeposit'; address: DepositAddressState; deposit: ReceiveDeposit }
  | {
      type: 'AttributeSender';
      address: ExistingDepositAddress;
      deposit: { transactionId: string; amount: string };
      account: ExternalAccountView;
      /** One usdc in the destination's currency. */
      rate: string;
      at: string;
    };

export type DepositState =
  | { status: 'none' }
  | { status: 'received'; received: DepositAddressDepositReceived }
  | { status: 'attributed'; received?: DepositAddressDepositReceived };

function evolve(state: DepositState, e: DepositEvent): DepositState {
  switch (e.type) {
    case 'depositAddress.depositReceived':
      return { status: 'received', received: e.data };
    case 'depositAddress.senderAttributed':
      return { status: 'attributed', ...(state.status === 'received' ? { received: state.received } : {}) };
    default:
      return unknownEvent(e, state);
  }
}

function decide(command: DepositCommand): DepositEvent[] {
  switch (command.type) {
    case 'ReceiveDeposit':
      return [{ type: 'depositAddress.depositReceived', data: receiveDeposit(command.address, command.deposit) }];
    case 'AttributeSender':
      return [
        {
          type: 'depositAddress.senderAttributed',
          data: attributeSender(command.address, command.deposit, command.account, command.rate, command.at),
        },
      ];
    default:
      return unknownCommand(command);
  }
}

export const depositDecider: Decider<DepositCommand, DepositEvent, DepositState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};
