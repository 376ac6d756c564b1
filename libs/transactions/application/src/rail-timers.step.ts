// What a transaction's decision sets off on the rails, in its transaction: each new leg goes to its rail
// (a chain's transfer queued with it, or the sandbox rail's answer on a timer), an unconfirmed payout to the sweeper, a virtual account's bank
// refund to the bank's steps, a held deposit to its attribution deadline, and a review started with no
// failed leg to the compliance desk.
import type { ProjectClock } from '@mm/platform/clock';
import type { AfterDecision, RecordedEvent } from '@mm/platform/event-store';
import {
  existingTransaction,
  isVirtualAccountTransaction,
  sandboxRefundSteps,
  SANDBOX_REVIEW_SECONDS,
  UNCONFIRMED_SWEEP_SECONDS,
  type TransactionEvent,
  type TransactionState,
} from '@mm/transactions/domain';
import type { ChainPayoutRail, PaymentRails } from '@mm/transactions/infrastructure';
import {
  ATTRIBUTION_TIMER,
  LEG_TIMER,
  REFUND_TIMER,
  REVIEW_TIMER,
  SWEEP_TIMER,
  type TransactionTimerService,
} from './transaction.timers';

export function scheduleRails(
  clock: ProjectClock,
  rails: PaymentRails,
  timers: TransactionTimerService,
  chain: ChainPayoutRail,
): AfterDecision<TransactionEvent, TransactionState> {
  return async (decision, { projectId }) => {
    const state = existingTransaction(decision.state);
    const now = await clock.now(projectId);
    const after = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    for (const event of decision.events as unknown as Array<RecordedEvent & TransactionEvent>) {
      if (event.type === 'transaction.payoutUnconfirmed') {
        await timers.schedule(projectId, SWEEP_TIMER, event.data.legId, after(UNCONFIRMED_SWEEP_SECONDS), {
          transactionId: event.data.transactionId,
          legId: event.data.legId,
        });
      }
      // A leg settled in the command that started it (a deposit's crypto, final when reported) has no rail to ask.
      if (
        (event.type === 'transaction.legInitiated' || event.type === 'transaction.payoutRetried') &&
        state.legs.find((l) => l.id === event.data.leg.id)?.status === 'pending'
      ) {
        const leg = event.data.leg;
        // On a chain: the transfer is queued with the leg, and the chain's confirmation answers it.
        if (chain.carries(state.record, leg)) {
          await chain.submit(projectId, state.record, leg);
          continue;
        }
        const { afterSeconds } = rails.answer(state.record, leg, now);
        await timers.schedule(projectId, LEG_TIMER, leg.id, after(afterSeconds), {
          transactionId: event.data.transactionId,
          legId: leg.id,
        });
      }
      // A deposit address deposit's return on a chain: the treasury's transfer, which the chain's confirmation answers.
      if (event.type === 'transaction.refundInitiated' && chain.carries(state.record, event.data.leg)) {
        await chain.submit(projectId, state.record, event.data.leg);
        continue;
      }
      if (event.type === 'transaction.refundInitiated' && isVirtualAccountTransaction(state.record)) {
        const leg = event.data.leg;
        const steps = sandboxRefundSteps(state.record, leg);
        const payload = (step: 'accepted' | 'settled' | 'unconfirmed') => ({
          transactionId: event.data.transactionId,
          legId: leg.id,
          step,
        });
        if ('unconfirmed' in steps) {
          await timers.schedule(
            projectId,
            REFUND_TIMER,
            `${leg.id}:unconfirmed`,
            after(steps.unconfirmed),
            payload('unconfirmed'),
          );
        } else {
          await timers.schedule(
            projectId,
            REFUND_TIMER,
            `${leg.id}:accepted`,
            after(steps.accepted),
            payload('accepted'),
          );
          await timers.schedule(projectId, REFUND_TIMER, `${leg.id}:settled`, after(steps.settled), payload('settled'));
        }
      }
      if (event.type === 'transaction.held' && event.data.hold.deadline) {
        await timers.schedule(
          projectId,
          ATTRIBUTION_TIMER,
          event.data.transactionId,
          new Date(event.data.hold.deadline),
          { transactionId: event.data.transactionId },
        );
      }
      if (event.type === 'transaction.reviewStarted' && !state.legs.some((l) => l.status === 'failed')) {
        await timers.schedule(projectId, REVIEW_TIMER, event.data.transactionId, after(SANDBOX_REVIEW_SECONDS), {
          transactionId: event.data.transactionId,
        });
      }
    }
  };
}
