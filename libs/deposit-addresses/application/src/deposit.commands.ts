// A deposit's command path (ARCHITECTURE: Inside one service): its stream's events only; the address's read
// model of its deposits is written by the use case that received or attributed it, beside the address's own.
import { Injectable } from '@nestjs/common';
import {
  depositDecider,
  depositStreamId,
  type DepositCommand,
  type DepositEvent,
  type DepositState,
} from '@mm/deposit-addresses/domain';
import { CommandHandler } from '@mm/platform/event-store';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';

@Injectable()
export class DepositCommands extends CommandHandler<DepositCommand, DepositEvent, DepositState> {
  constructor(store: DepositAddressesEventStore) {
    super(store, { decider: depositDecider, streamId: depositStreamId });
  }
}
