// The reconciliation of each network on a chain, run every MM_CHAIN_RECONCILE_INTERVAL_SECONDS so that its metric
// (mm_chain_unexplained_difference_usdc, docs/chain.md) says how the books stand without anyone asking: a
// difference that stays non-zero is money the ledger cannot account for, an alert. A run that fails (the node
// unreachable) leaves the last figure and its time, which then grows stale for the alert on staleness.
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ChainNetworks } from '@mm/platform/chain';
import { PlatformConfig } from '@mm/platform/config';
import { ChainReconciliation } from './chain-reconciliation';

@Injectable()
export class ChainReconciliationWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('chain-reconciliation');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = false;

  constructor(
    private readonly chains: ChainNetworks,
    private readonly reconciliation: ChainReconciliation,
    private readonly config: PlatformConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    // The first run once the watchers have read the chain; an operator's GET /admin/reconciliation records too.
    for (const network of this.chains.onChain) this.schedule(network, this.intervalMs);
  }

  onApplicationShutdown(): void {
    this.running = false;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private schedule(network: string, ms: number): void {
    if (!this.running) return;
    const timer = setTimeout(() => void this.run(network), ms);
    // It never holds a process open that is otherwise done.
    timer.unref();
    this.timers.set(network, timer);
  }

  private async run(network: string): Promise<void> {
    try {
      await this.reconciliation.reconcile(network);
    } catch (error) {
      this.logger.warn(`${network}: reconciling with the chain failed, trying again: ${(error as Error).message}`);
    }
    this.schedule(network, this.intervalMs);
  }

  private get intervalMs(): number {
    return this.config.MM_CHAIN_RECONCILE_INTERVAL_SECONDS * 1000;
  }
}
