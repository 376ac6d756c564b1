// The wallet aggregate's command path (ARCHITECTURE: Inside one service): the wallet's read model row at its
// provisioning, then each posting's ledger entries and the balance after it, then the wallet's events to
// partners (spec: Wallet; Customer balance; Events / Catalog). A posting reads the stream by its first and last
// events (each carries the balance after it), which WalletsService hands the path as the stream's read.
import { Injectable } from '@nestjs/common';
import {
  walletDecider,
  walletStreamId,
  type WalletCommand,
  type WalletEvent,
  type WalletState,
} from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import { CommandHandler, type RecordedEvent } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts.event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';

@Injectable()
export class WalletCommands extends CommandHandler<WalletCommand, WalletEvent, WalletState> {
  constructor(store: AccountsEventStore, readModels: AccountsReadModels, partnerEvents: AccountsPartnerEvents) {
    super(store, {
      decider: walletDecider,
      streamId: walletStreamId,
      project: (event) => projectWallet(readModels, event),
      then: [
        ({ before, events }, { projectId, id }) =>
          applyPostings(readModels, projectId, id, before, events as unknown as Array<RecordedEvent & WalletEvent>),
        ({ events }) => partnerEvents.publish(events),
      ],
    });
  }
}

async function projectWallet(readModels: AccountsReadModels, event: RecordedEvent & WalletEvent): Promise<void> {
  switch (event.type) {
    case 'wallet.provisioned': {
      const d = event.data;
      return readModels.insertWallet({
        id: d.walletId,
        project_id: d.projectId,
        customer_id: d.customerId,
        asset: d.asset,
        network: d.network,
        address: d.address,
        derivation_index: d.derivationIndex ?? null,
        at: d.createdAt,
      });
    }
    case 'wallet.credited':
    case 'wallet.debited':
      // Projected with the wallet's asset, which the event does not repeat: applyPostings.
      return;
  }
}

/** A posting's ledger entries and the balance after it, in the posting's transaction. */
async function applyPostings(
  readModels: AccountsReadModels,
  projectId: string,
  walletId: string,
  before: WalletState,
  events: Array<RecordedEvent & WalletEvent>,
): Promise<void> {
  if (before.status === 'none') return;
  for (const event of events) {
    if (event.type === 'wallet.provisioned') continue;
    const d = event.data;
    await readModels.applyPosting({
      projectId,
      walletId,
      postingId: d.postingId,
      asset: before.asset,
      entries: d.entries,
      balance: d.balance,
      reason: d.reason,
      at: d.at,
    });
  }
}
