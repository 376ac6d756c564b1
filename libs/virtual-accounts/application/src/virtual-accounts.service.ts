// Virtual accounts (spec: Virtual account; States / Virtual account; Events,
// ties 3 and 4; API-CONTRACT: Virtual accounts; ADR 0032). An account is made
// for a customer with the usd endorsement, with a destination the accounts
// port resolves; the simulated bank opens it on a durable timer of the
// project's clock. A DELETE asks the transactions service (the port) whether
// any of the account's deposits still moves money, records the delete request
// with its sweeper in one transaction, then asks the bank to close the account;
// the bank's answer (or, when it is lost, the sweeper reading the bank's
// account) ends it. An inbound transfer is decided under the account's stream
// lock (which a DELETE takes too), recorded in its own stream, and handed to the
// transactions service once committed. A deposit whose destination was invalidated or deleted
// waits for one (the transactions service holds it, ADR 0056): a PATCH giving the account a new
// destination releases every such deposit, and a deposit held for a destination the account has
// replaced already is released to the one it has when the hold is heard of.
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  AccountsPort,
  namedExternalAccount,
  ApiError,
  INBOUND_RAILS,
  requireAmount,
  requireEndorsement,
  TransactionsPort,
  type CustomerView,
  type EventPayloads,
  type ExternalAccountView,
  type InboundRail,
  type VirtualAccountCreated,
  type VirtualAccountDepositReceived,
  type VirtualAccountDestination,
} from '@mm/contracts';
import {
  bankDestination,
  depositStreamId,
  depositTarget,
  destinationAsset,
  payoutInstruction,
  receiveTransfer,
  requireProvisioned,
  returnBank,
  returnOn,
  virtualAccountDecider,
  virtualAccountStreamId,
  virtualAccountView,
  walletExternalDestination,
  walletOmsDestination,
  type DepositRelease,
  type ExistingVirtualAccount,
  type PayoutInput,
  type VirtualAccountChanges,
  type VirtualAccountCommand,
  type VirtualAccountEvent,
  type VirtualAccountState,
  type VirtualAccountView,
} from '@mm/virtual-accounts/domain';
import { CLOSE_RETRY_AFTER_SECONDS, VirtualAccountBank, VirtualAccountPrices, VirtualAccountsReadModel, type CloseAnswer, type VirtualAccountRow } from '@mm/virtual-accounts/infrastructure';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { decideAndAppend, publishPartnerEvents, runCommand, type DecideOptions, type PartnerResource, type RecordedEvent } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { VirtualAccountsEventStore } from './virtual-accounts-event-store';

/** The bank's answer to an opening request (key: the account id). */
export const PROVISIONING_TIMER = 'virtualAccount.provisioning';
/** The delete sweeper (key: the account id and its due time): scheduled with the delete request. */
export const DELETE_SWEEP_TIMER = 'virtualAccount.deleteSweep';
/** How long after a delete request (and between its looks) the sweeper reads the bank's account, in project time. */
export const DELETE_SWEEP_SECONDS = 600;

export interface DestinationInput {
  type: string;
  externalAccountId?: string;
  walletId?: string;
  payout?: PayoutInput;
}

export interface CreateVirtualAccountRequest {
  customerId: string;
  source: { asset: string; network: string };
  destination: DestinationInput;
  accountHolder: string;
  type: string;
  returnDestination?: { externalAccountId: string };
  returnPayout?: { rail: string };
  sponsorGas?: boolean;
  label?: string;
  metadata?: Record<string, string>;
}

export interface UpdateVirtualAccountRequest {
  destination?: DestinationInput;
  returnDestination?: { externalAccountId: string } | null;
  returnPayout?: { rail: string } | null;
  label?: string | null;
  metadata?: Record<string, string | null> | null;
}

/** POST /virtual-accounts/{id}/simulate/inbound-transfer's answer. */
export interface VirtualAccountDepositView {
  object: 'virtualAccountDeposit';
  virtualAccountId: string;
  amount: string;
  asset: 'usd';
  rail: InboundRail;
  senderName: string | null;
  reference: string;
  transactionId: string;
}

export type Simulation = 'freeze' | 'unfreeze' | 'close';

@Injectable()
export class VirtualAccountsService implements OnModuleInit {
  private readonly logger = new Logger('virtual-accounts');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VirtualAccountsEventStore,
    private readonly readModel: VirtualAccountsReadModel,
    private readonly accounts: AccountsPort,
    private readonly transactions: TransactionsPort,
    private readonly bank: VirtualAccountBank,
    private readonly prices: VirtualAccountPrices,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(PROVISIONING_TIMER, (timer) => this.onProvisioning(timer));
    this.timers.on(DELETE_SWEEP_TIMER, (timer) => this.onSweep(timer));
    this.bank.onCloseAnswer((projectId, id, answer) => this.onCloseAnswer(projectId, id, answer));
  }

  async require(projectId: string, id: string): Promise<VirtualAccountView> {
    return (await this.row(projectId, id)).view;
  }

  async list(projectId: string, customerId: string | undefined, before: string | undefined, limit: number): Promise<VirtualAccountView[]> {
    if (customerId !== undefined && !isId('customer', customerId)) throw new ApiError('InvalidCustomerID', `"${customerId.slice(0, 64)}" is not a customer id (cst_…)`);
    return (await this.readModel.list(projectId, customerId, before, limit)).map((r) => r.view);
  }

  async create(projectId: string, request: CreateVirtualAccountRequest): Promise<VirtualAccountView> {
    if (!isId('customer', request.customerId)) throw new ApiError('InvalidCustomerID', `"${request.customerId.slice(0, 64)}" is not a customer id (cst_…)`);
    if (request.source.asset !== 'usd') throw new ApiError('InvalidRequest', `source.asset: a virtual account receives usd, not ${request.source.asset.slice(0, 32)}`);
    const sourceNetwork = inboundRail(request.source.network, 'source.network');
    if (request.accountHolder !== 'customer') throw new ApiError('InvalidRequest', 'accountHolder must be customer');
    if (request.type !== 'bankUs') throw new ApiError('InvalidRequest', 'type must be bankUs');
    if ((request.returnDestination === undefined) !== (request.returnPayout === undefined)) {
      throw new ApiError('InvalidRequest', 'returnDestination and returnPayout go together: give both (where refunds go, and on which rail) or neither (refunds go back to the sender)');
    }
    const customer = await this.accounts.customer(projectId, request.customerId);
    const destination = await this.destination(projectId, customer, request.destination);
    const returnDestination = request.returnDestination
      ? returnBank(customer.id, await this.account(projectId, request.returnDestination.externalAccountId, 'returnDestination'), request.returnPayout!.rail)
      : null;
    requireEndorsement(customer, 'usd', 'a virtual account (it receives US dollars)');
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const virtualAccountId = newId('virtualAccount');
      const record: VirtualAccountCreated = {
        virtualAccountId,
        projectId,
        customerId: customer.id,
        customerName: customer.name,
        sourceNetwork,
        destination,
        returnDestination,
        sponsorGas: request.sponsorGas ?? null,
        label: request.label ?? null,
        metadata: request.metadata ?? {},
        createdAt: at,
      };
      const { state } = await this.execute(projectId, virtualAccountId, { type: 'CreateVirtualAccount', record }, { newStream: true });
      const delay = this.bank.provisioningDelaySeconds({ virtualAccountId, projectId, holderName: customer.name, label: record.label });
      await this.timers.schedule(projectId, PROVISIONING_TIMER, virtualAccountId, new Date(Date.parse(at) + delay * 1000), { virtualAccountId });
      return virtualAccountView(state as ExistingVirtualAccount);
    });
  }

  /** PATCH: a new destination, a return destination (null removes it) or its rail, label, metadata; `.updated` names what changed. */
  async update(projectId: string, id: string, patch: UpdateVirtualAccountRequest): Promise<VirtualAccountView> {
    const row = await this.row(projectId, id);
    const customerId = row.customer_id;
    if (patch.returnDestination === null && patch.returnPayout !== undefined && patch.returnPayout !== null) {
      throw new ApiError('InvalidRequest', 'returnPayout: cannot be set while returnDestination is removed (null)');
    }
    const destination = patch.destination
      ? await this.destination(projectId, patch.destination.type === 'walletOms' ? await this.accounts.customer(projectId, customerId) : { id: customerId }, patch.destination)
      : undefined;
    const returnAccount = patch.returnDestination ? await this.account(projectId, patch.returnDestination.externalAccountId, 'returnDestination') : undefined;
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      // A new destination releases the deposits waiting for one, each priced to it. Asked under the account's
      // lock: a deposit held meanwhile is counted here, or its hold, heard of later, finds this destination.
      const releases = destination ? await this.releases(projectId, id, destination) : [];
      const { state } = await this.execute(projectId, id, (current: VirtualAccountState): VirtualAccountCommand => {
        const changes: VirtualAccountChanges = {};
        const currentReturn = current.status === 'none' ? null : current.returnDestination;
        if (destination) changes.destination = destination;
        if (patch.returnDestination === null) changes.returnDestination = null;
        else if (returnAccount) {
          const rail = patch.returnPayout?.rail ?? currentReturn?.rail;
          if (!rail) throw new ApiError('InvalidRequest', 'returnPayout: is required with a returnDestination (the rail refunds go on)');
          changes.returnDestination = returnBank(customerId, returnAccount, rail);
        } else if (patch.returnPayout) {
          if (!currentReturn) throw new ApiError('InvalidRequest', 'returnPayout: the account has no returnDestination; give one with it');
          changes.returnDestination = returnOn(currentReturn, patch.returnPayout.rail);
        }
        if (patch.label !== undefined) changes.label = patch.label;
        if (patch.metadata !== undefined) changes.metadata = patch.metadata;
        return { type: 'UpdateVirtualAccount', projectId, changes, releases, at };
      });
      return virtualAccountView(state as ExistingVirtualAccount);
    });
  }

  /**
   * The deposits of the account whose transactions wait for a destination (asked of the transactions service,
   * which holds them), each priced to `destination`. Under the account's stream lock (taken here; re-entrant).
   */
  private async releases(projectId: string, id: string, destination: VirtualAccountDestination): Promise<DepositRelease[]> {
    const history = await this.store.lockAndReadStream(virtualAccountStreamId(id));
    const state = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
    const deposits = await this.readModel.deposits(id);
    if (state.status === 'none' || deposits.length === 0) return [];
    const held = new Set(await this.transactions.heldForDestination(projectId, deposits.map((d) => d.transaction_id)));
    const next: ExistingVirtualAccount = { ...state, destination };
    const rate = this.rate(destinationAsset(next));
    return deposits.filter((d) => held.has(d.transaction_id)).map((d) => ({ transactionId: d.transaction_id, target: depositTarget(next, d.amount, rate) }));
  }

  /**
   * The transactions service held a deposit for a destination (ADR 0056): the account it could not be paid to
   * was invalidated or deleted. Decided under the account's lock, which a PATCH takes too: still the account's
   * destination, the deposit waits for the PATCH that replaces it (which asks which deposits wait); replaced
   * already, the deposit is released to the destination the account has now.
   */
  async onTransactionHeld(event: RecordedEvent<'transaction.held', EventPayloads['transaction.held']>): Promise<void> {
    const { projectId, transactionId, hold, destinationId } = event.data;
    if (hold.code !== 'payoutDestinationMissing' || !destinationId) return;
    const deposit = await this.readModel.deposit(projectId, transactionId);
    if (!deposit) return; // another origin's deposit
    const id = deposit.virtual_account_id;
    await runCommand(this.uow, async () => {
      const history = await this.store.lockAndReadStream(virtualAccountStreamId(id));
      const state = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
      if (state.status === 'none' || state.destination.instrument.id === destinationId) return;
      const at = (await this.clock.now(projectId)).toISOString();
      const target = depositTarget(state, deposit.amount, this.rate(destinationAsset(state)));
      await this.execute(projectId, id, { type: 'ReleaseDeposits', projectId, releases: [{ transactionId, target }], at });
    });
  }

  /** Sandbox: the bank freezes, unfreezes or closes the account. */
  async simulate(projectId: string, id: string, simulation: Simulation): Promise<VirtualAccountView> {
    await this.row(projectId, id);
    const type = ({ freeze: 'FreezeVirtualAccount', unfreeze: 'UnfreezeVirtualAccount', close: 'CloseVirtualAccount' } as const)[simulation];
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.execute(projectId, id, { type, projectId, at });
      return virtualAccountView(state as ExistingVirtualAccount);
    });
  }

  /**
   * DELETE (spec: States / Virtual account; ADR 0032). Under the account's stream lock: refused (409
   * VirtualAccountNotEmpty) while a deposit's transaction is unfinished, else `deleting` with the sweeper
   * scheduled in the same transaction. Then the bank is asked to close the account: it takes the request
   * (202, the account `deleting`), or cannot now (the status before is restored; 503 with Retry-After).
   * A delete already in flight or done answers the account as it is.
   */
  async delete(projectId: string, id: string): Promise<VirtualAccountView> {
    await this.row(projectId, id);
    const requested = await runCommand(this.uow, async () => {
      const history = await this.store.lockAndReadStream(virtualAccountStreamId(id));
      const current = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
      if (current.status === 'none' || current.record.projectId !== projectId) throw new ApiError('VirtualAccountNotFound');
      if (current.status === 'deleting' || current.status === 'deleted') return { view: virtualAccountView(current), label: current.label, asked: false };
      const at = (await this.clock.now(projectId)).toISOString();
      // Counted here or seeing `deleting`: a transfer takes the same lock before it is recorded.
      const deposits = await this.readModel.depositTransactionIds(id);
      const unfinished = deposits.length > 0 ? await this.transactions.unfinishedTransactions(projectId, deposits) : [];
      if (unfinished.length > 0) {
        const shown = unfinished.slice(0, 10).join(', ');
        throw new ApiError('VirtualAccountNotEmpty', `virtual account ${id} has ${unfinished.length} deposit transaction(s) still moving money (${shown}${unfinished.length > 10 ? ', …' : ''}): delete it once they end`);
      }
      const { state } = await this.execute(projectId, id, { type: 'RequestDeletion', projectId, at });
      await this.scheduleSweep(projectId, id, at);
      return { view: virtualAccountView(state as ExistingVirtualAccount), label: current.label, asked: true };
    });
    if (!requested.asked) return requested.view;
    let answer: 'accepted' | 'unavailable';
    try {
      answer = await this.bank.requestClose(projectId, id, requested.label);
    } catch (error) {
      // The request is recorded and the sweeper is due: it asks the bank again.
      this.logger.warn(`virtual account ${id}: the bank was not reached with its close (${error instanceof Error ? error.message : String(error)}); the delete sweeper asks again`);
      return requested.view;
    }
    if (answer === 'accepted') return requested.view;
    const restored = await runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      return (await this.execute(projectId, id, { type: 'RestoreAfterDeletion', projectId, reason: 'the bank cannot close the account now', at })).state.status;
    });
    throw new ApiError(
      'VirtualAccountCloseUnavailable',
      `the bank cannot close virtual account ${id} now; it is ${restored} again: DELETE again after ${CLOSE_RETRY_AFTER_SECONDS} seconds`,
      { 'retry-after': String(CLOSE_RETRY_AFTER_SECONDS) },
    );
  }

  /**
   * Sandbox: an inbound bank transfer reaches the account. Decided under the account's stream lock (which
   * DELETE takes), recorded in its own stream with the read model in the same transaction, then handed to
   * the transactions service.
   */
  async deposit(projectId: string, id: string, input: { amount: string; rail?: string; senderName?: string }): Promise<VirtualAccountDepositView> {
    const rail = inboundRail(input.rail ?? 'ach', 'rail');
    requireAmount(input.amount, 'amount', { asset: 'usd' });
    requireVirtualAccountId(id);
    const received = await runCommand(this.uow, async () => {
      // The account's row (a 404 for one this project does not have) and its history under its lock, in one
      // round trip; the row's refusal first.
      const [account, locked] = await Promise.allSettled([this.row(projectId, id), this.store.lockAndReadStream(virtualAccountStreamId(id))]);
      if (account.status === 'rejected') throw account.reason;
      if (locked.status === 'rejected') throw locked.reason;
      const history = locked.value;
      const state = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
      const now = await this.clock.now(projectId);
      const existing = requireProvisioned(state, projectId);
      const data = receiveTransfer(state, {
        projectId,
        transactionId: newId('transaction'),
        amount: input.amount,
        rail,
        senderName: input.senderName ?? null,
        reference: this.bank.inboundReference(rail, now),
        rate: this.rate(destinationAsset(existing)),
        at: now.toISOString(),
      });
      // A stream of the transaction id minted above: its first event travels with the commit.
      await this.store.appendNewStreamDeferred(depositStreamId(data.transactionId), [{ type: 'virtualAccount.depositReceived', data, metadata: { projectId } }]);
      await this.readModel.recordDeposit({
        transactionId: data.transactionId,
        projectId,
        customerId: data.customerId,
        virtualAccountId: id,
        amount: data.deposit.amount,
        rail,
        reference: data.deposit.reference,
        disposition: data.disposition,
        at: data.at,
      });
      // Once the deposit is committed (the record the transactions service would make it from anyway),
      // before the answer: the transaction exists when its id is announced.
      await this.uow.afterCommit(() => this.createTransaction(projectId, data));
      return data;
    });
    return {
      object: 'virtualAccountDeposit',
      virtualAccountId: id,
      amount: received.deposit.amount,
      asset: 'usd',
      rail: received.deposit.rail,
      senderName: received.deposit.senderName,
      reference: received.deposit.reference,
      transactionId: received.transactionId,
    };
  }

  private async createTransaction(projectId: string, data: VirtualAccountDepositReceived): Promise<void> {
    try {
      await this.transactions.createForVirtualAccount(projectId, data);
    } catch (error) {
      // The deposit is committed: the transactions service makes the transaction from its event in our log.
      this.logger.warn(`deposit ${data.transactionId} to ${data.virtualAccountId}: the transactions service did not take it at once (${error instanceof Error ? error.message : String(error)}); it follows from the log`);
    }
  }

  /** The bank answers the opening (a durable timer, a few seconds of project time after creation). */
  private async onProvisioning(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.virtualAccountId);
    const state = fold(virtualAccountDecider, (await this.store.readStream(virtualAccountStreamId(id))) as unknown as VirtualAccountEvent[]);
    if (state.status !== 'pending') return;
    const outcome = await this.bank.open({ virtualAccountId: id, projectId: timer.projectId, holderName: state.record.customerName, label: state.label });
    const at = (await this.clock.now(timer.projectId)).toISOString();
    await this.execute(timer.projectId, id, { type: 'CompleteProvisioning', projectId: timer.projectId, outcome, at });
  }

  /** The bank's answer to a close it accepted: closed (deleted), or refused (failed). */
  private async onCloseAnswer(projectId: string, id: string, answer: CloseAnswer): Promise<void> {
    const at = (await this.clock.now(projectId)).toISOString();
    await runCommand(this.uow, () =>
      this.execute(projectId, id, answer.closed ? { type: 'CompleteDeletion', projectId, by: 'bank', at } : { type: 'RefuseClose', projectId, failure: answer.failure, at }),
    );
  }

  /**
   * The delete sweeper (ADR 0032): a delete still `deleting` when it is due reads the bank's account. Closed:
   * `deleted`. Refused: `failed`. A close the bank is still working on: another look later. No close at all
   * (the process stopped between the delete request and its call to the bank): the bank is asked again, and
   * when it cannot close now the status before the delete is restored. So no delete stays `deleting`.
   */
  private async onSweep(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.virtualAccountId);
    const projectId = timer.projectId;
    const state = fold(virtualAccountDecider, (await this.store.readStream(virtualAccountStreamId(id))) as unknown as VirtualAccountEvent[]);
    if (state.status !== 'deleting') return;
    const at = (await this.clock.now(projectId)).toISOString();
    const report = await this.bank.account(id);
    if (report?.status === 'closed') {
      await this.execute(projectId, id, { type: 'CompleteDeletion', projectId, by: 'sweeper', at });
      return;
    }
    if (report?.close === 'refused') {
      await this.execute(projectId, id, { type: 'RefuseClose', projectId, failure: { code: 'bank_refused', message: 'the bank refused to close the deposit account' }, at });
      return;
    }
    if (report?.close !== 'requested') {
      let answer: 'accepted' | 'unavailable' | 'unreached';
      try {
        answer = await this.bank.requestClose(projectId, id, state.label);
      } catch (error) {
        this.logger.warn(`virtual account ${id}: the delete sweeper did not reach the bank (${error instanceof Error ? error.message : String(error)}); it asks again at its next look`);
        answer = 'unreached';
      }
      if (answer === 'unavailable') {
        await this.execute(projectId, id, { type: 'RestoreAfterDeletion', projectId, reason: 'the bank cannot close the account now', at });
        return;
      }
    }
    await this.scheduleSweep(projectId, id, at);
  }

  /** Each look has a key of its own: a handler that re-used its own key would have its next look marked fired with it. */
  private async scheduleSweep(projectId: string, id: string, at: string): Promise<void> {
    const due = new Date(Date.parse(at) + DELETE_SWEEP_SECONDS * 1000);
    await this.timers.schedule(projectId, DELETE_SWEEP_TIMER, `${id}@${due.toISOString()}`, due, { virtualAccountId: id });
  }

  /** The destination the request names, resolved through the accounts port. */
  private async destination(projectId: string, customer: Pick<CustomerView, 'id'> & { name?: string }, input: DestinationInput, field = 'destination'): Promise<VirtualAccountDestination> {
    if (input.type !== 'bankUs' && input.payout !== undefined) {
      throw new ApiError('VirtualAccountPayoutUnsupported', `${field}.payout: a ${input.type} destination receives usdc and takes no bank payout`);
    }
    switch (input.type) {
      case 'walletExternal':
        if (input.externalAccountId === undefined) throw new ApiError('InvalidRequest', `${field}.externalAccountId: is required for a walletExternal destination`);
        if (input.walletId !== undefined) throw new ApiError('InvalidRequest', `${field}.walletId: a walletExternal destination names an externalAccountId, not a walletId`);
        return walletExternalDestination(customer.id, await this.account(projectId, input.externalAccountId, field), field);
      case 'walletOms': {
        if (input.walletId === undefined) throw new ApiError('InvalidRequest', `${field}.walletId: is required for a walletOms destination`);
        if (input.externalAccountId !== undefined) throw new ApiError('InvalidRequest', `${field}.externalAccountId: a walletOms destination names a walletId, not an externalAccountId`);
        if (!isId('wallet', input.walletId)) throw new ApiError('InvalidWalletID', `${field}.walletId: "${input.walletId.slice(0, 64)}" is not a wallet id (wlt_…)`);
        return walletOmsDestination({ id: customer.id, name: customer.name ?? '' }, await this.accounts.wallet(projectId, input.walletId), field);
      }
      case 'bankUs': {
        if (input.externalAccountId === undefined) throw new ApiError('InvalidRequest', `${field}.externalAccountId: is required for a bankUs destination`);
        if (input.walletId !== undefined) throw new ApiError('InvalidRequest', `${field}.walletId: a bankUs destination names an externalAccountId, not a walletId`);
        if (input.payout === undefined) throw new ApiError('InvalidRequest', `${field}.payout: is required for a bankUs destination (the rail it is paid on)`);
        const payout = payoutInstruction(input.payout, `${field}.payout`);
        return bankDestination(customer.id, await this.account(projectId, input.externalAccountId, field), payout, field);
      }
      default:
        throw new ApiError('InvalidRequest', `${field}.type must be one of walletExternal, walletOms, bankUs`);
    }
  }

  private account(projectId: string, externalAccountId: string, field: string): Promise<ExternalAccountView> {
    return namedExternalAccount(this.accounts, projectId, externalAccountId, field);
  }


  private async row(projectId: string, id: string): Promise<VirtualAccountRow> {
    requireVirtualAccountId(id);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('VirtualAccountNotFound');
    return row;
  }

  private rate(asset: string): string {
    const rate = this.prices.rate('usd', asset);
    if (!rate) throw new ApiError('UnsupportedCorridor', `no price for usd in ${asset}`);
    return rate;
  }

  /**
   * Decide, append, project: the read model as of the last event, and the partner events each with the
   * account as it was at its event. The stream's lock is re-entrant: a caller that took it already keeps it.
   */
  private async execute(projectId: string, id: string, command: VirtualAccountCommand | ((state: VirtualAccountState) => VirtualAccountCommand), options: DecideOptions = {}) {
    const decision = await decideAndAppend(this.store, virtualAccountStreamId(id), virtualAccountDecider, command, { projectId }, undefined, options);
    if (decision.events.length === 0) return decision;
    const views = new Map<string, PartnerResource>();
    let state: VirtualAccountState = decision.before;
    for (const event of decision.events) {
      state = virtualAccountDecider.evolve(state, event as unknown as VirtualAccountEvent);
      views.set(event.eventId, { resourceId: id, data: virtualAccountView(state as ExistingVirtualAccount) as unknown as Record<string, unknown> });
    }
    await this.readModel.upsert(projectId, virtualAccountView(decision.state as ExistingVirtualAccount), decision.version);
    await publishPartnerEvents(this.store, decision.events, async (event) => views.get(event.eventId));
    return decision;
  }
}

/** One of the rails a transfer reaches a virtual account on, or 400 naming them. */
function inboundRail(value: string, field: string): InboundRail {
  if ((INBOUND_RAILS as readonly string[]).includes(value)) return value as InboundRail;
  throw new ApiError('InvalidRequest', `${field} must be one of ${INBOUND_RAILS.join(', ')}, not ${JSON.stringify(value.slice(0, 32))}`);
}

function requireVirtualAccountId(id: string): void {
  if (!isId('virtualAccount', id)) throw new ApiError('InvalidVirtualAccountID', `"${id.slice(0, 64)}" is not a virtual account id (va_…)`);
}
