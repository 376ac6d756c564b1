// GET /admin/reconciliation?network= (docs/chain.md, Reconciliation): the ledger against the chain, for one
// network on a chain, at the node's head H. The wallets' watcher has credited what blocks up to C confirm.
//   chainHeld         the token balances at H of the treasury and of every derived address
//   ledgerOwed        what the custodial wallets of the network hold (the customers' USDC)
//   operatorFloat     the rest of what the ledger says came in through the network and did not leave (its rail
//                     account), but for payouts under way: the treasury's float from outside, conversions
//   inFlight          transfers to custody seen in (C, H], not yet credited; payouts and returns signed and
//                     not yet on chain at H (a return leaves the ledger when it starts, a payout when it lands)
//   unexplainedDifference  chainHeld - (ledgerOwed + operatorFloat + inFlight): zero when every movement on the
//                     chain has its ledger entry; otherwise money the books cannot account for
// All decimal strings of the token's six places.
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { railAccount } from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import { ChainNetworks, viem, type Hex } from '@mm/platform/chain';
import { CHAIN_NETWORKS } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { dec, type DecimalValue } from '@mm/platform/money';
import { WalletChainDeposits } from './wallet-chain-deposits';

export interface Reconciliation {
  network: string;
  chainId: number;
  /** The block the chain's figures are read at. */
  atBlock: number;
  /** The last block the ledger has credited (the wallets' watcher). */
  confirmedThrough: number;
  ledgerOwed: string;
  operatorFloat: string;
  inFlight: string;
  chainHeld: string;
  unexplainedDifference: string;
}

/** Balance reads in flight at once. */
const READS = 16;

@Injectable()
export class ChainReconciliation {
  constructor(
    private readonly chains: ChainNetworks,
    private readonly deposits: WalletChainDeposits,
    private readonly readModels: AccountsReadModels,
    private readonly uow: UnitOfWork,
  ) {}

  async reconcile(network: string): Promise<Reconciliation> {
    if (!(CHAIN_NETWORKS as readonly string[]).includes(network))
      throw new ApiError('InvalidRequest', `network: must be one of ${CHAIN_NETWORKS.join(', ')}`);
    const client = this.chains.client(network);
    const watched = await this.deposits.status(network);
    if (!client || !watched)
      throw new ApiError('InvalidRequest', `network: ${network} is simulated: there is no chain to reconcile with`);
    const decimals = await client.decimals();
    const units = (value: bigint) => dec(viem.formatUnits(value, decimals));
    const confirmed = BigInt(watched.confirmedThrough ?? '0');
    const head = await client.head();
    const treasury = this.chains.custody().address(this.chains.custody().treasury(client.network));
    const custody = [treasury, ...(await this.chains.registry.addresses(network))];
    const ours = new Set(custody.map((a) => a.toLowerCase()));

    let chainHeld = dec(0);
    for (let i = 0; i < custody.length; i += READS) {
      const balances = await Promise.all(
        custody.slice(i, i + READS).map((address) => client.balanceOf(address as Hex, head)),
      );
      for (const balance of balances) chainHeld = chainHeld.plus(units(balance));
    }
    // What the chain has in blocks the ledger has not credited yet.
    const recent = head > confirmed ? await client.transfers(confirmed + 1n, head) : [];
    const seen = recent
      .filter((t) => ours.has(t.to.toLowerCase()) && !ours.has(t.from.toLowerCase()))
      .reduce((sum, t) => sum.plus(units(t.value)), dec(0));
    const landed = new Set(recent.map((t) => t.transactionHash.toLowerCase()));
    const pending = await this.pendingTransfers(network);
    const notLanded = (p: PendingTransfer) => !p.hashes.some((h) => landed.has(h.toLowerCase()));
    const sum = (rows: PendingTransfer[]) => rows.reduce((total, p) => total.plus(dec(p.amount)), dec(0));
    const payouts = pending.filter((p) => p.purpose === 'payout');
    const returns = pending.filter((p) => p.purpose === 'return');

    const ledgerOwed = dec(await this.readModels.walletsTotal(network));
    const railIn = dec(await this.readModels.ledgerBalance(railAccount('usdc', network))).neg();
    const operatorFloat = railIn.minus(ledgerOwed).minus(sum(payouts));
    const inFlight = seen.plus(sum(payouts.filter(notLanded))).plus(sum(returns.filter(notLanded)));
    const explained = ledgerOwed.plus(operatorFloat).plus(inFlight);
    const text = (value: DecimalValue) => value.toFixed(decimals);
    const unexplainedDifference = text(chainHeld.minus(explained));
    this.chains.metrics.reconciled(network, unexplainedDifference, new Date());
    return {
      network,
      chainId: await client.chainId(),
      atBlock: Number(head),
      confirmedThrough: Number(confirmed),
      ledgerOwed: text(ledgerOwed),
      operatorFloat: text(operatorFloat),
      inFlight: text(inFlight),
      chainHeld: text(chainHeld),
      unexplainedDifference,
    };
  }

  /** The chain sender's transfers under way on the network (its table, where this database has it). */
  private async pendingTransfers(network: string): Promise<PendingTransfer[]> {
    const [table] = await this.uow.query<{ exists: boolean }>(
      `SELECT to_regclass('platform.chain_payouts') IS NOT NULL AS exists`,
    );
    if (!table.exists) return [];
    const rows = await this.uow.query<{
      purpose: 'payout' | 'return';
      amount: string;
      attempts: Array<{ hash: string }>;
    }>(
      `SELECT purpose, amount::text AS amount, attempts FROM platform.chain_payouts
        WHERE network = $1 AND status IN ('queued', 'sent')`,
      [network],
    );
    return rows.map((r) => ({ purpose: r.purpose, amount: r.amount, hashes: r.attempts.map((a) => a.hash) }));
  }
}

interface PendingTransfer {
  purpose: 'payout' | 'return';
  amount: string;
  hashes: string[];
}
