// USDC that reaches a custodial wallet's address on a chain credits the wallet (spec: Wallet; docs/chain.md):
// one chain watcher per network on a chain hands over each confirmed transfer, and a transfer to a wallet's
// address becomes a posting from the network's rail account, keyed by the chain's own identifiers (chain id,
// transaction hash, log index), so a transfer read twice, or again after a restart, credits once.
import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { railAccount } from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import {
  ChainNetworks,
  ChainWatcher,
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
  private readonly watchers = new Map<string, ChainWatcher>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly chains: ChainNetworks,
    private readonly readModels: AccountsReadModels,
    private readonly wallets: WalletsService,
    private readonly clock: ProjectClock,
    private readonly config: PlatformConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const network of this.chains.onChain) {
      const watcher = new ChainWatcher(
        this.uow,
        this.chains.client(network)!,
        WALLETS_READER,
        (transfers) => this.credit(network, transfers),
        this.config.MM_CHAIN_POLL_INTERVAL_MS,
      );
      await watcher.start();
      this.watchers.set(network, watcher);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const watcher of this.watchers.values()) await watcher.stop();
  }

  /** Where the network's watcher stands; undefined for a simulated network. */
  status(network: string): Promise<WatcherStatus> | undefined {
    return this.watchers.get(network)?.status();
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
