// USDC that reaches a custodial wallet's address on a chain credits the wallet (spec: Wallet; docs/chain.md):
// one chain watcher per network on a chain hands over each confirmed transfer, and a transfer to a wallet's
// address becomes a posting from the network's rail account, keyed by the chain's own identifiers (chain id,
// transaction hash, log index), so a transfer read twice, or again after a restart, credits once.
import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { railAccount } from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import {
  ChainNetworks,
  NetworkWatchers,
  transferKey,
  type ConfirmedTransfer,
  type WatcherStatus,
} from '@mm/platform/chain';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { WalletsService } from './wallets.service';

/** The watchers' cursor name for custodial wallets. */
export const WALLETS_READER = 'accounts.wallets';

@Injectable()
export class WalletChainDeposits implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly watchers: NetworkWatchers;

  constructor(
    uow: UnitOfWork,
    chains: ChainNetworks,
    private readonly readModels: AccountsReadModels,
    private readonly wallets: WalletsService,
    private readonly clock: ProjectClock,
    config: PlatformConfig,
  ) {
    this.watchers = new NetworkWatchers(
      uow,
      chains.clientsOnChain,
      WALLETS_READER,
      (network, transfers) => this.credit(network, transfers),
      config.MM_CHAIN_POLL_INTERVAL_MS,
    );
  }

  onApplicationBootstrap(): Promise<void> {
    return this.watchers.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.watchers.stop();
  }

  /** Where the network's watcher stands; undefined for a simulated network. */
  status(network: string): Promise<WatcherStatus> | undefined {
    return this.watchers.status(network);
  }
  /** In the transaction that moves the watcher's cursor past these transfers. */
  private async credit(network: string, transfers: ConfirmedTransfer[]): Promise<void> {
    // A transfer of nothing moves nothing (ERC-20 allows it; a posting must be greater than zero).
    const moving = transfers.filter((t) => Number(t.amount) > 0);
    if (moving.length === 0) return;
    const wallets = await this.readModels.walletsAt(network, [...new Set(moving.map((t) => t.to))]);
    const byAddress = new Map(wallets.map((w) => [w.address.toLowerCase(), w]));
    for (const transfer of moving) {
      const wallet = byAddress.get(transfer.to.toLowerCase());
      if (!wallet) continue;
      const at = (await this.clock.now(wallet.project_id)).toISOString();
      await this.wallets.creditFromLedger(
        wallet.project_id,
        wallet.id,
        transferKey(transfer),
        transfer.amount,
        railAccount('usdc', network),
        `on-chain deposit ${transfer.transactionHash}`,
        at,
      );
    }
  }
}
