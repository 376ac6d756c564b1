// The four-eyes requests' command path (ARCHITECTURE: Inside one service): each decision's state is written to
// the operators' list in its transaction.
import { Injectable } from '@nestjs/common';
import { CommandHandler, loadState, type AfterDecision } from '@mm/platform/event-store';
import {
  approvalDecider,
  approvalStreamId,
  type ApprovalCommand,
  type ApprovalEvent,
  type ApprovalState,
} from '@mm/transactions/domain';
import { ApprovalsReadModel } from '@mm/transactions/infrastructure';
import { TransactionsEventStore } from './transactions.event-store';

function projectApprovals(readModel: ApprovalsReadModel): AfterDecision<ApprovalEvent, ApprovalState> {
  return async ({ state, version }) => {
    if (state.status === 'none') return;
    const r = state.request;
    await readModel.upsert(
      {
        id: r.approvalId,
        projectId: r.projectId,
        transactionId: r.transactionId,
        status: state.status,
        expiresAt: r.expiresAt,
        state,
      },
      version,
    );
  };
}

@Injectable()
export class ApprovalCommands extends CommandHandler<ApprovalCommand, ApprovalEvent, ApprovalState> {
  constructor(
    private readonly log: TransactionsEventStore,
    readModel: ApprovalsReadModel,
  ) {
    super(log, { decider: approvalDecider, streamId: approvalStreamId, then: [projectApprovals(readModel)] });
  }

  /** The request as its log has it now, or none. */
  async current(approvalId: string): Promise<ApprovalState> {
    return (
      (await loadState(this.log, approvalStreamId(approvalId), approvalDecider))?.state ??
      approvalDecider.initialState()
    );
  }
}
