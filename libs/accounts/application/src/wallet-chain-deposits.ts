// USDC that reaches a custodial wallet's address on a chain credits the wallet (spec: Wallet; docs/chain.md),
// and USDC that reaches the treasury from outside custody is posted as the operator's float:
// one chain watcher per network on a chain hands over each confirmed transfer, and a transfer to a wallet's
// address becomes a posting from the network's rail account, keyed by the chain's own identifiers (chain id,
// transaction hash, log index), so a transfer read twice, or again after a restart, credits once.
import { Injectable } from '@nestjs/common';
import { OPERATOR_LEDGER_PROJECT, operatorFloatAccount, railAccount } from '@mm/accounts/domain';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import { ChainNetworks, ChainTransferReader, transferKey, type ConfirmedTransfer } from '@mm/platform/chain';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig, type ChainNetwork } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { toAmount } from '@mm/platform/money';
import { TransactionLedgerCommands } from './transaction-ledger.commands';
import { WalletsService } from './wallets.service';

/** The watchers' cursor name for custodial wallets. */
export const WALLETS_READER = 'accounts.wallets';

@Injectable()
export class WalletChainDeposits extends ChainTransferReader {
  constructor(
    uow: UnitOfWork,
    private readonly chains: ChainNetworks,
    private readonly readModels: AccountsReadModels,
    private readonly wallets: WalletsService,
    private readonly clock: ProjectClock,
    private readonly ledger: TransactionLedgerCommands,
    config: PlatformConfig,
  ) {
    super(uow, chains, config, WALLETS_READER);
  }

  /** In the transaction that moves the watcher's cursor past these transfers. */
  protected async read(network: string, moving: ConfirmedTransfer[]): Promise<void> {
    const wallets = await this.readModels.walletsAt(network, [...new Set(moving.map((t) => t.to))]);
    const byAddress = new Map(wallets.map((w) => [w.address.toLowerCase(), w]));
    const treasury = this.chains.custody().address(this.chains.custody().treasury(network as ChainNetwork));
    const intoTreasury = moving.filter((t) => t.to.toLowerCase() === treasury.toLowerCase());
    const fromCustody = await this.chains.registry.derivedAmong(
      network,
      intoTreasury.map((t) => t.from),
    );
    for (const transfer of moving) {
      if (intoTreasury.includes(transfer) && !fromCustody.has(transfer.from.toLowerCase())) {
        await this.operatorFloat(network, transfer);
        continue;
      }
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

  /**
   * USDC that reached the treasury from outside custody is the operator's own (a top-up of its float): posted
   * from the network's rail account, so that the ledger accounts for every token the chain holds.
   */
  private async operatorFloat(network: string, transfer: ConfirmedTransfer): Promise<void> {
    const key = transferKey(transfer);
    await this.ledger.handle(OPERATOR_LEDGER_PROJECT, `float:${key}`, {
      type: 'Post',
      posting: {
        projectId: OPERATOR_LEDGER_PROJECT,
        transactionId: `float:${key}`,
        postingId: key,
        asset: 'usdc',
        entries: [
          { account: railAccount('usdc', network), amount: toAmount(`-${transfer.amount}`, 18) },
          { account: operatorFloatAccount('usdc', network), amount: toAmount(transfer.amount, 18) },
        ],
        reason: `treasury top-up ${transfer.transactionHash}`,
        at: new Date().toISOString(),
      },
    });
  }
}
