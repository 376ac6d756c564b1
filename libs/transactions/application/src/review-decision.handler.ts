// The sandbox compliance desk's decision on a review (spec: States / Transaction, processing.underReview),
// on its timer. The sandbox's magic cents choose a rejection (docs/sandbox.md); anything else is approved.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ProjectClock } from '@mm/platform/clock';
import {
  bankRefundLeg,
  depositLeg,
  existingTransaction,
  isFromDeposit,
  isVirtualAccountTransaction,
  magicCents,
  nextLegId,
  payoutLeg,
  refundLeg,
  SANDBOX_MAGIC_CENTS,
} from '@mm/transactions/domain';
import { LegAccountChecks } from './leg-account-checks';
import { TransactionCommands } from './transaction.commands';
import { REVIEW_TIMER, TransactionTimerService, type DueTransactionTimer } from './transaction.timers';

@Injectable()
export class ReviewDecisionHandler implements OnModuleInit {
  constructor(
    private readonly commands: TransactionCommands,
    private readonly accounts: LegAccountChecks,
    private readonly clock: ProjectClock,
    private readonly timers: TransactionTimerService,
  ) {}

  onModuleInit(): void {
    this.timers.register(REVIEW_TIMER, (timer) => this.onReviewDecision(timer));
  }

  /**
   * The sandbox compliance desk decided a review. A deposit's payout, once approved, or its refund, once
   * rejected, starts now: its account is checked first (ADR 0056).
   */
  private async onReviewDecision({
    projectId,
    payload: { transactionId },
  }: DueTransactionTimer<typeof REVIEW_TIMER>): Promise<void> {
    const at = (await this.clock.now(projectId)).toISOString();
    const { record } = await this.commands.load(transactionId);
    const rejected = magicCents(record) === SANDBOX_MAGIC_CENTS.reviewRejected;
    const checked = isFromDeposit(record)
      ? await this.accounts.unusable(projectId, record, { kind: rejected ? 'refund' : 'payout' }, 'start')
      : undefined;
    await this.commands.handle(projectId, transactionId, (current) => {
      const state = existingTransaction(current);
      const next = nextLegId(state);
      const firstLeg =
        state.record.source.type === 'card' ? depositLeg(state.record, next) : payoutLeg(state.record, next);
      const back = isVirtualAccountTransaction(state.record)
        ? bankRefundLeg(state.record, next)
        : refundLeg(state.record, next);
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
}
