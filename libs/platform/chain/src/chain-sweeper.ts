// Sweeps (docs/chain.md, Sweeps): USDC that reached a derived address (a wallet's, a deposit address's) stays
// there until swept to the network's treasury, which pays every payout. A derived address holding at least
// MM_CHAIN_SWEEP_THRESHOLD is swept whole, in two transfers the chain sender makes as it makes payouts (nonces
// from PostgreSQL, signatures kept before they are sent, replaced when stuck):
//   gas    the treasury sends the address the native currency for one token transfer at twice today's fees,
//          when it has less;
//   sweep  the address sends its tokens to the treasury, once it has the gas.
// Both stay within custody: the ledger owes the customers the same, and the chain holds the same in custody
// (the reconciliation sums the treasury and every derived address), so neither is a ledger entry. One pass at
// a time per network across processes (an advisory lock), and an address with a gas or sweep transfer still
// under way is left to it.
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import type { ChainClient } from './chain-client';
import { TRANSFER_GAS, type ChainSender } from './chain-sender';
import type { CustodySigner } from './custody';
import type { CustodyRegistry } from './custody-registry';
import { viem, type Address } from './viem';

export class ChainSweeper {
  private readonly logger: Logger;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly client: ChainClient,
    private readonly custody: CustodySigner,
    private readonly registry: CustodyRegistry,
    private readonly sender: ChainSender,
    /** Decimal units of the token: an address holding less is left as it is. */
    private readonly threshold: string,
  ) {
    this.logger = new Logger(`chain-sweeper ${client.network}`);
  }

  /** One pass over the network's derived addresses: what each needs next (gas, or its sweep) queued. */
  async step(): Promise<void> {
    const network = this.client.network;
    const decimals = await this.client.decimals();
    const least = viem.parseUnits(this.threshold, decimals);
    const treasury = this.custody.address(this.custody.treasury(network));
    await this.uow.run(async () => {
      const [{ locked }] = await this.uow.query<{ locked: boolean }>(
        `SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`,
        [`chain-sweeper:${network}`],
      );
      if (!locked) return;
      for (const entry of await this.registry.derived(network)) {
        const address = entry.address as Address;
        const balance = await this.client.balanceOf(address);
        if (balance < least || (await this.underWay(address))) continue;
        const fees = await this.client.client.estimateFeesPerGas();
        const gas = TRANSFER_GAS * fees.maxFeePerGas * 2n;
        if ((await this.client.client.getBalance({ address })) < gas) {
          await this.sender.submit({
            id: `gas_${randomUUID()}`,
            purpose: 'gas',
            network,
            to: address,
            amount: viem.formatEther(gas),
            asset: 'native',
            context: { address },
          });
          continue;
        }
        const amount = viem.formatUnits(balance, decimals);
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
      }
    });
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
