// The chain as a payout rail (ARCHITECTURE: providers; docs/chain.md): a crypto payout to an external wallet, or
// a deposit address deposit's return, on a network that runs on a chain is an ERC-20 transfer from the network's
// treasury (the chain sender): submitted in the transaction that initiates the leg, its outcome reported once the
// transfer has the confirmations. Legs to custodial wallets stay in the ledger (the wallet's balance is the
// platform's to keep), and every other rail is simulated (SandboxRails).
import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { TransactionCreated } from '@mm/contracts';
import { ChainNetworks, ChainSender, type PayoutLookup, type PayoutOutcome } from '@mm/platform/chain';
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
  private reported?: (report: ChainPayoutReport) => Promise<void>;

  constructor(uow: UnitOfWork, chains: ChainNetworks, config: PlatformConfig) {
    for (const client of chains.clientsOnChain)
      this.senders.set(
        client.network,
        new ChainSender(uow, client, chains.custody(), (outcome) => this.report(outcome), {
          pollMs: config.MM_CHAIN_POLL_INTERVAL_MS,
          replaceAfterMs: config.MM_CHAIN_REPLACE_AFTER_SECONDS * 1000,
        }),
      );
  }

  /** Who records what the rail reports (the transactions' command path); set once, at start-up. */
  onReport(handler: (report: ChainPayoutReport) => Promise<void>): void {
    this.reported = handler;
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const sender of this.senders.values()) await sender.start();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const sender of this.senders.values()) await sender.stop();
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
