// Deposit addresses (spec: Deposit address; States / Deposit address; Events,
// tie 3; API-CONTRACT: Deposit addresses; ADR 0030). An address is made for a
// customer when the project has the feature (the gateway's answer now), with a
// destination and return wallet the accounts port resolves; the simulated
// custodian provisions it on a durable timer of the project's clock. The
// accounts service's events tell it when a destination is lost (deleted or
// invalid) and when a sender's wallet is registered. A deposit is decided under
// the customer's lock and the address's stream lock, recorded in its own
// stream, and handed to the transactions service (the port) once committed. The transactions service
// holds a deposit for a destination too, when the one it pays turns out gone as the payout starts or
// answers (ADR 0056): a PATCH releases those as well, and one held for a destination the address has
// replaced already is released to the one it has when the hold is heard of.
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import {
  AccountsPort,
  namedExternalAccount,
  ApiError,
  GatewayPort,
  requireEndorsement,
  TransactionsPort,
  type DepositAddressCreated,
  type DepositAddressDepositReceived,
  type DepositAddressDestination,
  type DepositPayoutTarget,
  type EventPayloads,
  type ExternalAccountView,
  type PayoutInstruction,
} from '@mm/contracts';
import { evmAddressProblem, toChecksumAddress } from '@mm/contracts';
import {
  attributeSender,
  bankDestination,
  checkExpectedSource,
  depositAddressDecider,
  depositAddressStreamId,
  depositAddressView,
  depositStreamId,
  dispositionOf,
  paidOn,
  payoutEndorsement,
  payoutInstruction,
  payoutTarget,
  receiveDeposit,
  requireProvisioned,
  returnWallet,
  type DepositAddressChanges,
  type DepositAddressCommand,
  type DepositAddressEvent,
  type DepositAddressState,
  type DepositAddressView,
  type ExistingDepositAddress,
  type PayoutInput,
} from '@mm/deposit-addresses/domain';
import { DepositAddressCustodian, DepositAddressesReadModel, DepositPrices, type DepositAddressRow, type DepositRow } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { decideAndAppend, publishPartnerEvents, runCommand, type DecideOptions, type PartnerResource, type RecordedEvent } from '@mm/platform/event-store';
import { isId, newId, randomHex } from '@mm/platform/ids';
import { DepositAddressesEventStore } from './deposit-addresses-event-store';

/** The custodian's answer to a provisioning request (key: the address id). */
export const PROVISIONING_TIMER = 'depositAddress.provisioning';

export interface CreateDepositAddressRequest {
  customerId: string;
  expectedSourceAsset: string;
  expectedSourceNetwork: string;
  destination: { externalAccountId: string };
  payout: PayoutInput;
  returnDestination?: { externalAccountId: string };
  requiresCounterpartyWalletRegistration?: boolean;
  sponsorGas?: boolean;
  label?: string;
  metadata?: Record<string, string>;
}

export interface UpdateDepositAddressRequest {
  destination?: { externalAccountId: string };
  payout?: PayoutInput;
  returnDestination?: { externalAccountId: string } | null;
  label?: string | null;
  metadata?: Record<string, string | null> | null;
}

/** POST /deposit-addresses/{id}/simulate/crypto-deposit's answer. */
export interface DepositAddressDepositView {
  object: 'depositAddressDeposit';
  depositAddressId: string;
  amount: string;
  asset: string;
  network: string;
  senderAddress: string;
  txHash: string;
  transactionId: string;
}

export type Simulation = 'freeze' | 'unfreeze' | 'close';

@Injectable()
export class DepositAddressesService implements OnModuleInit {
  private readonly logger = new Logger('deposit-addresses');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: DepositAddressesEventStore,
    private readonly readModel: DepositAddressesReadModel,
    private readonly accounts: AccountsPort,
    private readonly gateway: GatewayPort,
    private readonly transactions: TransactionsPort,
    private readonly custodian: DepositAddressCustodian,
    private readonly prices: DepositPrices,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(PROVISIONING_TIMER, (timer) => this.onProvisioning(timer));
  }

  async require(projectId: string, id: string): Promise<DepositAddressView> {
    return (await this.row(projectId, id)).view;
  }

  async list(projectId: string, customerId: string | undefined, before: string | undefined, limit: number): Promise<DepositAddressView[]> {
    if (customerId !== undefined && !isId('customer', customerId)) throw new ApiError('InvalidCustomerID', `"${customerId.slice(0, 64)}" is not a customer id (cst_…)`);
    return (await this.readModel.list(projectId, customerId, before, limit)).map((r) => r.view);
  }

  async create(projectId: string, request: CreateDepositAddressRequest): Promise<DepositAddressView> {
    // The gateway's answer as of now: an operator's PATCH counts from its 200 on.
    const project = await this.gateway.project(projectId);
    if (!project.features.depositAddresses) {
      throw new ApiError('FeatureNotEnabled', 'deposit addresses are not enabled for this project: the operator enables the depositAddresses feature (PATCH /admin/projects/{projectId})');
    }
    if (!isId('customer', request.customerId)) throw new ApiError('InvalidCustomerID', `"${request.customerId.slice(0, 64)}" is not a customer id (cst_…)`);
    checkExpectedSource(request.expectedSourceAsset, request.expectedSourceNetwork);
    const payout = payoutInstruction(request.payout);
    const customer = await this.accounts.customer(projectId, request.customerId);
    const destination = bankDestination(customer.id, await this.account(projectId, request.destination.externalAccountId, 'destination'), payout);
    const returnDestination = request.returnDestination
      ? returnWallet(customer.id, await this.account(projectId, request.returnDestination.externalAccountId, 'returnDestination'), request.expectedSourceAsset, request.expectedSourceNetwork)
      : null;
    const endorsement = payoutEndorsement(destination);
    requireEndorsement(customer, endorsement.name, endorsement.operation);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const depositAddressId = newId('depositAddress');
      const record: DepositAddressCreated = {
        depositAddressId,
        projectId,
        customerId: customer.id,
        customerName: customer.name,
        expectedSourceAsset: request.expectedSourceAsset,
        expectedSourceNetwork: request.expectedSourceNetwork,
        destination,
        payout,
        returnDestination,
        requiresCounterpartyWalletRegistration: request.requiresCounterpartyWalletRegistration ?? null,
        sponsorGas: request.sponsorGas ?? null,
        label: request.label ?? null,
        metadata: request.metadata ?? {},
        createdAt: at,
      };
      const { state } = await this.execute(projectId, depositAddressId, { type: 'CreateDepositAddress', record }, { newStream: true });
      const delay = this.custodian.provisioningDelaySeconds({ depositAddressId, asset: record.expectedSourceAsset, network: record.expectedSourceNetwork, label: record.label });
      await this.timers.schedule(projectId, PROVISIONING_TIMER, depositAddressId, new Date(Date.parse(at) + delay * 1000), { depositAddressId });
      return depositAddressView(state as ExistingDepositAddress);
    });
  }

  /**
   * PATCH: re-point the destination (an active bank account of the customer or a counterparty), change
   * the payout instruction, the return wallet, the label or the metadata. A new destination makes an
   * inactiveActionRequired address active again and releases the deposits held for one, each priced to it.
   */
  async update(projectId: string, id: string, patch: UpdateDepositAddressRequest): Promise<DepositAddressView> {
    const row = await this.row(projectId, id);
    const customerId = row.customer_id;
    const payout = patch.payout ? payoutInstruction(patch.payout) : undefined;
    const account = patch.destination ? await this.account(projectId, patch.destination.externalAccountId, 'destination') : undefined;
    const returnAccount = patch.returnDestination ? await this.account(projectId, patch.returnDestination.externalAccountId, 'returnDestination') : undefined;
    return runCommand(this.uow, async () => {
      // The address's lock before its held deposits are read: a deposit deciding now is seen, or waits.
      const history = await this.store.lockAndReadStream(depositAddressStreamId(id));
      const state = fold(depositAddressDecider, history as unknown as DepositAddressEvent[]) as ExistingDepositAddress;
      const at = (await this.clock.now(projectId)).toISOString();
      const changes: DepositAddressChanges = {};
      const effectivePayout: PayoutInstruction = payout ?? state.payout;
      // The destination as it will be paid: the account named, or the current one on a new rail.
      const destination: DepositAddressDestination = account ? bankDestination(customerId, account, effectivePayout) : paidOn(state.destination, effectivePayout);
      if (account) changes.destination = destination;
      if (destination.instrument.asset !== state.destination.instrument.asset || destination.instrument.id !== state.destination.instrument.id) {
        const endorsement = payoutEndorsement(destination);
        requireEndorsement(await this.accounts.customer(projectId, customerId), endorsement.name, endorsement.operation);
      }
      if (payout) changes.payout = payout;
      if (patch.returnDestination === null) changes.returnDestination = null;
      else if (returnAccount) changes.returnDestination = returnWallet(customerId, returnAccount, state.record.expectedSourceAsset, state.record.expectedSourceNetwork);
      if (patch.label !== undefined) changes.label = patch.label;
      if (patch.metadata !== undefined) changes.metadata = patch.metadata;
      const repointed = account !== undefined && (account.id !== state.destination.instrument.id || state.destinationLost);
      const held = repointed ? await this.heldDeposits(projectId, id) : [];
      const releases = repointed ? this.releases(state, destination, effectivePayout, held, at) : [];
      const { state: after } = await this.execute(projectId, id, { type: 'UpdateDepositAddress', projectId, changes, releases, at });
      await this.readModel.setHeld(releases.map((r) => r.transactionId), null);
      return depositAddressView(after as ExistingDepositAddress);
    });
  }

  /**
   * The address's deposits held for their sender or a destination: those it held itself when they arrived, and
   * those the transactions service held for a destination since (asked of it: it holds them).
   */
  private async heldDeposits(projectId: string, id: string): Promise<DepositRow[]> {
    const deposits = await this.readModel.deposits(id);
    const others = deposits.filter((d) => d.held === null).map((d) => d.transaction_id);
    const theirs = new Set(others.length > 0 ? await this.transactions.heldForDestination(projectId, others) : []);
    return deposits.flatMap((d): DepositRow[] => (d.held !== null ? [d] : theirs.has(d.transaction_id) ? [{ ...d, held: 'destination' }] : []));
  }

  /**
   * The transactions service held a deposit for a destination (ADR 0056): the account its payout could not go to
   * was invalidated or deleted. Decided under the address's lock, which a PATCH takes too: still the address's
   * destination (or its destination is lost), the deposit waits for the PATCH that replaces it (which asks which
   * deposits wait); replaced already, the deposit is released to the destination the address has now.
   */
  async onTransactionHeld(event: RecordedEvent<'transaction.held', EventPayloads['transaction.held']>): Promise<void> {
    const { projectId, transactionId, hold, destinationId } = event.data;
    if (hold.code !== 'payoutDestinationMissing' || !destinationId) return;
    const deposit = await this.readModel.deposit(projectId, transactionId);
    if (!deposit) return; // another origin's deposit
    const id = deposit.deposit_address_id;
    await runCommand(this.uow, async () => {
      const history = await this.store.lockAndReadStream(depositAddressStreamId(id));
      const state = fold(depositAddressDecider, history as unknown as DepositAddressEvent[]);
      if (state.status === 'none' || state.destinationLost || state.destination.instrument.id === destinationId) return;
      let target: DepositPayoutTarget;
      try {
        target = payoutTarget(state, amountText(deposit.amount), this.rate(state.destination.instrument.asset));
      } catch (error) {
        // Not payable exactly to this destination: it waits for one it can be paid to.
        if (error instanceof ApiError && error.errorName === 'InexactConversion') return;
        throw error;
      }
      const at = (await this.clock.now(projectId)).toISOString();
      await this.execute(projectId, id, { type: 'ReleaseDeposits', projectId, releases: [{ transactionId, target }], at });
    });
  }

  /** Sandbox: the custodian locks, unlocks or closes the address. */
  async simulate(projectId: string, id: string, simulation: Simulation): Promise<DepositAddressView> {
    await this.row(projectId, id);
    const type = ({ freeze: 'FreezeDepositAddress', unfreeze: 'UnfreezeDepositAddress', close: 'CloseDepositAddress' } as const)[simulation];
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.execute(projectId, id, { type, projectId, at });
      return depositAddressView(state as ExistingDepositAddress);
    });
  }

  /**
   * Sandbox: an on-chain deposit reaches the address. Decided under the customer's lock (which a sender's
   * registration takes too) and the address's stream lock (which a PATCH takes), recorded in its own
   * stream with the read model in the same transaction, then handed to the transactions service.
   */
  async deposit(projectId: string, id: string, input: { amount: string; senderAddress?: string }): Promise<DepositAddressDepositView> {
    if (input.senderAddress !== undefined) {
      const problem = evmAddressProblem(input.senderAddress);
      if (problem) throw new ApiError('InvalidWalletAddress', `senderAddress ${problem}`);
    }
    requireDepositAddressId(id);
    const senderAddress = input.senderAddress ?? toChecksumAddress(`0x${randomHex(20)}`);
    const received = await runCommand(this.uow, async () => {
      // One round trip: the address's row (a 404 for one this project does not have), its customer's lock,
      // then its own lock and history; the row's refusal first.
      const [address, , locked] = await Promise.allSettled([
        this.row(projectId, id),
        this.readModel.lockCustomerOfAddress(projectId, id),
        this.store.lockAndReadStream(depositAddressStreamId(id)),
      ]);
      if (address.status === 'rejected') throw address.reason;
      if (locked.status === 'rejected') throw locked.reason;
      const row = address.value;
      const history = locked.value;
      const state = fold(depositAddressDecider, history as unknown as DepositAddressEvent[]);
      const at = (await this.clock.now(projectId)).toISOString();
      // Refused before anything is asked of the other services when the address cannot take it.
      const existing = requireProvisioned(state, projectId);
      const registeredSender = await this.accounts.registeredWallet(projectId, row.customer_id, existing.record.expectedSourceNetwork, senderAddress);
      const held = dispositionOf(existing, registeredSender !== null) === 'awaitingSenderAttribution';
      const data = receiveDeposit(state, {
        projectId,
        transactionId: newId('transaction'),
        amount: input.amount,
        senderAddress,
        txHash: `0x${randomHex(32)}`,
        registeredSender,
        attributionTimeoutHours: held ? (await this.gateway.project(projectId)).attributionTimeoutHours : null,
        rate: this.rate(existing.destination.instrument.asset),
        at,
      });
      // A stream of the transaction id minted above: its first event travels with the commit.
      await this.store.appendNewStreamDeferred(depositStreamId(data.transactionId), [{ type: 'depositAddress.depositReceived', data, metadata: { projectId } }]);
      await this.readModel.recordDeposit({
        transactionId: data.transactionId,
        projectId,
        customerId: data.customerId,
        depositAddressId: id,
        amount: data.deposit.amount,
        senderAddress,
        network: data.deposit.network,
        disposition: data.disposition,
        held: data.disposition === 'awaitingSenderAttribution' ? 'attribution' : data.disposition === 'payoutDestinationMissing' ? 'destination' : null,
        attributionDeadline: data.attributionDeadline,
        at,
      });
      // Once the deposit is committed (the record the transactions service would make it from anyway),
      // before the answer: the transaction exists when its id is announced.
      await this.uow.afterCommit(() => this.createTransaction(projectId, data));
      return data;
    });
    return {
      object: 'depositAddressDeposit',
      depositAddressId: id,
      amount: received.deposit.amount,
      asset: received.deposit.asset,
      network: received.deposit.network,
      senderAddress: received.deposit.senderAddress,
      txHash: received.deposit.txHash,
      transactionId: received.transactionId,
    };
  }

  /**
   * The accounts service's external account events. A destination deleted or turned invalid makes the
   * addresses paying to it inactiveActionRequired; a wallet turned active attributes the deposits held for
   * a sender at its address.
   */
  async onExternalAccountStatusChanged(event: RecordedEvent<'externalAccount.statusChanged', EventPayloads['externalAccount.statusChanged']>): Promise<void> {
    const { projectId, externalAccountId, status, at } = event.data;
    if (status === 'invalid') await this.loseDestination(projectId, externalAccountId, 'invalid', at);
    if (status === 'active') await this.attribute(projectId, externalAccountId);
  }

  async onExternalAccountDeleted(event: RecordedEvent<'externalAccount.deleted', EventPayloads['externalAccount.deleted']>): Promise<void> {
    await this.loseDestination(event.data.projectId, event.data.externalAccountId, 'deleted', event.data.at);
  }

  private async loseDestination(projectId: string, externalAccountId: string, reason: 'deleted' | 'invalid', at: string): Promise<void> {
    for (const id of await this.readModel.payingTo(projectId, externalAccountId)) {
      await runCommand(this.uow, () => this.execute(projectId, id, { type: 'LoseDestination', projectId, externalAccountId, reason, at }));
    }
  }

  /**
   * A walletExternal of the customer or one of its counterparties became active: every deposit of the
   * customer held for a sender at that address on that network is attributed to it, under the customer's
   * lock, so that a deposit deciding at the same moment either sees the wallet registered or is seen here.
   */
  private async attribute(projectId: string, externalAccountId: string): Promise<void> {
    let account: ExternalAccountView;
    try {
      account = await this.accounts.externalAccount(projectId, externalAccountId);
    } catch (error) {
      if (error instanceof ApiError && error.errorName === 'ExternalAccountNotFound') return; // deleted since
      throw error;
    }
    if (account.type !== 'walletExternal' || account.status !== 'active') return;
    const { address, network } = account.details as { address: string; network: string };
    await runCommand(this.uow, async () => {
      await this.readModel.lockCustomer(projectId, account.customerId);
      const held = await this.readModel.heldForSender(projectId, account.customerId, network, address);
      const now = (await this.clock.now(projectId)).toISOString();
      for (const deposit of held) {
        const at = now;
        const history = await this.store.lockAndReadStream(depositAddressStreamId(deposit.deposit_address_id));
        const state = fold(depositAddressDecider, history as unknown as DepositAddressEvent[]) as ExistingDepositAddress;
        // Past its deadline the transaction has failed (attributionTimeout), or is about to: nothing to clear.
        if (deposit.attribution_deadline && Date.parse(at) >= new Date(deposit.attribution_deadline).getTime()) {
          await this.readModel.setHeld([deposit.transaction_id], null);
          continue;
        }
        const data = attributeSender(state, { transactionId: deposit.transaction_id, amount: deposit.amount }, account, this.rate(state.destination.instrument.asset), at);
        await this.store.append(depositStreamId(deposit.transaction_id), 1, [{ type: 'depositAddress.senderAttributed', data, metadata: { projectId } }]);
        await this.readModel.setHeld([deposit.transaction_id], data.destinationMissing ? 'destination' : null);
      }
    });
  }

  /**
   * Each deposit held for a destination, priced to the new one. A deposit still waiting for its sender is
   * priced too, though not released: it will be paid to this destination once attributed, so a
   * destination it cannot be paid to exactly is refused now (InexactConversion), not then.
   */
  private releases(state: ExistingDepositAddress, destination: DepositAddressDestination, payout: PayoutInstruction, held: DepositRow[], at: string): Array<{ transactionId: string; target: DepositPayoutTarget }> {
    const next: ExistingDepositAddress = { ...state, destination, payout, destinationLost: false };
    const rate = this.rate(destination.instrument.asset);
    const releases: Array<{ transactionId: string; target: DepositPayoutTarget }> = [];
    for (const deposit of held) {
      const waiting = deposit.held === 'attribution';
      if (waiting && deposit.attribution_deadline && Date.parse(at) >= new Date(deposit.attribution_deadline).getTime()) continue;
      let target: DepositPayoutTarget;
      try {
        target = payoutTarget(next, amountText(deposit.amount), rate);
      } catch (error) {
        if (error instanceof ApiError && error.errorName === 'InexactConversion') {
          throw new ApiError('InexactConversion', `deposit ${deposit.transaction_id} of ${amountText(deposit.amount)} usdc, held at this address, cannot be paid exactly in ${destination.instrument.asset}: ${error.causeText}`);
        }
        throw error;
      }
      if (!waiting) releases.push({ transactionId: deposit.transaction_id, target });
    }
    return releases;
  }

  private async createTransaction(projectId: string, data: DepositAddressDepositReceived): Promise<void> {
    try {
      await this.transactions.createForDepositAddress(projectId, data);
    } catch (error) {
      // The deposit is committed: the transactions service makes the transaction from its event in our log.
      this.logger.warn(`deposit ${data.transactionId} to ${data.depositAddressId}: the transactions service did not take it at once (${String(error)}); it follows from the log`);
    }
  }

  /** The custodian answers (a durable timer, a few seconds of project time after creation). */
  private async onProvisioning(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.depositAddressId);
    const [first] = await this.store.readStream(depositAddressStreamId(id));
    if (!first) return;
    const record = first.data as DepositAddressCreated;
    const outcome = await this.custodian.provision({ depositAddressId: id, asset: record.expectedSourceAsset, network: record.expectedSourceNetwork, label: record.label });
    const at = (await this.clock.now(timer.projectId)).toISOString();
    await this.execute(timer.projectId, id, { type: 'CompleteProvisioning', projectId: timer.projectId, outcome, at });
  }

  private account(projectId: string, externalAccountId: string, field: string): Promise<ExternalAccountView> {
    return namedExternalAccount(this.accounts, projectId, externalAccountId, field);
  }


  private async row(projectId: string, id: string): Promise<DepositAddressRow> {
    requireDepositAddressId(id);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('DepositAddressNotFound');
    return row;
  }

  private rate(asset: string): string {
    const rate = this.prices.rate('usdc', asset);
    if (!rate) throw new ApiError('UnsupportedCorridor', `no price for usdc in ${asset}`);
    return rate;
  }

  /**
   * Decide, append, project: the read model as of the last event, and the partner events each with the
   * address as it was at its event (a lost destination that left the status alone announces nothing).
   * The stream's lock is re-entrant: a caller that took it already (to read what the command needs) keeps it.
   */
  private async execute(projectId: string, id: string, command: DepositAddressCommand, options: DecideOptions = {}) {
    const decision = await decideAndAppend(this.store, depositAddressStreamId(id), depositAddressDecider, command, { projectId }, undefined, options);
    if (decision.events.length === 0) return decision;
    const views = new Map<string, PartnerResource>();
    let state: DepositAddressState = decision.before;
    for (const event of decision.events) {
      const before = state;
      state = depositAddressDecider.evolve(state, event as unknown as DepositAddressEvent);
      const unmoved = event.type === 'depositAddress.destinationLost' && before.status === state.status;
      views.set(event.eventId, { resourceId: id, data: depositAddressView(state as ExistingDepositAddress) as unknown as Record<string, unknown>, ...(unmoved ? { events: [] } : {}) });
    }
    await this.readModel.upsert(projectId, depositAddressView(decision.state as ExistingDepositAddress), decision.version);
    await publishPartnerEvents(this.store, decision.events, async (event) => views.get(event.eventId));
    return decision;
  }
}

/** A numeric column as an amount: no trailing zeros past the decimal point. */
function amountText(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}

function requireDepositAddressId(id: string): void {
  if (!isId('depositAddress', id)) throw new ApiError('InvalidDepositAddressID', `"${id.slice(0, 64)}" is not a deposit address id (da_…)`);
}
