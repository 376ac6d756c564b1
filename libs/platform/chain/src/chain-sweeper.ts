// Sweeps (docs/chain.md, Sweeps): USDC that reached a derived address (a wallet's, a deposit address's) stays
// there until swept to the network's treasury, which pays every payout. A derived address holding at least
// MM_CHAIN_SWEEP_THRESHOLD is swept whole, in two transfers the chain sender makes as it makes payouts (nonces
// from PostgreSQL, signatures kept before they are sent, replaced when stuck):
//   gas    the treasury sends the address the native currency for one token transfer at twice today's fees,
//          when it has less;
//   sweep  the address sends its tokens to the treasury, once it has the gas.
// Both stay within custody: the ledger owes the customers the same, and the chain holds the same in custody
// (the reconciliation sums the treasury and every derived address), so neither is a ledger entry. One address's
// next step is queued by one process at a time (an advisory lock), and an address with a gas or sweep
// transfer still under way is left to it. A pass looks only at the addresses that may need it: those the token's
// Transfer logs paid since the last pass (read again a few blocks back, as a reorganisation may have rewritten
// them), and those found at the threshold and not yet swept; a process's first pass looks at every address.
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import type { ChainClient } from './chain-client';
import type { ChainMetrics } from './chain-metrics';
import { TRANSFER_GAS, type ChainSender } from './chain-sender';
import type { CustodySigner } from './custody';
import type { CustodyRegistry } from './custody-registry';
import { viem, type Address } from './viem';

/** Blocks read in one log query at most: public nodes cap a log query's range. */
const MAX_RANGE = 500n;

export class ChainSweeper {
  private readonly logger: Logger;
  /** The first block the next pass has not read the logs of; none before this process's first pass. */
  private unread?: bigint;
  /** Addresses found at the threshold and not swept yet (their gas first, a transfer under way): looked at each pass. */
  private readonly waiting = new Set<string>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly client: ChainClient,
    private readonly custody: CustodySigner,
    private readonly registry: CustodyRegistry,
    private readonly sender: ChainSender,
    /** Decimal units of the token: an address holding less is left as it is. */
    private readonly threshold: string,
    /** The process's chain figures (docs/chain.md, Metrics): its passes and what they sweep. */
    private readonly metrics?: ChainMetrics,
  ) {
    this.logger = new Logger(`chain-sweeper ${client.network}`);
  }

  /**
   * One pass over the derived addresses that may need it: what each needs next (gas, or its sweep) queued. The
   * chain is read outside any database transaction; each address's decision and queueing is one short transaction
   * under a lock of its own, so two processes never queue the same address's next step twice.
   */
  async step(): Promise<void> {
    const network = this.client.network;
    const decimals = await this.client.decimals();
    const least = viem.parseUnits(this.threshold, decimals);
    const treasury = this.custody.address(this.custody.treasury(network));
    const { paid, next } = await this.paidSinceLastPass();
    let gas: bigint | undefined;
    for (const entry of await this.registry.derived(network)) {
      const address = entry.address as Address;
      const key = address.toLowerCase();
      if (paid && !paid.has(key) && !this.waiting.has(key)) continue;
      const balance = await this.client.balanceOf(address);
      if (balance < least) {
        this.waiting.delete(key);
        continue;
      }
      // Until its sweep is queued: looked at again next pass, whatever the logs say.
      this.waiting.add(key);
      // Today's fees, asked once a pass and only when some address is to be swept.
      gas ??= TRANSFER_GAS * (await this.client.client.estimateFeesPerGas()).maxFeePerGas * 2n;
      const needsGas = (await this.client.client.getBalance({ address })) < gas;
      const amount = viem.formatUnits(balance, decimals);
      await this.uow.run(async () => {
        const [{ locked }] = await this.uow.query<{ locked: boolean }>(
          `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`,
          [`chain-sweeper:${network}:${address}`],
        );
        if (!locked || (await this.underWay(address))) return;
        if (needsGas) {
          await this.sender.submit({
            id: `gas_${randomUUID()}`,
            purpose: 'gas',
            network,
            to: address,
            amount: viem.formatEther(gas!),
            asset: 'native',
            context: { address },
          });
          return;
        }
        await this.sender.submit({
          id: `sweep_${randomUUID()}`,
          purpose: 'sweep',
          network,
          to: treasury,
          amount,
          from: { purpose: entry.purpose, index: entry.index },
          context: { address },
        });
        this.logger.log(`sweeping ${amount} from ${address} to the treasury`);
        // Once committed: a queueing rolled back moved nothing.
        await this.uow.afterCommit(async () => this.metrics?.sweepQueued(network, amount));
      });
    }
    // Only once the whole pass is done: a pass that fails part way (a node's error, the database's) leaves the
    // addresses it had not looked at to the next, which reads the same logs again (or every address, if first).
    this.unread = next;
    this.metrics?.sweepPassed(network, new Date());
  }

  /**
   * The addresses (lower case) the token's Transfer logs paid since the last pass, from as many blocks before it as
   * the network's confirmations (a reorganisation may have rewritten them) up to the head; undefined on a process's
   * first pass, which looks at every address. `next` is where the pass after this one reads from.
   */
  private async paidSinceLastPass(): Promise<{ paid?: Set<string>; next: bigint }> {
    const head = await this.client.head();
    const first = this.unread;
    if (first === undefined) return { next: head + 1n };
    const back = BigInt(this.client.settings.confirmations);
    const paid = new Set<string>();
    for (let from = first > back ? first - back : 0n; from <= head; from += MAX_RANGE) {
      const to = from + MAX_RANGE - 1n < head ? from + MAX_RANGE - 1n : head;
      for (const transfer of await this.client.transfers(from, to)) paid.add(transfer.to.toLowerCase());
    }
    return { paid, next: head + 1n };
  }

  /** Whether a gas transfer to the address, or a sweep from it, is queued or sent and not yet landed. */
  private async underWay(address: string): Promise<boolean> {
    const rows = await this.uow.query(
      `SELECT 1 FROM platform.chain_payouts
        WHERE network = $1 AND status IN ('queued', 'sent')
          AND ((purpose = 'sweep' AND from_address = $2) OR (purpose = 'gas' AND to_address = $2))
        LIMIT 1`,
      [this.client.network, address],
    );
    return rows.length > 0;
  }
}
