// The chain as a payout rail (ARCHITECTURE: providers; docs/chain.md): a crypto payout to an external wallet, or
// a deposit address deposit's return, on a network that runs on a chain is an ERC-20 transfer from the network's
// treasury (the chain sender): submitted in the transaction that initiates the leg, its outcome reported once the
// transfer has the confirmations. The same sender sweeps derived addresses into the treasury (chain-sweeper). Legs to custodial wallets stay in the ledger (the wallet's balance is the
// platform's to keep), and every other rail is simulated (SandboxRails).
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { TransactionCreated } from '@mm/contracts';
import { ChainNetworks, ChainSender, ChainSweeper, type PayoutLookup, type PayoutOutcome } from '@mm/platform/chain';
import { PlatformConfig, type ChainNetwork } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import type { NewLeg } from '@mm/transactions/domain';

/** What the rail reports of a payout: where it belongs, and the transfer that landed (or that none has yet). */
export type ChainPayoutReport = { projectId: string; transactionId: string; legId: string } & (
  { kind: 'confirmed' | 'reverted'; txHash: string } | { kind: 'unconfirmed' }
);

@Injectable()
export class ChainPayoutRail implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly senders = new Map<string, ChainSender>();
  private readonly sweepers: ChainSweeper[] = [];
  private sweeping?: NodeJS.Timeout;
  private readonly sweepEveryMs: number;
  private reported?: (report: ChainPayoutReport) => Promise<void>;
  private readonly logger = new Logger('chain-sweeper');

  constructor(uow: UnitOfWork, chains: ChainNetworks, config: PlatformConfig) {
    for (const client of chains.clientsOnChain) {
      const sender = new ChainSender(uow, client, chains.custody(), (outcome) => this.report(outcome), {
        pollMs: config.MM_CHAIN_POLL_INTERVAL_MS,
        replaceAfterMs: config.MM_CHAIN_REPLACE_AFTER_SECONDS * 1000,
      });
      this.senders.set(client.network, sender);
      // The treasury's sender also makes the sweeps that refill it (one owner of the treasury's nonces).
      this.sweepers.push(
        new ChainSweeper(
          uow,
          client,
          chains.custody(),
          chains.registry,
          sender,
          config.MM_CHAIN_SWEEP_THRESHOLD,
          chains.metrics,
        ),
      );
    }
    // Each pass reads every derived address's balance: ten polls apart, at least a second.
    this.sweepEveryMs = Math.max(1000, config.MM_CHAIN_POLL_INTERVAL_MS * 10);
  }

  /** Who records what the rail reports (the transactions' command path); set once, at start-up. */
  onReport(handler: (report: ChainPayoutReport) => Promise<void>): void {
    this.reported = handler;
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const sender of this.senders.values()) await sender.start();
    if (this.sweepers.length > 0) this.sweepSoon();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweeping) clearTimeout(this.sweeping);
    this.sweeping = undefined;
    this.sweepers.length = 0;
    for (const sender of this.senders.values()) await sender.stop();
  }

  private sweepSoon(): void {
    this.sweeping = setTimeout(async () => {
      for (const sweeper of this.sweepers)
        await sweeper.step().catch((error: unknown) => this.logger.warn(`sweeping failed, trying again: ${error}`));
      if (this.sweepers.length > 0) this.sweepSoon();
    }, this.sweepEveryMs);
  }

  /** Whether this leg goes on a chain: a crypto transfer to an address outside custody, on a network on a chain. */
  carries(record: TransactionCreated, leg: NewLeg): boolean {
    return leg.rail === 'crypto' && this.senders.has(leg.network) && chainRecipient(record, leg) !== undefined;
  }

  /** Queues the transfer in the caller's transaction (the leg's initiation). */
  async submit(projectId: string, record: TransactionCreated, leg: NewLeg): Promise<void> {
    await this.senders.get(leg.network)!.submit({
      id: leg.id,
      purpose: leg.kind === 'refund' ? 'return' : 'payout',
      network: leg.network as ChainNetwork,
      to: chainRecipient(record, leg)!,
      amount: leg.amount,
      context: { projectId, transactionId: record.transactionId },
    });
  }

  /** What the network's sender holds of the leg's transfer now (the sweep's and the operators' lookup). */
  lookup(leg: NewLeg): Promise<PayoutLookup> {
    return this.senders.get(leg.network)!.lookup(leg.id);
  }

  private async report(outcome: PayoutOutcome): Promise<void> {
    // A sweep and its gas stay within custody: no leg waits on them.
    if (outcome.purpose !== 'payout' && outcome.purpose !== 'return') return;
    if (!this.reported) throw new Error('nobody records the chain payout rail yet');
    const leg = {
      projectId: outcome.context.projectId,
      transactionId: outcome.context.transactionId,
      legId: outcome.id,
    };
    await this.reported(
      outcome.kind === 'unconfirmed'
        ? { ...leg, kind: 'unconfirmed' }
        : { ...leg, kind: outcome.kind, txHash: outcome.txHash },
    );
  }
}

/**
 * The address outside custody a crypto leg pays, or undefined where the leg stays in the ledger: a payout to an
 * external wallet; a deposit address deposit's return, to its return destination or back to its sender. A refund
 * to a custodial wallet (the source of a wallet's transaction) is the platform's own to keep.
 */
function chainRecipient(record: TransactionCreated, leg: NewLeg): string | undefined {
  const address = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  if (leg.kind === 'payout')
    return record.destination.type === 'walletExternal' ? address(record.destination.details.address) : undefined;
  if (leg.kind === 'refund' && record.precursor.type === 'depositAddress')
    return address(record.returnTo?.address) ?? address(record.source.details.address);
  return undefined;
}
