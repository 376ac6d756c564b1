import { Injectable } from '@nestjs/common';
import {
  ApiError,
  OPERATION_ENDORSEMENTS,
  requireAmount,
  requireEndorsement,
  SANDBOX_FX_FROM_USD,
  SANDBOX_MAX_FUNDING,
  WALLET_NETWORKS,
  type PullFundsRequest,
  type PullFundsResult,
} from '@mm/contracts';
import {
  customerBalance,
  sandboxFundingAccount,
  transactionPostingId,
  transitAccount,
  walletDecider,
  walletStreamId,
  type CustomerBalance,
  type WalletCommand,
  type WalletEvent,
  type WalletState,
} from '@mm/accounts/domain';
import { AccountsReadModels, CustodianProvider, type WalletRow } from '@mm/accounts/infrastructure';
import { ChainNetworks } from '@mm/platform/chain';
import { ProjectClock } from '@mm/platform/clock';
import { PrefetchKey, UnitOfWork } from '@mm/platform/database';
import { runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { fold } from '@mm/platform/decider';
import { isId, newId } from '@mm/platform/ids';
import { AccountsEventStore } from './accounts.event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';
import { CustomersService } from './customers.service';
import { WalletCommands } from './wallet.commands';

@Injectable()
export class WalletsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: AccountsEventStore,
    private readonly commands: WalletCommands,
    private readonly readModels: AccountsReadModels,
    private readonly customers: CustomersService,
    private readonly custodian: CustodianProvider,
    private readonly clock: ProjectClock,
    private readonly partnerEvents: AccountsPartnerEvents,
    private readonly chains: ChainNetworks,
  ) {}

  async require(projectId: string, walletId: string): Promise<WalletRow> {
    if (!isId('wallet', walletId))
      throw new ApiError('InvalidWalletID', `"${walletId.slice(0, 64)}" is not a wallet id (wlt_…)`);
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
      const customer = await this.customers.require(projectId, customerId);
      // Custody of crypto needs the customer's cryptoCustody endorsement (docs/endorsements.md).
      requireEndorsement(customer, OPERATION_ENDORSEMENTS.custodialWallet, 'a custodial wallet');
      const { address, derivationIndex } = await this.custodian.provisionAddress(asset, network, walletId);
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(
        projectId,
        walletId,
        { type: 'ProvisionWallet', walletId, projectId, customerId, asset, network, address, derivationIndex, at },
        { newStream: true },
      );
      return (await this.readModels.wallet(projectId, walletId))!;
    });
  }

  /**
   * Sandbox: credit the wallet from the sandbox funding account of its asset; on a network that runs on a
   * chain, the faucet sends the amount to the wallet's address instead, and the chain watcher credits it once
   * confirmed (docs/chain.md).
   */
  async fund(
    projectId: string,
    walletId: string,
    amount: string,
  ): Promise<{ wallet: WalletRow; transfer?: { network: string; txHash: string; confirmations: number } }> {
    const wallet = await this.require(projectId, walletId);
    const client = this.chains.client(wallet.network);
    if (!client) return { wallet: await this.fundFromLedger(projectId, walletId, amount) };
    requireAmount(amount, 'amount', { asset: wallet.asset, max: SANDBOX_MAX_FUNDING });
    const faucet = this.chains.faucet(wallet.network);
    if (!faucet)
      throw new ApiError(
        'Conflict',
        `${wallet.network} runs on a chain without a sandbox faucet (MM_CHAIN_${wallet.network.toUpperCase()}_FAUCET_PRIVATE_KEY): send test USDC to the wallet's address ${wallet.address}`,
      );
    const txHash = await faucet.send(wallet.address, amount);
    return { wallet, transfer: { network: wallet.network, txHash, confirmations: client.settings.confirmations } };
  }

  private async fundFromLedger(projectId: string, walletId: string, amount: string): Promise<WalletRow> {
    return runCommand(this.uow, async () => {
      const wallet = await this.require(projectId, walletId);
      // The wallet's asset decides the decimal places; the request's validation checked the rest (ADR 0023).
      requireAmount(amount, 'amount', { asset: wallet.asset, max: SANDBOX_MAX_FUNDING });
      const at = (await this.clock.now(projectId)).toISOString();
      await this.post(
        walletId,
        {
          type: 'CreditWallet',
          postingId: newId('posting'),
          amount,
          counterAccount: sandboxFundingAccount(wallet.asset, wallet.network),
          reason: 'sandbox funding',
          at,
        },
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
    if (!isId('wallet', request.walletId))
      throw new ApiError('InvalidWalletID', `"${String(request.walletId).slice(0, 64)}" is not a wallet id (wlt_…)`);
    return runCommand(this.uow, async () => {
      const postingId = transactionPostingId(request.transactionId, 'pull');
      const decision = await this.post(
        request.walletId,
        {
          type: 'DebitWallet',
          postingId,
          amount: request.amount,
          counterAccount: transitAccount(request.transactionId),
          reason: `transaction ${request.transactionId}`,
          at: request.at,
        },
        projectId,
      );
      return { postingId, balance: decision.state.status === 'provisioned' ? decision.state.balance : '0' };
    });
  }

  /**
   * The funds port's read sent ahead, in one process (the quotes port's in-process adapter, ADR 0054): the
   * wallet's lock, its ends and whether the pull's posting is in the ledger, queued now with whatever the
   * caller is sending, for pullFunds to take later in the same transaction. Does nothing outside a
   * transaction; a wrong or unknown wallet is pullFunds' to refuse.
   */
  preparePull(projectId: string, request: Pick<PullFundsRequest, 'transactionId' | 'walletId'>): void {
    if (!this.uow.inTransaction || !isId('wallet', request.walletId)) return;
    const postingId = transactionPostingId(request.transactionId, 'pull');
    const streamId = walletStreamId(request.walletId);
    // Its failure is the failure of the statements it travelled with, or of pullFunds, which takes it.
    this.uow.prefetch({
      key: aheadKey(request.walletId),
      read: async () => ({ projectId, postingId, ...(await this.readStreamEnds(streamId, postingId)) }),
    });
  }

  /** A ledger movement into a wallet (a transaction's payout or refund); once per posting id. */
  async creditFromLedger(
    projectId: string,
    walletId: string,
    postingId: string,
    amount: string,
    counterAccount: string,
    reason: string,
    at: string,
  ): Promise<void> {
    await this.post(walletId, { type: 'CreditWallet', postingId, amount, counterAccount, reason, at }, projectId);
  }

  async customerBalance(projectId: string, customerId: string, currencyCode = 'USD'): Promise<CustomerBalance> {
    const currency = currencyCode.toUpperCase();
    const rate = SANDBOX_FX_FROM_USD[currency];
    if (!/^[A-Z]{3}$/.test(currency) || !rate) {
      throw new ApiError(
        'UnsupportedCurrency',
        `estimatedBalanceCurrencyCode must be one of ${Object.keys(SANDBOX_FX_FROM_USD).join(', ')}`,
      );
    }
    const { customer, wallets } = await this.customers.requireBalanceHolder(projectId, customerId);
    const readings = await this.custodian.readBalances(customer, wallets);
    return customerBalance(customerId, readings, currency, rate);
  }

  /**
   * A credit or debit. Every event of a wallet carries its balance after it, so its state is its
   * first event and its last, however long its history; a posting already in the ledger is not
   * applied again (the ledger's key, not a list of every posting the wallet ever had).
   */
  private async post(
    walletId: string,
    command: Exclude<WalletCommand, { type: 'ProvisionWallet' }>,
    projectId: string,
  ): Promise<{ state: WalletState }> {
    const streamId = walletStreamId(walletId);
    // The lock, the wallet's ends and whether the posting is in the ledger already: one round trip, or none
    // when they were read ahead for this posting in this transaction (preparePull). Any posting to the wallet
    // makes a read ahead of it stale.
    const sent = this.uow.prefetched(aheadKey(walletId));
    const ahead = sent && (await sent.result);
    const { ends, posted } =
      ahead && ahead.postingId === command.postingId && ahead.projectId === projectId
        ? ahead
        : await this.readStreamEnds(streamId, command.postingId);
    const state = fold(walletDecider, ends as unknown as WalletEvent[]);
    if (state.status === 'none' || state.projectId !== projectId) throw new ApiError('WalletNotFound');
    if (posted) return { state };
    // Under the wallet's lock, which every posting takes (its provisioning is the stream's first event):
    // the append travels with the next statement, the ledger entries and the balance after it.
    const decision = await this.commands.handle(projectId, walletId, command, {
      read: { events: ends, version: ends[ends.length - 1].streamVersion },
      deferAppend: true,
    });
    return { state: decision.state };
  }

  /** Under the wallet's lock: its first and last events, and whether the posting is in the ledger already. */
  private async readStreamEnds(
    streamId: string,
    postingId: string,
  ): Promise<{ ends: RecordedEvent[]; posted: boolean }> {
    const {
      events,
      alongside: [posted],
    } = await this.store.lockAndReadStreamEnds(streamId, [this.readModels.postingExistsStatement(postingId)]);
    return { ends: events, posted: posted.length > 0 };
  }
}

/** A wallet's read sent ahead for a pull (preparePull). */
interface ReadAhead {
  projectId: string;
  postingId: string;
  ends: RecordedEvent[];
  posted: boolean;
}

const aheadKey = (walletId: string) => new PrefetchKey<ReadAhead>(`accounts.wallet/${walletId}`);
