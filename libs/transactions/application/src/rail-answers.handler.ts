// The rails' answers about legs (spec: Transaction legs; States / Transaction): the sandbox rail's answer on
// its timer, the sweeper's question about a payout the service stopped waiting for (spec: Unconfirmed payout
// sweep), and the sandbox bank's steps of a virtual account's refund.
import { Injectable, type OnModuleInit } from '@nestjs/common';
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
import { PaymentRails } from '@mm/transactions/infrastructure';
import { LegAccountChecks } from './leg-account-checks';
import { TransactionCommands } from './transaction.commands';
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
  constructor(
    private readonly commands: TransactionCommands,
    private readonly rails: PaymentRails,
    private readonly accounts: LegAccountChecks,
    private readonly clock: ProjectClock,
    private readonly timers: TransactionTimerService,
    private readonly unconfirmed: UnconfirmedPayoutLookup,
  ) {}

  onModuleInit(): void {
    this.timers.register(LEG_TIMER, (timer) => this.onLegAnswer(timer));
    this.timers.register(SWEEP_TIMER, (timer) => this.onSweep(timer));
    this.timers.register(REFUND_TIMER, (timer) => this.onBankRefund(timer));
  }

  /**
   * A rail answered a leg (the sandbox provider's timer). Decided on the state read under the stream's
   * lock. An account the leg needs that is no longer usable refuses the leg whatever the rail says; an
   * accounts service that cannot be asked fails the timer, which fires again later.
   */
  private async onLegAnswer({
    projectId,
    payload: { transactionId, legId },
  }: DueTransactionTimer<typeof LEG_TIMER>): Promise<void> {
    const at = await this.clock.now(projectId);
    const { unusable, deliveryGone } = await this.legChecks(projectId, transactionId, legId);
    await this.commands.handle(projectId, transactionId, (state: TransactionState): TransactionCommand => {
      const leg = state.status === 'none' ? undefined : state.legs.find((l) => l.id === legId);
      // A leg already answered (or unknown) is answered again with nothing: the decider ignores it.
      if (state.status === 'none' || !leg || leg.status !== 'pending')
        return { type: 'ReportLeg', legId, outcome: { kind: 'unconfirmed' }, at: at.toISOString() };
      const { record } = state;
      let { outcome }: { outcome: RailOutcome } = unusable
        ? { outcome: { kind: 'declined', failure: unusable } }
        : this.rails.answer(record, leg, at);
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
    const answer = await this.unconfirmed.lookUp(state.record, leg, at);
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

  /** The sandbox bank's answers about a virtual account's refund: accepted (in flight), settled, or silence past the window. */
  private async onBankRefund({
    projectId,
    payload: { transactionId, legId, step },
  }: DueTransactionTimer<typeof REFUND_TIMER>): Promise<void> {
    const at = (await this.clock.now(projectId)).toISOString();
    const outcome: RailOutcome =
      step === 'accepted'
        ? { kind: 'refundAccepted' }
        : step === 'unconfirmed'
          ? { kind: 'refundUnconfirmed' }
          : { kind: 'settled', references: {} };
    await this.commands.handle(projectId, transactionId, { type: 'ReportLeg', legId, outcome, at });
  }
}
