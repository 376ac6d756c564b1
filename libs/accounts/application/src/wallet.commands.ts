// The wallet aggregate's command path for its provisioning (ARCHITECTURE: Inside one service): the wallet's
// read model row, then wallet.provisioned to partners (spec: Wallet; Events / Catalog). Its postings take the
// wallet's own path (WalletsService.post): they read the stream's first and last events and the ledger's key,
// not the whole history this path folds.
import { Injectable } from '@nestjs/common';
import { walletDecider, walletStreamId, type WalletCommand, type WalletEvent, type WalletState } from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import { CommandHandler, type RecordedEvent } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts-event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';

@Injectable()
export class WalletCommands extends CommandHandler<WalletCommand, WalletEvent, WalletState> {
  constructor(store: AccountsEventStore, readModels: AccountsReadModels, partnerEvents: AccountsPartnerEvents) {
    super(store, {
      decider: walletDecider,
      streamId: walletStreamId,
      project: (event) => projectWallet(readModels, event),
      then: [({ events }) => partnerEvents.publish(events)],
    });
  }
}

async function projectWallet(readModels: AccountsReadModels, event: RecordedEvent & WalletEvent): Promise<void> {
  switch (event.type) {
    case 'wallet.provisioned': {
      const d = event.data;
      return readModels.insertWallet({ id: d.walletId, project_id: d.projectId, customer_id: d.customerId, asset: d.asset, network: d.network, address: d.address, at: d.createdAt });
    }
    default:
      throw new Error(`${event.type} is posted by WalletsService.post, not projected here`);
  }
}
