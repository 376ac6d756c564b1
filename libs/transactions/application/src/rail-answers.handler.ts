// The rails' answers about legs (spec: Transaction legs; States / Transaction): a provider's event about a leg it
// was sent (its outcome, or a virtual account refund's steps at the sender's bank), and the sweeper's question about
// a payout the service stopped waiting for (spec: Unconfirmed payout sweep).
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { LegFailure } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import {
  inboundReferences,
  isVirtualAccountTransaction,
  needsReview,
  nextLegId,
  payoutLeg,
  refundLeg,
  UNCONFIRMED_SWEEP_SECONDS,
  type NewLeg,
  type RailOutcome,
  type TransactionCommand,
  type TransactionState,
} from '@mm/transactions/domain';
import { PaymentRails, RailSubmissions, type RailEvent } from '@mm/transactions/infrastructure';
import { LegAccountChecks } from './leg-account-checks';
import { TransactionCommands } from './transaction.commands';
import { submitLeg } from './rail-submissions.step';
import {
  LEG_TIMER,
  REFUND_TIMER,
  SWEEP_TIMER,
  TransactionTimerService,
  type DueTransactionTimer,
} from './transaction.timers';
import { UnconfirmedPayoutLookup } from './unconfirmed-payout-lookup';

@Injectable()
export class RailAnswersHandler implements OnModuleInit {
  private readonly logger = new Logger('rails');

  constructor(
    private readonly commands: TransactionCommands,
    private readonly rails: PaymentRails,
    private readonly submissions: RailSubmissions,
    private readonly accounts: LegAccountChecks,
    private readonly clock: ProjectClock,
    private readonly timers: TransactionTimerService,
    private readonly unconfirmed: UnconfirmedPayoutLookup,
  ) {}

  onModuleInit(): void {
    this.rails.onEvent((event) => this.onRailEvent(event));
    this.timers.register(SWEEP_TIMER, (timer) => this.onSweep(timer));
    this.timers.register(LEG_TIMER, ({ projectId, payload }) => this.sendUnsent(projectId, payload, 'leg'));
    this.timers.register(REFUND_TIMER, ({ projectId, payload }) => this.sendUnsent(projectId, payload, 'bankRefund'));
  }

  /** A leg an earlier version left waiting on a timer of its own, pending and never sent: sent to the rails now. */
  private async sendUnsent(
    projectId: string,
    { transactionId, legId }: { transactionId: string; legId: string },
    purpose: 'leg' | 'bankRefund',
  ): Promise<void> {
    const state = await this.commands.current(transactionId);
    const leg = state.status === 'none' ? undefined : state.legs.find((l) => l.id === legId);
    if (state.status === 'none' || leg?.status !== 'pending' || (await this.submissions.ofLeg(legId))) return;
    const at = await this.clock.now(projectId);
    await submitLeg(
      { provider: this.rails, submissions: this.submissions },
      { projectId, record: state.record, leg, purpose, at },
    );
  }

  /** A provider's event, recorded on the leg its reference was given for; one for no submission of ours is dropped. */
  private async onRailEvent({ eventId, reference, outcome }: RailEvent): Promise<void> {
    const submission = await this.submissions.byReference(reference);
    if (!submission) {
      this.logger.warn(`event ${eventId} from the rails names ${reference}, which nothing was sent as; dropped`);
      return;
    }
    const { project_id: projectId, transaction_id: transactionId, leg_id: legId } = submission;
    // The sender's bank's steps of a refund are recorded as they come: no account of ours decides them.
    if (submission.purpose === 'bankRefund') {
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(projectId, transactionId, { type: 'ReportLeg', legId, outcome, at });
      return;
    }
    await this.onLegAnswer(projectId, transactionId, legId, outcome);
  }

  /**
   * A rail answered a leg. Decided on the state read under the stream's lock. An account the leg needs that is
   * no longer usable refuses the leg whatever the rail says; an accounts service that cannot be asked fails the
   * event's delivery, which comes again later.
   */
  private async onLegAnswer(
    projectId: string,
    transactionId: string,
    legId: string,
    answer: RailOutcome,
  ): Promise<void> {
    const at = await this.clock.now(projectId);
    const { unusable, deliveryGone } = await this.legChecks(projectId, transactionId, legId);
    await this.commands.handle(projectId, transactionId, (state: TransactionState): TransactionCommand => {
      const leg = state.status === 'none' ? undefined : state.legs.find((l) => l.id === legId);
      // A leg already answered (or unknown) is answered again with nothing: the decider ignores it.
      if (state.status === 'none' || !leg || leg.status !== 'pending')
        return { type: 'ReportLeg', legId, outcome: { kind: 'unconfirmed' }, at: at.toISOString() };
      const { record } = state;
      let outcome: RailOutcome = unusable ? { kind: 'declined', failure: unusable } : answer;
      const next = nextLegId(state);
      let nextLeg: NewLeg | undefined;
      let review: string | undefined;
      const inbound = isVirtualAccountTransaction(record);
      if (leg.kind === 'deposit' && outcome.kind === 'settled') {
        // A virtual account's deposit carries the bank's own reference for the transfer.
        if (inbound) outcome = { kind: 'settled', references: inboundReferences(record, outcome.references) };
        if (inbound && needsReview(record)) review = 'amount over the compliance review threshold';
        else nextLeg = payoutLeg(record, next);
      }
      if (leg.kind === 'payout' && outcome.kind === 'declined') nextLeg = refundLeg(record, next);
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
  private async legChecks(
    projectId: string,
    transactionId: string,
    legId: string,
  ): Promise<{ unusable?: LegFailure; deliveryGone?: string }> {
    const state = await this.commands.current(transactionId);
    const leg = state.status === 'none' ? undefined : state.legs.find((l) => l.id === legId);
    if (state.status === 'none' || !leg || leg.status !== 'pending') return {};
    const { record } = state;
    const unusable = (await this.accounts.unusable(projectId, record, leg, 'answer'))?.failure;
    const starts = leg.kind === 'deposit' && isVirtualAccountTransaction(record) && !needsReview(record);
    const deliveryGone = starts
      ? (await this.accounts.unusable(projectId, record, { kind: 'payout' }, 'start'))?.account.id
      : undefined;
    return { unusable, deliveryGone };
  }

  /** The sweeper: asks the provider about a payout the service stopped waiting for. */
  private async onSweep(timer: DueTransactionTimer<typeof SWEEP_TIMER>): Promise<void> {
    const { projectId, payload } = timer;
    const state = await this.commands.load(payload.transactionId);
    const leg = state.legs.find((l) => l.id === payload.legId);
    if (!leg || leg.status !== 'pending' || state.subStatus !== 'processing.payoutUnconfirmed') return;
    const at = await this.clock.now(projectId);
    const answer = await this.unconfirmed.lookUp(state.record, leg);
    // Nothing to conclude yet (the provider away, or a transfer on a chain that may still land): asked again later.
    if (answer.kind !== 'answered') {
      await this.timers.schedule(
        projectId,
        SWEEP_TIMER,
        payload.legId,
        new Date(at.getTime() + UNCONFIRMED_SWEEP_SECONDS * 1000),
        payload,
      );
      return;
    }
    await this.commands.handle(projectId, payload.transactionId, {
      type: 'ReportLeg',
      legId: payload.legId,
      outcome: answer.outcome,
      at: at.toISOString(),
    });
  }
}
