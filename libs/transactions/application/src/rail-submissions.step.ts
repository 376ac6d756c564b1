// What a transaction's decision sets off on the rails, in its transaction: each new leg goes to its rail (a
// chain's transfer queued with it, or a submission to the rail's provider, whose reference is kept with it), an
// unconfirmed payout to the sweeper, a virtual account's bank refund to the bank, a held deposit to its attribution
// deadline, and a review started with no failed leg to the compliance desk.
import type { ProjectClock } from '@mm/platform/clock';
import type { AfterDecision, RecordedEvent } from '@mm/platform/event-store';
import {
  existingTransaction,
  isVirtualAccountTransaction,
  SANDBOX_REVIEW_SECONDS,
  UNCONFIRMED_SWEEP_SECONDS,
  type NewLeg,
  type TransactionEvent,
  type TransactionState,
} from '@mm/transactions/domain';
import type { ChainPayoutRail, PaymentRails, RailSubmission, RailSubmissions } from '@mm/transactions/infrastructure';
import { ATTRIBUTION_TIMER, REVIEW_TIMER, SWEEP_TIMER, type TransactionTimerService } from './transaction.timers';

/** The rails a decision's legs go to: the chain's sender, the other rails' provider, and the record of what was sent. */
export interface Rails {
  chain: ChainPayoutRail;
  provider: PaymentRails;
  submissions: RailSubmissions;
}

/** Sends a leg to its rail's provider and keeps the reference it answers with, in the caller's transaction. */
export async function submitLeg(rails: Omit<Rails, 'chain'>, submission: RailSubmission): Promise<void> {
  const { reference } = await rails.provider.submit(submission);
  await rails.submissions.record({
    reference,
    project_id: submission.projectId,
    transaction_id: submission.record.transactionId,
    leg_id: submission.leg.id,
    purpose: submission.purpose,
  });
}

export function scheduleRails(
  clock: ProjectClock,
  rails: Rails,
  timers: TransactionTimerService,
): AfterDecision<TransactionEvent, TransactionState> {
  const { chain } = rails;
  return async (decision, { projectId }) => {
    const state = existingTransaction(decision.state);
    const now = await clock.now(projectId);
    const after = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    const submit = (leg: NewLeg, purpose: RailSubmission['purpose']) =>
      submitLeg(rails, { projectId, record: state.record, leg, purpose, at: now });
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
        await submit(leg, 'leg');
      }
      // A deposit address deposit's return on a chain: the treasury's transfer, which the chain's confirmation answers.
      if (event.type === 'transaction.refundInitiated' && chain.carries(state.record, event.data.leg)) {
        await chain.submit(projectId, state.record, event.data.leg);
        continue;
      }
      // A virtual account deposit's refund: the sender's bank takes it back.
      if (event.type === 'transaction.refundInitiated' && isVirtualAccountTransaction(state.record))
        await submit(event.data.leg, 'bankRefund');
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
