// An inbound transfer's command path (ARCHITECTURE: Inside one service): its stream's event only; the account's
// read model of its deposits is written by the use case that received it, beside the account's own.
import { Injectable } from '@nestjs/common';
import { CommandHandler } from '@mm/platform/event-store';
import {
  depositDecider,
  depositStreamId,
  type DepositCommand,
  type DepositEvent,
  type DepositState,
} from '@mm/virtual-accounts/domain';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

@Injectable()
export class DepositCommands extends CommandHandler<DepositCommand, DepositEvent, DepositState> {
  constructor(store: VirtualAccountsEventStore) {
    super(store, { decider: depositDecider, streamId: depositStreamId });
  }
}
