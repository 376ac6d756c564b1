// Transactions (spec: Transaction; States / Transaction; rules 2, 4, 5) and
// their saga (ADR 0019). POST /transactions accepts the quote through the
// quotes port and pulls the source wallet's money through the accounts port,
// both idempotent on the transaction id (the quote's own), so a retry after a
// crash finishes what the first attempt began and a second transaction for the
// quote is refused. The legs then run on the rails: each answer is a durable
// timer on the project's clock, each ledger movement an event the accounts
// service posts, and each change of status a transaction.statusChanged
// written in the same database transaction as the leg write that caused it.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  GatewayPort,
  QuotesPort,
  sideExternalAccountId,
  underReviewEvent,
  type AcceptedQuote,
  type DepositPayoutTarget,
  type EventPayloads,
  type LegFailure,
  type TransactionCreated,
  type VirtualAccountTarget,
} from '@mm/contracts';
import {
  capPeriods,
  checkPerTransaction,
  cryptoDepositLeg,
  depositAddressLegEvents,
  virtualAccountLegEvents,
  virtualAccountTransactionRecord,
  bankDepositLeg,
  bankRefundLeg,
  inboundReferences,
  isVirtualAccountTransaction,
  sandboxRefundSteps,
  VIRTUAL_ACCOUNT_INACTIVE,
  depositLeg,
  depositNext,
  depositTransactionRecord,
  destinationMissing,
  releaseNext,
  sentBackToSender,
  withTarget,
  legAccounts,
  limitedFiatLeg,
  needsReview,
  magicCents,
  payoutLeg,
  refundLeg,
  SANDBOX_MAGIC_CENTS,
  SANDBOX_REVIEW_SECONDS,
  UNCONFIRMED_SWEEP_SECONDS,
  type RailOutcome,
  transactionDecider,
  transactionIdForQuote,
  transactionStreamId,
  transactionView,
  unusableAccountFailure,
  type AccountStanding,
  type LegAccount,
  type NewLeg,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionState,
  type TransactionView,
} from '@mm/transactions/domain';
import { PaymentRails, TransactionLimitsRepository, TransactionsReadModel, type TransactionFilter, type TransactionRow } from '@mm/transactions/infrastructure';
import { dec, formatAmount, toAmount } from '@mm/platform/money';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { ConcurrencyError, decideAndAppend, loadState, publishPartnerEvents, runCommand, type DecideOptions, type PartnerResource, type RecordedEvent } from '@mm/platform/event-store';
import { isId } from '@mm/platform/ids';
import { TransactionsEventStore } from './transactions-event-store';

export const LEG_TIMER = 'transaction.leg';
export const REVIEW_TIMER = 'transaction.review';
export const SWEEP_TIMER = 'transaction.unconfirmedSweep';
/** A deposit held for its sender's attribution fails at the hold's deadline (key: the transaction id). */
export const ATTRIBUTION_TIMER = 'transaction.attributionTimeout';
/** A virtual account's bank refund: the bank's acceptance, settlement, or silence (key: the leg id and the step). */
export const REFUND_TIMER = 'transaction.bankRefund';

export type OperatorAction = 'retry' | 'refund' | 'markFailed';

export interface OperatorResult {
  /** already_completed is not an error (spec: Errors): the retry had nothing to do. */
  result: 'retried' | 'refunding' | 'markedFailed' | 'already_completed' | 'completedByProvider' | 'refundCompleted';
  transaction: TransactionView;
}

/** The last `max` ids added, oldest forgotten first. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly max: number) {}

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}

@Injectable()
export class TransactionsService implements OnModuleInit {
  /** Transactions this process's port made, once committed (exists()). */
  private readonly madeHere = new RecentIds(10_000);

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: TransactionsEventStore,
    private readonly readModel: TransactionsReadModel,
    private readonly quotes: QuotesPort,
    private readonly accounts: AccountsPort,
    private readonly rails: PaymentRails,
    private readonly limits: TransactionLimitsRepository,
    private readonly gateway: GatewayPort,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(LEG_TIMER, (timer) => this.onLegAnswer(timer));
    this.timers.on(REVIEW_TIMER, (timer) => this.onReviewDecision(timer));
    this.timers.on(SWEEP_TIMER, (timer) => this.onSweep(timer));
    this.timers.on(ATTRIBUTION_TIMER, (timer) => this.onAttributionTimeout(timer));
    this.timers.on(REFUND_TIMER, (timer) => this.onBankRefund(timer));
  }

  /** Operator routes (spec: Operator-only): any project's transaction, by id. */
  async requireAny(id: string): Promise<TransactionRow> {
    if (!isId('transaction', id)) throw new ApiError('InvalidTransactionID', `"${id.slice(0, 64)}" is not a transaction id (txn_…)`);
    const row = await this.readModel.getById(id);
    if (!row) throw new ApiError('TransactionNotFound');
    return row;
  }

  /**
   * Operator retry, refund and mark-failed. Each asks the provider about an unconfirmed payout
   * first (spec: Unconfirmed payout sweep): a transfer the provider holds continues and is never
   * sent twice; one it has none of fails with providerTimeout; a provider that cannot be reached
   * is error 10369 and changes nothing.
   */
  async operate(id: string, action: OperatorAction, reason: string, amount?: string, to?: 'returnDestination' | 'sender'): Promise<OperatorResult> {
    const row = await this.requireAny(id);
    if (amount !== undefined && (action !== 'refund' || row.view.precursor.type !== 'virtualAccount')) {
      throw new ApiError('InvalidRequest', 'amount: only a refund of a virtual account deposit may return part of the money; other refunds return all of it');
    }
    if (to !== undefined && (action !== 'refund' || !fromDeposit(row.view))) {
      throw new ApiError('InvalidRequest', 'to: only a refund of a deposit address or virtual account deposit goes to a return destination or the sender; other refunds go back to the wallet or card the money came from');
    }
    const projectId = row.project_id;
    const looked: 'already_completed' | 'completedByProvider' | 'providerHasNone' | undefined = await runCommand(this.uow, async () => {
      const state = await this.load(id);
      if (action === 'retry' && state.status === 'completed') return 'already_completed' as const;
      if (state.subStatus !== 'processing.payoutUnconfirmed') return undefined;
      const leg = state.legs.find((l) => l.kind === 'payout' && l.status === 'pending')!;
      const at = await this.clock.now(projectId);
      const answer = this.rails.lookup(state.record!, leg, at);
      if (answer.kind === 'unreachable') throw new ApiError('unconfirmedPayoutUnverifiable', 'the payout provider cannot be reached to look the transfer up; retry later');
      const outcome: RailOutcome = answer.kind === 'holds' ? { kind: 'settled', references: answer.references } : { kind: 'failed', failure: PROVIDER_TIMEOUT };
      await this.execute(projectId, id, { type: 'ReportLeg', legId: leg.id, outcome, at: at.toISOString() });
      return answer.kind === 'holds' ? ('completedByProvider' as const) : ('providerHasNone' as const);
    });
    if (looked === 'already_completed' || (looked === 'completedByProvider' && action === 'retry')) {
      return { result: looked, transaction: (await this.requireAny(id)).view };
    }
    // Refused requests change nothing (the settlement rolls back with them): the sweeper completes the transfer.
    if (looked === 'completedByProvider') throw new ApiError('vendorOrderExists', 'the provider holds the transfer: the payout completes');
    return runCommand(this.uow, async () => {
      const state = await this.load(id);
      const record = state.record!;
      const at = (await this.clock.now(projectId)).toISOString();
      const next = nextLegId(state);
      if (action === 'retry') {
        const failedLeg = [...state.legs].reverse().find((l) => l.kind === 'payout' && l.status === 'failed');
        const leg = { ...payoutLeg(record, next), retryOf: failedLeg?.id };
        await this.execute(projectId, id, { type: 'RetryPayout', leg, reason, at });
      } else if (action === 'refund') {
        // A deposit's refund goes to its return destination, checked now; or, when the operator says so (the
        // return destination is gone), back to the sender (ADR 0056).
        const target = to === 'sender' ? sentBackToSender(record) : record;
        const refused = fromDeposit(target) ? (await this.unusable(projectId, target, { kind: 'refund' }, 'start'))?.failure : undefined;
        if (isVirtualAccountTransaction(record)) {
          const held = record.pricing.source.amountGross;
          const refunded = amount ?? held;
          if (dec(refunded).gt(held)) throw new ApiError('InvalidRequest', `amount: ${refunded} is more than the ${held} ${record.pricing.source.asset} held for this transaction`);
          const retained = dec(held).minus(refunded);
          // Shown as the deposit's own amount is: two decimal places, "0.00" for nothing.
          const refundAmount = formatAmount(refunded, 2);
          await this.execute(projectId, id, { type: 'RefundHeld', refundLeg: bankRefundLeg(target, next, refundAmount), reason, retained: retained.gt(0) ? formatAmount(retained, 2) : undefined, refused, at });
        } else {
          await this.execute(projectId, id, { type: 'RefundHeld', refundLeg: refundLeg(target, next), reason, refused, at });
        }
      } else if (!(looked === 'providerHasNone' && state.subStatus === 'failed.outboundFailed')) {
        // (Unless the lookup itself just failed the unconfirmed payout: that is the mark-failed.)
        await this.execute(projectId, id, { type: 'MarkFailed', reason, at });
      }
      const result = action === 'retry' ? 'retried' : action === 'refund' ? 'refunding' : 'markedFailed';
      return { result, transaction: (await this.requireAny(id)).view };
    });
  }

  /**
   * Operator: a virtual account's bank refund the bank reported only as initiated (or that is still in flight)
   * is complete (spec: Operator-only, complete-refund): the refund leg settles, the review clears, and the
   * transaction ends failed.returnedToSender. A refund completed already answers already_completed; any other
   * payment is refundNotCompletable (10368).
   */
  async completeRefund(id: string, reason: string): Promise<OperatorResult> {
    const row = await this.requireAny(id);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(row.project_id)).toISOString();
      const decision = await this.execute(row.project_id, id, { type: 'CompleteRefund', reason, at });
      return { result: decision.events.length === 0 ? 'already_completed' : 'refundCompleted', transaction: transactionView(decision.state) };
    });
  }

  /** The sandbox bank's answers about a virtual account's refund: accepted (in flight), settled, or silence past the window. */
  private async onBankRefund(timer: DueTimer): Promise<void> {
    const transactionId = String(timer.payload.transactionId);
    const legId = String(timer.payload.legId);
    const step = String(timer.payload.step);
    const at = (await this.clock.now(timer.projectId)).toISOString();
    const outcome: RailOutcome = step === 'accepted' ? { kind: 'refundAccepted' } : step === 'unconfirmed' ? { kind: 'refundUnconfirmed' } : { kind: 'settled', references: {} };
    await this.execute(timer.projectId, transactionId, { type: 'ReportLeg', legId, outcome, at });
  }

  /** The sweeper: asks the provider about a payout the service stopped waiting for. */
  private async onSweep(timer: DueTimer): Promise<void> {
    const transactionId = String(timer.payload.transactionId);
    const legId = String(timer.payload.legId);
    const state = await this.load(transactionId);
    const leg = state.legs.find((l) => l.id === legId);
    if (!state.record || !leg || leg.status !== 'pending' || state.subStatus !== 'processing.payoutUnconfirmed') return;
    const at = await this.clock.now(timer.projectId);
    const answer = this.rails.lookup(state.record, leg, at);
    if (answer.kind === 'unreachable') {
      await this.timers.schedule(timer.projectId, SWEEP_TIMER, legId, new Date(at.getTime() + UNCONFIRMED_SWEEP_SECONDS * 1000), timer.payload);
      return;
    }
    const outcome: RailOutcome = answer.kind === 'holds' ? { kind: 'settled', references: answer.references } : { kind: 'failed', failure: PROVIDER_TIMEOUT };
    await this.execute(timer.projectId, transactionId, { type: 'ReportLeg', legId, outcome, at: at.toISOString() });
  }

  private async load(transactionId: string): Promise<TransactionState> {
    const loaded = await loadState(this.store, transactionStreamId(transactionId), transactionDecider);
    if (!loaded) throw new ApiError('TransactionNotFound');
    return loaded.state;
  }

  async require(projectId: string, id: string): Promise<TransactionRow> {
    if (!isId('transaction', id)) throw new ApiError('InvalidTransactionID', `"${id.slice(0, 64)}" is not a transaction id (txn_…)`);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('TransactionNotFound');
    return row;
  }

  /** The operator's queue of held transactions, across projects. */
  held(filter: { projectId?: string; before?: string; limit: number }): Promise<TransactionRow[]> {
    return this.readModel.held(filter);
  }

  list(projectId: string, filter: TransactionFilter): Promise<TransactionRow[]> {
    return this.readModel.list(projectId, filter);
  }

  async create(projectId: string, quoteId: string): Promise<TransactionView> {
    if (!isId('quote', quoteId)) throw new ApiError('InvalidQuoteID', `"${quoteId.slice(0, 64)}" is not a quote id (qt_…)`);
    const transactionId = transactionIdForQuote(quoteId);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      // In one process, for a quote made here: the wallet the pull will debit is read with the quote (one
      // round trip less), under the quote's lock as before.
      const quote = await this.quotes.accept(projectId, { quoteId, transactionId, at }, (outline) => {
        if (outline.source.type !== 'card') this.accounts.preparePull(projectId, { transactionId, walletId: String(outline.source.details.id) });
      });
      try {
        return await this.createAccepted(projectId, transactionId, quote, at);
      } catch (error) {
        // Across processes the acceptance has committed on its own: undo it, so a refused
        // transaction (insufficient funds) leaves its quote open; in one process the rollback
        // already does. A lost race for the same quote is no refusal: the winner keeps it.
        if (error instanceof ApiError && error.errorName !== 'QuoteAlreadyAccepted') {
          await this.quotes.release(projectId, { quoteId, transactionId, at }).catch(() => undefined);
        }
        throw error;
      }
    });
  }

  private async createAccepted(projectId: string, transactionId: string, quote: AcceptedQuote, at: string): Promise<TransactionView> {
    const quoteId = quote.quoteId;
    const customerIds = [quote.customerId, ...[quote.source.party, quote.destination.party].flatMap((p) => ('customerId' in p ? [p.customerId] : []))];
    const record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> = {
      transactionId,
      projectId,
      customerId: quote.customerId,
      sourceToDestination: quote.sourceToDestination,
      precursor: { type: 'quote', id: quoteId },
      source: quote.source,
      destination: quote.destination,
      pricing: quote.pricing,
      settlementType: quote.settlementType,
      metadata: quote.metadata,
      customerIds: [...new Set(customerIds)],
      customerName: quote.customerName ?? null,
    };
    const full = { ...record, status: 'processing', subStatus: null, at } as TransactionCreated;
    const cardBuy = quote.source.type === 'card';
    // In one process the acceptance's account checks are still on their way: the limits and the pull travel
    // with them, and their refusal comes first (as when the acceptance refused before anything else ran).
    const pulled = await afterChecks(quote.pendingChecks, async (): Promise<Extract<TransactionCommand, { type: 'CreateTransaction' }>['pulled']> => {
      await this.checkLimits(projectId, full);
      if (cardBuy) return undefined;
      const walletId = String(quote.source.details.id);
      const amount = quote.pricing.source.amountGross;
      const { postingId } = await this.accounts.pullFunds(projectId, { transactionId, walletId, amount, at });
      return { walletId, postingId, asset: quote.pricing.source.asset, amount };
    });
    const firstLeg = cardBuy ? depositLeg(full, `${transactionId}.1`) : payoutLeg(full, `${transactionId}.1`);
    const review = needsReview(full) ? 'amount over the compliance review threshold' : undefined;
    let state: TransactionState;
    try {
      // A quote this request accepted has no transaction: its first events need no answer and travel with the
      // commit (one round trip less). A repeated acceptance appends at once, so that a transaction already made
      // for the quote is refused as QuoteAlreadyAccepted. (Should another request make it in between after all,
      // across processes, the commit fails on the stream's unique version, and the retry is such a repeat.)
      const created = { type: 'CreateTransaction', record, pulled, review, firstLeg, at } as const;
      ({ state } = await this.execute(projectId, transactionId, created, { newStream: true, deferAppend: quote.acceptedNow }));
    } catch (error) {
      // The quote's transaction exists already (its acceptance and pull answered as repeats): a second is refused.
      if (error instanceof ConcurrencyError) throw new ApiError('QuoteAlreadyAccepted', `quote ${quoteId} was accepted by transaction ${transactionId}`);
      throw error;
    }
    return transactionView(state);
  }

  /**
   * Project limits on the fiat leg of a source-pinned sell, caps counted in this transaction. Decided on
   * the limits the gateway, which owns them, holds now (its port; from memory in one process): the
   * operator's last PATCH counts from its 200 on, whether it lowered a limit or raised one (ADR 0057).
   * A gateway that cannot be reached refuses the payout (ServiceUnavailable), never lets it through.
   */
  private async checkLimits(projectId: string, record: TransactionCreated): Promise<void> {
    const leg = limitedFiatLeg(record);
    if (!leg) return;
    const { limits } = await this.gateway.project(projectId);
    checkPerTransaction(limits, leg);
    const periods = capPeriods(record.at);
    for (const [period, cap, name] of [
      [periods.day, limits.dailyBankPayoutCap, 'daily'],
      [periods.month, limits.monthlyBankPayoutCap, 'monthly'],
    ] as const) {
      if (!cap) continue;
      const used = await this.limits.use(projectId, period, leg.asset, leg.amount);
      if (dec(used).gt(cap)) {
        throw new ApiError('TransactionLimitExceeded', `${leg.amount} ${leg.asset} would take the project's ${name} bank payouts to ${toAmount(used, 18)}, over its cap of ${cap}`);
      }
    }
  }

  /**
   * Sandbox: the retail network reports a cash pickup (spec: rule 8; Events, tie 7). Collected, the
   * payout leg settles and the transaction completes `completed.cashPickupCollected`; expired, the
   * money goes back to the source wallet (`processing.returningToSender`) and, once the accounts
   * service has credited it, the transaction completes `completed.cashPickupExpired`.
   */
  async simulateCashPickup(projectId: string, id: string, outcome: 'collected' | 'expired'): Promise<TransactionView> {
    await this.require(projectId, id);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.execute(projectId, id, (current) => ({ type: 'ReportCashPickup', outcome, refundLeg: refundLeg(current.record!, nextLegId(current)), at }));
      return transactionView(state);
    });
  }

  /**
   * A rail answered a leg (the sandbox provider's timer). Decided on the state read under the stream's
   * lock. An account the leg needs that is no longer usable refuses the leg whatever the rail says; an
   * accounts service that cannot be asked fails the timer, which fires again later.
   */
  private async onLegAnswer(timer: DueTimer): Promise<void> {
    const transactionId = String(timer.payload.transactionId);
    const legId = String(timer.payload.legId);
    const at = await this.clock.now(timer.projectId);
    const { unusable, deliveryGone } = await this.legChecks(timer.projectId, transactionId, legId);
    await this.execute(timer.projectId, transactionId, (state) => {
      const leg = state.legs.find((l) => l.id === legId);
      // A leg already answered (or unknown) is answered again with nothing: the decider ignores it.
      if (!state.record || !leg || leg.status !== 'pending') return { type: 'ReportLeg', legId, outcome: { kind: 'unconfirmed' }, at: at.toISOString() };
      let { outcome }: { outcome: RailOutcome } = unusable ? { outcome: { kind: 'declined', failure: unusable } } : this.rails.answer(state.record, leg, at);
      const next = nextLegId(state);
      let nextLeg: NewLeg | undefined;
      let review: string | undefined;
      const inbound = isVirtualAccountTransaction(state.record);
      if (leg.kind === 'deposit' && outcome.kind === 'settled') {
        // A virtual account's deposit carries the bank's own reference for the transfer.
        if (inbound) outcome = { kind: 'settled', references: inboundReferences(state.record, outcome.references) };
        if (inbound && needsReview(state.record)) review = 'amount over the compliance review threshold';
        else nextLeg = payoutLeg(state.record, next);
      }
      if (leg.kind === 'payout' && outcome.kind === 'declined') nextLeg = refundLeg(state.record, next);
      // (Used only when the deposit settles and its delivery would start: the decider holds it for a destination.)
      const destinationGone = leg.kind === 'deposit' && outcome.kind === 'settled' ? deliveryGone : undefined;
      return { type: 'ReportLeg', legId, outcome, nextLeg, review, destinationGone, at: at.toISOString() };
    });
  }

  /**
   * What a pending leg's answer needs to know of the accounts service: the first external account the leg
   * needs that is no longer usable, as the leg's failure (issue 17); and, for a virtual account's deposit
   * (whose settlement starts the delivery at once unless it goes to review), the delivery's account when it is
   * no longer usable (issue 42). Nothing when the leg is answered already. Asked before the stream's lock is
   * taken, so that no lock waits on another service.
   */
  private async legChecks(projectId: string, transactionId: string, legId: string): Promise<{ unusable?: LegFailure; deliveryGone?: string }> {
    const loaded = await loadState(this.store, transactionStreamId(transactionId), transactionDecider);
    const record = loaded?.state.record;
    const leg = loaded?.state.legs.find((l) => l.id === legId);
    if (!record || !leg || leg.status !== 'pending') return {};
    const unusable = (await this.unusable(projectId, record, leg, 'answer'))?.failure;
    const starts = leg.kind === 'deposit' && isVirtualAccountTransaction(record) && !needsReview(record);
    const deliveryGone = starts ? (await this.unusable(projectId, record, { kind: 'payout' }, 'start'))?.account.id : undefined;
    return { unusable, deliveryGone };
  }

  /**
   * The first external account a leg of this record needs that is no longer usable, with the leg's failure;
   * undefined while all are usable. Asked of the accounts service, which owns the accounts and reads them as they
   * are now (its port, in both modes): a deletion or invalidation it has answered is seen by the very next check,
   * never a copy that lags behind (ADR 0025; ADR 0056).
   */
  private async unusable(projectId: string, record: TransactionCreated, leg: Pick<NewLeg, 'kind'>, when: 'start' | 'answer'): Promise<{ account: LegAccount; failure: LegFailure } | undefined> {
    for (const account of legAccounts(record, leg)) {
      const standing: AccountStanding = await this.accounts.externalAccount(projectId, account.id).catch((error: unknown) => {
        // It existed when the quote was accepted or the deposit made: not found now means deleted since. Any
        // other error (the accounts service down) fails the caller (a timer fires again later; a request is refused).
        if (error instanceof ApiError && error.errorName === 'ExternalAccountNotFound') return 'deleted' as const;
        throw error;
      });
      const failure = unusableAccountFailure(leg, account, standing, when);
      if (failure) return { account, failure };
    }
    return undefined;
  }

  /**
   * The sandbox compliance desk decided a review. A deposit's payout, once approved, or its refund, once
   * rejected, starts now: its account is checked first (ADR 0056).
   */
  private async onReviewDecision(timer: DueTimer): Promise<void> {
    const transactionId = String(timer.payload.transactionId);
    const at = (await this.clock.now(timer.projectId)).toISOString();
    const record = (await this.load(transactionId)).record;
    if (!record) return;
    const rejected = magicCents(record) === SANDBOX_MAGIC_CENTS.reviewRejected;
    const checked = fromDeposit(record) ? await this.unusable(timer.projectId, record, { kind: rejected ? 'refund' : 'payout' }, 'start') : undefined;
    await this.execute(timer.projectId, transactionId, (state) => {
      const current = state.record!;
      const next = nextLegId(state);
      const firstLeg = current.source.type === 'card' ? depositLeg(current, next) : payoutLeg(current, next);
      const back = isVirtualAccountTransaction(current) ? bankRefundLeg(current, next) : refundLeg(current, next);
      return {
        type: 'DecideReview',
        outcome: rejected ? 'rejected' : 'approved',
        firstLeg,
        refundLeg: back,
        destinationGone: rejected ? undefined : checked?.account.id,
        refundRefused: rejected ? checked?.failure : undefined,
        at,
      };
    });
  }

  /**
   * The cash-in service confirmed a cash deposit (spec: rule 3, States / Cash-in): the transaction
   * it links is created here, `cashToCrypto` with precursor cashIn, skipping the quote, and starts
   * `processing` with the cash already in: its deposit leg on the cash rail settles at once and the
   * crypto goes out to the cash-in's destination. A redelivered event finds the stream and does nothing.
   */
  async onCashInDeposited(event: RecordedEvent<'cashIn.deposited', EventPayloads['cashIn.deposited']>): Promise<void> {
    if (await this.exists(event.data.transactionId)) return;
    await this.createCashInTransaction(event.data);
  }

  /**
   * The transactions port: the cash-in service creates the transaction before it announces its id
   * (cashIn.completed, the deposit's response), so a partner who follows either finds it. In one
   * process this joins the cash-in's own database transaction; across processes it commits first, and
   * cashIn.deposited, read from the cash-in log later, finds it made.
   */
  async createForCashIn(projectId: string, deposit: EventPayloads['cashIn.deposited']): Promise<{ transactionId: string }> {
    if (deposit?.projectId !== projectId || !isId('transaction', String(deposit.transactionId))) {
      throw new ApiError('InvalidRequest', 'the deposit names another project or no transaction id');
    }
    await this.createFromPort(deposit.transactionId, (deferAppend) => this.createCashInTransaction(deposit, deferAppend));
    return { transactionId: deposit.transactionId };
  }

  /**
   * The transactions port: the deposit-addresses service has the transaction of a deposit made before it
   * answers the deposit with its id. In one process this joins its database transaction; across
   * processes it commits first, and depositAddress.depositReceived, read later, finds it made.
   */
  async createForDepositAddress(projectId: string, deposit: EventPayloads['depositAddress.depositReceived']): Promise<{ transactionId: string }> {
    if (deposit?.projectId !== projectId || !isId('transaction', String(deposit.transactionId))) {
      throw new ApiError('InvalidRequest', 'the deposit names another project or no transaction id');
    }
    await this.createFromPort(deposit.transactionId, (deferAppend) => this.createDepositAddressTransaction(deposit, deferAppend));
    return { transactionId: deposit.transactionId };
  }

  /**
   * The transactions port: the virtual-accounts service has the transaction of an inbound transfer made
   * before it answers with its id. In one process this joins its database transaction; across processes
   * it commits first, and virtualAccount.depositReceived, read later, finds it made.
   */
  async createForVirtualAccount(projectId: string, deposit: EventPayloads['virtualAccount.depositReceived']): Promise<{ transactionId: string }> {
    if (deposit?.projectId !== projectId || !isId('transaction', String(deposit.transactionId))) {
      throw new ApiError('InvalidRequest', 'the deposit names another project or no transaction id');
    }
    await this.createFromPort(deposit.transactionId, (deferAppend) => this.createVirtualAccountTransaction(deposit, deferAppend));
    return { transactionId: deposit.transactionId };
  }

  /** An inbound transfer reached a virtual account (spec: rule 3): its transaction, once, however often this arrives. */
  async onVirtualAccountDeposit(event: RecordedEvent<'virtualAccount.depositReceived', EventPayloads['virtualAccount.depositReceived']>): Promise<void> {
    if (await this.exists(event.data.transactionId)) return;
    await this.createVirtualAccountTransaction(event.data);
  }

  /**
   * The transactions port: which of these still hold money or may still move it (a virtual account is not
   * deleted while any does): not made yet, processing, awaitingAction, or failed with the money held for
   * an operator's refund (failed.outboundFailed).
   */
  async unfinishedTransactions(projectId: string, transactionIds: string[]): Promise<string[]> {
    const ids = [...new Set(transactionIds.filter((id) => isId('transaction', id)))];
    const rows = new Map((await this.readModel.statuses(projectId, ids)).map((r) => [r.id, r]));
    return ids.filter((id) => {
      const row = rows.get(id);
      return !row || row.status === 'processing' || row.status === 'awaitingAction' || row.sub_status === 'failed.outboundFailed';
    });
  }

  /** A deposit reached a deposit address (spec: rule 3): its transaction, once, however often this arrives. */
  async onDepositReceived(event: RecordedEvent<'depositAddress.depositReceived', EventPayloads['depositAddress.depositReceived']>): Promise<void> {
    if (await this.exists(event.data.transactionId)) return;
    await this.createDepositAddressTransaction(event.data);
  }

  private async createDepositAddressTransaction(d: EventPayloads['depositAddress.depositReceived'], deferAppend = false): Promise<void> {
    const record = depositTransactionRecord(d);
    const full = { ...record, status: 'processing', subStatus: null, at: d.at } as TransactionCreated;
    let next = depositNext(full, d, `${d.transactionId}.2`);
    // A deposit sent straight back goes to the return wallet: checked now, as every refund is (ADR 0056).
    if (next.kind === 'return') next = { ...next, refused: (await this.unusable(d.projectId, full, { kind: 'refund' }, 'start'))?.failure };
    try {
      await this.createOnce(deferAppend, (options) => this.execute(d.projectId, d.transactionId, { type: 'CreateFromDeposit', record, depositLeg: cryptoDepositLeg(d), txHash: d.deposit.txHash, next, at: d.at }, options));
    } catch (error) {
      if (error instanceof ConcurrencyError) return;
      throw error;
    }
  }

  /** The held deposit's sender was registered: the hold is cleared and the payout goes on (or waits for a destination). */
  async onSenderAttributed(event: RecordedEvent<'depositAddress.senderAttributed', EventPayloads['depositAddress.senderAttributed']>): Promise<void> {
    const d = event.data;
    if (!(await this.exists(d.transactionId))) return;
    // The payout starts now, to the address's destination as it is: one gone already (the address may not have
    // heard yet) holds the deposit for a destination instead.
    const target = withTarget((await this.load(d.transactionId)).record!, d.target);
    const gone = d.destinationMissing ? undefined : (await this.unusable(d.projectId, target, { kind: 'payout' }, 'start'))?.account.id;
    await this.execute(d.projectId, d.transactionId, (state) => {
      const record = withTarget(state.record!, d.target);
      const waits = d.destinationMissing || gone !== undefined;
      const next = waits ? destinationMissing('depositAddress', gone ?? sideExternalAccountId(record.destination)) : releaseNext(state, record, nextLegId(state));
      return { type: 'ReleaseHold', code: 'senderAttribution', sender: { party: d.sender, externalAccountId: d.externalAccountId }, target: d.target, next, at: d.at };
    });
    await this.timers.cancel(ATTRIBUTION_TIMER, d.transactionId);
  }

  /** The address has a usable destination again: every deposit held for one pays out to it. */
  async onDestinationRestored(event: RecordedEvent<'depositAddress.destinationRestored', EventPayloads['depositAddress.destinationRestored']>): Promise<void> {
    for (const release of event.data.releases) await this.releaseToDestination(event.data.projectId, release.transactionId, release.target, event.data.at);
  }

  /** The virtual account has a new destination, or had one already when a deposit was held (ADR 0056): the held deposits pay out to it. */
  async onVirtualAccountDestinationRestored(event: RecordedEvent<'virtualAccount.destinationRestored', EventPayloads['virtualAccount.destinationRestored']>): Promise<void> {
    for (const release of event.data.releases) await this.releaseToDestination(event.data.projectId, release.transactionId, release.target, event.data.at);
  }

  /**
   * Releases a deposit held for a destination to this one; the payout starts (after review, if it calls for one it
   * has not had). A destination already gone when the release comes (checked now, before the stream's lock) releases
   * nothing: the deposit waits on, for the next destination its origin is given. A deposit not held (any more)
   * is left alone by the decider.
   */
  private async releaseToDestination(projectId: string, transactionId: string, target: DepositPayoutTarget | VirtualAccountTarget, at: string): Promise<void> {
    if (!(await this.exists(transactionId))) return;
    const record = (await this.load(transactionId)).record!;
    if (await this.unusable(projectId, withTarget(record, target), { kind: 'payout' }, 'start')) return;
    await this.execute(projectId, transactionId, (state) => ({
      type: 'ReleaseHold',
      code: 'payoutDestinationMissing',
      target,
      next: releaseNext(state, withTarget(state.record!, target), nextLegId(state)),
      at,
    }));
  }

  /**
   * The deposits of these (a deposit address's or a virtual account's) that wait for a payout destination: the
   * transactions port, asked by the origin when it is given a new destination (ADR 0056).
   */
  async heldForDestination(projectId: string, transactionIds: string[]): Promise<string[]> {
    const ids = [...new Set(transactionIds.filter((id) => isId('transaction', id)))];
    const rows = await this.readModel.statuses(projectId, ids);
    return rows.filter((r) => r.sub_status === 'awaitingAction.payoutDestinationMissing').map((r) => r.id);
  }

  /**
   * The attribution deadline passed with the sender unregistered: the crypto goes back, failed.attributionTimeout;
   * or, when its return wallet was invalidated or deleted, it is held for an operator.
   */
  private async onAttributionTimeout(timer: DueTimer): Promise<void> {
    const transactionId = String(timer.payload.transactionId);
    const at = (await this.clock.now(timer.projectId)).toISOString();
    const record = (await this.load(transactionId)).record!;
    const refused = (await this.unusable(timer.projectId, record, { kind: 'refund' }, 'start'))?.failure;
    await this.execute(timer.projectId, transactionId, (state) => ({ type: 'ExpireAttribution', refundLeg: refundLeg(state.record!, nextLegId(state)), refundRefused: refused, at }));
  }

  /**
   * Whether the transaction was made: its stream has an event (an index probe; no event is read). The log
   * readers ask before making a transaction from a deposit, which the port nearly always made first: an
   * attempt would fail on the stream's first version, under a savepoint, with an error to handle. One this
   * process's port made and committed is known without the probe (RecentIds: the last 10,000).
   */
  private async exists(transactionId: string): Promise<boolean> {
    return this.madeHere.has(transactionId) || this.store.streamExists(transactionStreamId(transactionId));
  }

  /**
   * An inbound transfer's transaction (spec: rule 3; Virtual account): created `processing` with its bank
   * deposit leg pending (the bank settles it on its rail), or, for an account that takes no deposits now,
   * failed at once with the deposit returned to the sender. Once per transactionId.
   */
  private async createVirtualAccountTransaction(d: EventPayloads['virtualAccount.depositReceived'], deferAppend = false): Promise<void> {
    const record = virtualAccountTransactionRecord(d);
    const returned = d.disposition === 'returnToSender' ? VIRTUAL_ACCOUNT_INACTIVE : undefined;
    try {
      await this.createOnce(deferAppend, (options) => this.execute(d.projectId, d.transactionId, { type: 'CreateTransaction', record, firstLeg: bankDepositLeg(d), returned, at: d.at }, options));
    } catch (error) {
      if (error instanceof ConcurrencyError) return;
      throw error;
    }
  }

  private async createCashInTransaction(d: EventPayloads['cashIn.deposited'], deferAppend = false): Promise<void> {
    const customer = { relationship: 'customer', customerId: d.customerId, entityType: 'individual' } as const;
    const destination: TransactionCreated['destination'] = d.destination.walletId
      ? { type: 'walletOms', category: 'crypto', details: { id: d.destination.walletId, asset: d.destination.asset, network: d.destination.network, address: d.destination.blockchainAddress }, party: customer }
      : {
          type: 'walletExternal',
          category: 'crypto',
          details: { ...(d.destination.externalAccountId ? { id: d.destination.externalAccountId } : {}), asset: d.destination.asset, network: d.destination.network, address: d.destination.blockchainAddress },
          party: d.destination.externalAccountId ? customer : { relationship: 'externalUnregistered' },
        };
    const record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> = {
      transactionId: d.transactionId,
      projectId: d.projectId,
      customerId: d.customerId,
      sourceToDestination: 'cashToCrypto',
      precursor: { type: 'cashIn', id: d.cashInId },
      source: {
        type: 'cash',
        category: 'cash',
        details: { asset: d.deposit.asset, network: 'cash', locationId: d.location.locId, locationReference: d.location.reference, locationProvider: d.location.provider },
        party: customer,
      },
      destination,
      pricing: d.pricing,
      settlementType: null,
      metadata: d.metadata,
      customerIds: [d.customerId],
    };
    const full = { ...record, status: 'processing', subStatus: null, at: d.at } as TransactionCreated;
    try {
      await this.createOnce(deferAppend, (options) => this.execute(d.projectId, d.transactionId, { type: 'CreateTransaction', record, firstLeg: depositLeg(full, `${d.transactionId}.1`), at: d.at }, options));
    } catch (error) {
      if (error instanceof ConcurrencyError) return;
      throw error;
    }
  }

  /** The accounts service returned a refund's money to the source wallet. */
  async onFundsReturned(event: RecordedEvent<'funds.returned', EventPayloads['funds.returned']>): Promise<void> {
    const d = event.data;
    const at = (await this.clock.now(d.projectId)).toISOString();
    // The refund leg in flight; with none (a repeat), the decider confirms nothing. A virtual account's refund
    // leaves over a bank rail: the bank, not the ledger's posting, says when it arrived.
    await this.execute(d.projectId, d.transactionId, (state) => ({
      type: 'ConfirmRefund',
      legId: isVirtualAccountTransaction(state.record) ? '' : (state.legs.find((l) => l.kind === 'refund' && l.status === 'pending')?.id ?? ''),
      at,
    }));
  }

  /**
   * A transaction made from another service's event, which the port may be making at the same moment
   * (it runs after that service's commit, while the log reader may already read the event): whichever
   * appends second fails, a ConcurrencyError its caller ignores. Under a savepoint, so that the failure
   * (a unique violation aborts a transaction) undoes only this step: the log reader's batch, which
   * holds the other events of the batch and the checkpoint, goes on instead of rolling back and being
   * read again.
   */
  private createOnce(deferAppend: boolean, create: (options: DecideOptions) => Promise<unknown>): Promise<unknown> {
    // (The port's first attempt, which no caller's batch holds: see createFromPort.)
    if (deferAppend) return create({ newStream: true, deferAppend: true });
    return this.uow.savepoint(() => create({ newStream: true }));
  }

  /**
   * The port's creation of a transaction from another service's deposit. Outside a caller's transaction its
   * first attempt appends the stream's first events with the commit, one round trip less than appending
   * them alone: the log reader making the same transaction at the same moment is rare, and then the commit
   * fails on the stream's unique version, and the retry, appending at once, finds the transaction made.
   */
  private async createFromPort(transactionId: string, create: (deferAppend: boolean) => Promise<void>): Promise<void> {
    let first = !this.uow.inTransaction;
    await runCommand(this.uow, () => {
      const deferAppend = first;
      first = false;
      return create(deferAppend);
    });
    // Made (or found made), once that commits: its deposit event, read by this process's log reader
    // moments later, needs no probe of the database to know it.
    await this.uow.afterCommit(async () => this.madeHere.add(transactionId));
  }

  private async execute(projectId: string, transactionId: string, command: TransactionCommand | ((state: TransactionState) => TransactionCommand), options: DecideOptions = {}) {
    const decision = await decideAndAppend(this.store, transactionStreamId(transactionId), transactionDecider, command, { projectId }, undefined, options);
    if (decision.events.length === 0) return decision;
    const announcements = announce(transactionId, decision.before, decision.events as unknown as Array<RecordedEvent & TransactionEvent>);
    await this.readModel.upsert(projectId, decision.state.record!.customerIds, transactionView(decision.state), decision.version);
    await publishPartnerEvents(this.store, decision.events, async (event) => announcements.get(event.eventId));
    await this.scheduleRails(projectId, decision.state, decision.events as unknown as Array<RecordedEvent & TransactionEvent>);
    return decision;
  }

  /** Each new leg goes to its rail; a review started at creation goes to the compliance desk. */
  private async scheduleRails(projectId: string, state: TransactionState, events: Array<RecordedEvent & TransactionEvent>): Promise<void> {
    const now = await this.clock.now(projectId);
    for (const event of events) {
      if (event.type === 'transaction.payoutUnconfirmed') {
        await this.timers.schedule(projectId, SWEEP_TIMER, event.data.legId, new Date(now.getTime() + UNCONFIRMED_SWEEP_SECONDS * 1000), { transactionId: event.data.transactionId, legId: event.data.legId });
      }
      // A leg settled in the command that started it (a deposit's crypto, final when reported) has no rail to ask.
      if ((event.type === 'transaction.legInitiated' || event.type === 'transaction.payoutRetried') && state.legs.find((l) => l.id === event.data.leg.id)?.status === 'pending') {
        const leg = event.data.leg;
        const { afterSeconds } = this.rails.answer(state.record!, leg, now);
        await this.timers.schedule(projectId, LEG_TIMER, leg.id, new Date(now.getTime() + afterSeconds * 1000), { transactionId: event.data.transactionId, legId: leg.id });
      }
      if (event.type === 'transaction.refundInitiated' && isVirtualAccountTransaction(state.record)) {
        const steps = sandboxRefundSteps(state.record!, event.data.leg);
        const leg = event.data.leg;
        const payload = (step: string) => ({ transactionId: event.data.transactionId, legId: leg.id, step });
        if ('unconfirmed' in steps) {
          await this.timers.schedule(projectId, REFUND_TIMER, `${leg.id}:unconfirmed`, new Date(now.getTime() + steps.unconfirmed * 1000), payload('unconfirmed'));
        } else {
          await this.timers.schedule(projectId, REFUND_TIMER, `${leg.id}:accepted`, new Date(now.getTime() + steps.accepted * 1000), payload('accepted'));
          await this.timers.schedule(projectId, REFUND_TIMER, `${leg.id}:settled`, new Date(now.getTime() + steps.settled * 1000), payload('settled'));
        }
      }
      if (event.type === 'transaction.held' && event.data.hold.deadline) {
        await this.timers.schedule(projectId, ATTRIBUTION_TIMER, event.data.transactionId, new Date(event.data.hold.deadline), { transactionId: event.data.transactionId });
      }
      if (event.type === 'transaction.reviewStarted' && !state.legs.some((l) => l.status === 'failed')) {
        await this.timers.schedule(projectId, REVIEW_TIMER, event.data.transactionId, new Date(now.getTime() + SANDBOX_REVIEW_SECONDS * 1000), { transactionId: event.data.transactionId });
      }
    }
  }
}

/**
 * The partner events of one command's transaction events (spec: Events; tie 5). Every change of status or
 * sub-status is a transaction.statusChanged, and each leg of a deposit address or virtual account deposit is
 * announced by its own event, before the statusChanged it caused. Each announcement carries the transaction
 * as it stands once the command has done everything it did at that step: the events after it that announce
 * nothing (the first leg started with the transaction, the next leg started with a settlement) are part of
 * it, so it is published with the last of them, that version its `sequence`. The command's last
 * announcement is therefore exactly what a GET answers once it commits (issue 26 item 3).
 */
export function announce(transactionId: string, before: TransactionState, events: ReadonlyArray<RecordedEvent & TransactionEvent>): Map<string, PartnerResource> {
  const announcements = new Map<string, PartnerResource>();
  let state = before;
  let open: { events: string[]; previousStatus: string | null } | undefined;
  let last: { eventId: string; state: TransactionState } | undefined;
  const close = () => {
    if (open && last) announcements.set(last.eventId, { resourceId: transactionId, data: transactionView(last.state) as unknown as Record<string, unknown>, ...open });
    open = undefined;
  };
  for (const event of events) {
    const previous = state;
    state = transactionDecider.evolve(state, event);
    const names = [...depositAddressLegEvents(previous, event, state), ...virtualAccountLegEvents(previous, event, state)];
    if (previous.status !== state.status || previous.subStatus !== state.subStatus) {
      names.push('transaction.statusChanged');
      if (event.type === 'transaction.reviewStarted') names.push(underReviewEvent(state.record!.sourceToDestination));
    }
    if (names.length > 0) {
      close();
      open = { events: names, previousStatus: previous.status === 'none' ? null : previous.status };
    }
    last = { eventId: event.eventId, state };
  }
  close();
  return announcements;
}

const PROVIDER_TIMEOUT = { code: 'providerTimeout', message: 'The payout provider has no record of the transfer.' };

/** A deposit address's or virtual account's deposit: its payouts and refunds have holds of their own (ADR 0056). */
function fromDeposit(record: { precursor: { type: string } }): boolean {
  return record.precursor.type === 'depositAddress' || record.precursor.type === 'virtualAccount';
}

function nextLegId(state: TransactionState): string {
  return `${state.record!.transactionId}.${state.legs.length + 1}`;
}

/**
 * work, started at once beside checks still on their way (AcceptedQuote.pendingChecks); the checks' refusal
 * wins over work's own, and work's result is given only once both have settled.
 */
async function afterChecks<T>(checks: Promise<void> | undefined, work: () => Promise<T>): Promise<T> {
  if (!checks) return work();
  const [checked, done] = await Promise.allSettled([checks, work()]);
  if (checked.status === 'rejected') throw checked.reason;
  if (done.status === 'rejected') throw done.reason;
  return done.value;
}
