// The operator's actions on a transaction (spec: Operator-only): retry, refund, mark-failed and
// complete-refund, on any project's transaction.
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { dec, formatAmount } from '@mm/platform/money';
import {
  bankRefundLeg,
  isFromDeposit,
  isVirtualAccountTransaction,
  nextLegId,
  payoutLeg,
  refundLeg,
  sentBackToSender,
  transactionView,
  existingTransaction,
  type TransactionView,
} from '@mm/transactions/domain';
import { LegAccountChecks } from './leg-account-checks';
import { TransactionCommands } from './transaction.commands';
import { TransactionQueries } from './transaction.queries';
import { UnconfirmedPayoutLookup } from './unconfirmed-payout-lookup';

export type OperatorAction = 'retry' | 'refund' | 'markFailed';

/** The fields only some actions take: refused (400) on the others, before anything is done or requested. */
export function checkOperatorFields(
  view: TransactionView,
  action: OperatorAction | 'completeRefund',
  amount?: string,
  to?: 'returnDestination' | 'sender',
): void {
  if (amount !== undefined && (action !== 'refund' || view.precursor.type !== 'virtualAccount')) {
    throw new ApiError(
      'InvalidRequest',
      'amount: only a refund of a virtual account deposit may return part of the money; other refunds return all of it',
    );
  }
  if (to !== undefined && (action !== 'refund' || !isFromDeposit(view))) {
    throw new ApiError(
      'InvalidRequest',
      'to: only a refund of a deposit address or virtual account deposit goes to a return destination or the sender; other refunds go back to the wallet or card the money came from',
    );
  }
}

export interface OperatorResult {
  /** already_completed is not an error (spec: Errors): the retry had nothing to do. */
  result: 'retried' | 'refunding' | 'markedFailed' | 'already_completed' | 'completedByProvider' | 'refundCompleted';
  transaction: TransactionView;
}

@Injectable()
export class OperatorActionsHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: TransactionCommands,
    private readonly queries: TransactionQueries,
    private readonly unconfirmed: UnconfirmedPayoutLookup,
    private readonly accounts: LegAccountChecks,
    private readonly clock: ProjectClock,
  ) {}

  /**
   * Operator retry, refund and mark-failed. Each asks the provider about an unconfirmed payout
   * first (spec: Unconfirmed payout sweep): a transfer the provider holds continues and is never
   * sent twice; one it has none of fails with providerTimeout; a provider that cannot be reached
   * is error 10369 and changes nothing.
   */
  async operate(
    id: string,
    action: OperatorAction,
    reason: string,
    amount?: string,
    to?: 'returnDestination' | 'sender',
  ): Promise<OperatorResult> {
    const row = await this.queries.requireAny(id);
    checkOperatorFields(row.view, action, amount, to);
    const projectId = row.project_id;
    const looked = await runCommand(this.uow, () => this.lookUpUnconfirmed(projectId, id, action));
    if (looked === 'already_completed' || (looked === 'completedByProvider' && action === 'retry')) {
      return { result: looked, transaction: (await this.queries.requireAny(id)).view };
    }
    // Refused requests change nothing (the settlement rolls back with them): the sweeper completes the transfer.
    if (looked === 'completedByProvider')
      throw new ApiError('vendorOrderExists', 'the provider holds the transfer: the payout completes');
    return runCommand(this.uow, async () => {
      const state = await this.commands.load(id);
      const record = state.record;
      const at = (await this.clock.now(projectId)).toISOString();
      const next = nextLegId(state);
      if (action === 'retry') {
        const failedLeg = [...state.legs].reverse().find((l) => l.kind === 'payout' && l.status === 'failed');
        const leg = { ...payoutLeg(record, next), retryOf: failedLeg?.id };
        await this.commands.handle(projectId, id, { type: 'RetryPayout', leg, reason, at });
      } else if (action === 'refund') {
        // A deposit's refund goes to its return destination, checked now; or, when the operator says so (the
        // return destination is gone), back to the sender (ADR 0056).
        const target = to === 'sender' ? sentBackToSender(record) : record;
        const refused = isFromDeposit(target)
          ? (await this.accounts.unusable(projectId, target, { kind: 'refund' }, 'start'))?.failure
          : undefined;
        if (isVirtualAccountTransaction(record)) {
          const held = record.pricing.source.amountGross;
          const refunded = amount ?? held;
          if (dec(refunded).gt(held))
            throw new ApiError(
              'InvalidRequest',
              `amount: ${refunded} is more than the ${held} ${record.pricing.source.asset} held for this transaction`,
            );
          const retained = dec(held).minus(refunded);
          // Shown as the deposit's own amount is: two decimal places, "0.00" for nothing.
          const refundAmount = formatAmount(refunded, 2);
          await this.commands.handle(projectId, id, {
            type: 'RefundHeld',
            refundLeg: bankRefundLeg(target, next, refundAmount),
            reason,
            retained: retained.gt(0) ? formatAmount(retained, 2) : undefined,
            refused,
            at,
          });
        } else {
          await this.commands.handle(projectId, id, {
            type: 'RefundHeld',
            refundLeg: refundLeg(target, next),
            reason,
            refused,
            at,
          });
        }
      } else if (!(looked === 'providerHasNone' && state.subStatus === 'failed.outboundFailed')) {
        // (Unless the lookup itself just failed the unconfirmed payout: that is the mark-failed.)
        await this.commands.handle(projectId, id, { type: 'MarkFailed', reason, at });
      }
      const result = action === 'retry' ? 'retried' : action === 'refund' ? 'refunding' : 'markedFailed';
      return { result, transaction: (await this.queries.requireAny(id)).view };
    });
  }

  /** A completed transaction has nothing to retry; an unconfirmed payout is settled or failed by what the provider holds. */
  private async lookUpUnconfirmed(
    projectId: string,
    id: string,
    action: OperatorAction,
  ): Promise<'already_completed' | 'completedByProvider' | 'providerHasNone' | undefined> {
    const state = await this.commands.load(id);
    if (action === 'retry' && state.status === 'completed') return 'already_completed';
    if (state.subStatus !== 'processing.payoutUnconfirmed') return undefined;
    const leg = state.legs.find((l) => l.kind === 'payout' && l.status === 'pending');
    if (!leg) return undefined;
    const at = await this.clock.now(projectId);
    const answer = await this.unconfirmed.lookUp(state.record, leg);
    if (answer.kind === 'unreachable')
      throw new ApiError(
        'unconfirmedPayoutUnverifiable',
        'the payout provider cannot be reached to look the transfer up; retry later',
      );
    // Failing or retrying a transfer that may still land would pay twice.
    if (answer.kind === 'underWay')
      throw new ApiError(
        'unconfirmedPayoutUnverifiable',
        `the payout may still land: ${answer.detail}; retry once it has landed or its nonce is taken`,
      );
    const { outcome } = answer;
    await this.commands.handle(projectId, id, { type: 'ReportLeg', legId: leg.id, outcome, at: at.toISOString() });
    return outcome.kind === 'settled' ? 'completedByProvider' : 'providerHasNone';
  }

  /**
   * Operator: a virtual account's bank refund the bank reported only as initiated (or that is still in flight)
   * is complete (spec: Operator-only, complete-refund): the refund leg settles, the review clears, and the
   * transaction ends failed.returnedToSender. A refund completed already answers already_completed; any other
   * payment is refundNotCompletable (10368).
   */
  async completeRefund(id: string, reason: string): Promise<OperatorResult> {
    const row = await this.queries.requireAny(id);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(row.project_id)).toISOString();
      const decision = await this.commands.handle(row.project_id, id, { type: 'CompleteRefund', reason, at });
      return {
        result: decision.events.length === 0 ? 'already_completed' : 'refundCompleted',
        transaction: transactionView(existingTransaction(decision.state)),
      };
    });
  }
}
