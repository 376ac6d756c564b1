// The ledger side of one transaction's command path (ARCHITECTURE: Inside one service; ADR 0019): each
// posting's entries land in the ledger as it is appended; funds.returned has no read model of its own here.
import { Injectable } from '@nestjs/common';
import {
  transactionLedgerDecider,
  transactionLedgerStreamId,
  type TransactionLedgerCommand,
  type TransactionLedgerEvent,
  type TransactionLedgerState,
} from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import { CommandHandler } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts.event-store';

@Injectable()
export class TransactionLedgerCommands extends CommandHandler<
  TransactionLedgerCommand,
  TransactionLedgerEvent,
  TransactionLedgerState
> {
  constructor(store: AccountsEventStore, readModels: AccountsReadModels) {
    super(store, {
      decider: transactionLedgerDecider,
      streamId: transactionLedgerStreamId,
      project: async (event) => {
        if (event.type === 'ledger.posted') await readModels.applyLedgerPosting(event.data);
      },
    });
  }
}
