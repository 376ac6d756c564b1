import { Injectable } from '@nestjs/common';
import { ApiError, SANDBOX_FX_FROM_USD, SANDBOX_MAX_FUNDING, WALLET_NETWORKS, type PullFundsRequest, type PullFundsResult } from '@mm/contracts';
import { customerBalance, sandboxFundingAccount, transactionPostingId, transitAccount, walletDecider, walletStreamId, type CustomerBalance, type WalletCommand, type WalletEvent } from '@mm/accounts/domain';
import { AccountsReadModels, CustodianProvider, type WalletRow } from '@mm/accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { decideAndAppend, runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { dec } from '@mm/platform/money';
import { AccountsEventStore } from './accounts-event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';
import { CustomersService } from './customers.service';

@Injectable()
export class WalletsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AccountsEventStore,
    private readonly readModels: AccountsReadModels,
    private readonly customers: CustomersService,
    private readonly custodian: CustodianProvider,
    private readonly clock: ProjectClock,
    private readonly partnerEvents: AccountsPartnerEvents,
  ) {}

  async require(projectId: string, walletId: string): Promise<WalletRow> {
    if (!isId('wallet', walletId)) throw new ApiError('InvalidWalletID', `"${walletId.slice(0, 64)}" is not a wallet id (wlt_…)`);
    const row = await this.readModels.wallet(projectId, walletId);
    if (!row) throw new ApiError('WalletNotFound');
    return row;
  }

  async create(projectId: string, customerId: string, asset: string, network: string): Promise<WalletRow> {
    // Own keys only: an asset named like an Object.prototype member (__proto__, constructor) is no asset.
    if (!Object.hasOwn(WALLET_NETWORKS, asset) || !WALLET_NETWORKS[asset].includes(network)) {
      const offered = Object.entries(WALLET_NETWORKS).flatMap(([a, ns]) => ns.map((n) => `${a} on ${n}`));
      throw new ApiError('UnsupportedAssetNetwork', `custodial wallets are offered for ${offered.join(', ')}`);
    }
    const walletId = newId('wallet');
    return runCommand(this.uow, async () => {
      await this.customers.require(projectId, customerId);
      const address = await this.custodian.provisionAddress(asset, network);
      const at = (await this.clock.now(projectId)).toISOString();
      await this.execute(walletId, { type: 'ProvisionWallet', walletId, projectId, customerId, asset, network, address, at }, projectId);
      return (await this.readModels.wallet(projectId, walletId))!;
    });
  }

  /** Sandbox: credit the wallet from the sandbox funding account of its asset. */
  async fund(projectId: string, walletId: string, amount: string): Promise<WalletRow> {
    if (dec(amount).gt(SANDBOX_MAX_FUNDING)) throw new ApiError('InvalidAmount', `at most ${SANDBOX_MAX_FUNDING} per funding`);
    return runCommand(this.uow, async () => {
      const wallet = await this.require(projectId, walletId);
      const at = (await this.clock.now(projectId)).toISOString();
      await this.execute(
        walletId,
        { type: 'CreditWallet', postingId: newId('posting'), amount, counterAccount: sandboxFundingAccount(wallet.asset, wallet.network), reason: 'sandbox funding', at },
        projectId,
      );
      return (await this.readModels.wallet(projectId, walletId))!;
    });
  }

  /**
   * The funds port (ADR 0019): moves a transaction's amount from the wallet to the transaction's
   * transit account, once per transaction however often it is asked; InsufficientFunds otherwise.
   */
  async pullFunds(projectId: string, request: PullFundsRequest): Promise<PullFundsResult> {
    return runCommand(this.uow, async () => {
      const wallet = await this.require(projectId, request.walletId);
      const postingId = transactionPostingId(request.transactionId, 'pull');
      const decision = await this.execute(
        wallet.id,
        { type: 'DebitWallet', postingId, amount: request.amount, counterAccount: transitAccount(request.transactionId), reason: `transaction ${request.transactionId}`, at: request.at },
        projectId,
      );
      return { postingId, balance: decision.state.status === 'provisioned' ? decision.state.balance : '0' };
    });
  }

  /** A ledger movement into a wallet (a transaction's payout or refund); once per posting id. */
  async creditFromLedger(projectId: string, walletId: string, postingId: string, amount: string, counterAccount: string, reason: string, at: string): Promise<void> {
    await this.execute(walletId, { type: 'CreditWallet', postingId, amount, counterAccount, reason, at }, projectId);
  }

  async customerBalance(projectId: string, customerId: string, currencyCode = 'USD'): Promise<CustomerBalance> {
    const currency = currencyCode.toUpperCase();
    const rate = SANDBOX_FX_FROM_USD[currency];
    if (!/^[A-Z]{3}$/.test(currency) || !rate) {
      throw new ApiError('UnsupportedCurrency', `estimatedBalanceCurrencyCode must be one of ${Object.keys(SANDBOX_FX_FROM_USD).join(', ')}`);
    }
    const customer = await this.customers.require(projectId, customerId);
    const wallets = await this.readModels.customerWallets(projectId, customerId);
    const readings = await this.custodian.readBalances(customer, wallets);
    return customerBalance(customerId, readings, currency, rate);
  }

  private async execute(walletId: string, command: WalletCommand, projectId: string) {
    const decision = await decideAndAppend(this.store, walletStreamId(walletId), walletDecider, command, { projectId }, (event) => this.project(event));
    await this.partnerEvents.publish(decision.events);
    return decision;
  }

  private async project(event: RecordedEvent & WalletEvent): Promise<void> {
    switch (event.type) {
      case 'wallet.provisioned': {
        const d = event.data;
        return this.readModels.insertWallet({ id: d.walletId, project_id: d.projectId, customer_id: d.customerId, asset: d.asset, network: d.network, address: d.address, at: d.createdAt });
      }
      case 'wallet.credited':
      case 'wallet.debited': {
        const d = event.data;
        const wallet = (await this.readModels.wallet(d.projectId, d.walletId))!;
        return this.readModels.applyPosting({ projectId: d.projectId, walletId: d.walletId, postingId: d.postingId, asset: wallet.asset, entries: d.entries, balance: d.balance, reason: d.reason, at: d.at });
      }
    }
  }
}
