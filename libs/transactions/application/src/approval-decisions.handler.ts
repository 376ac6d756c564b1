// A second operator's decision on a four-eyes request (docs/operators.md, Four eyes). Approving runs the action
// with the same checks as an action that needs no approval, in the approval's own transaction: the approval,
// the action's effects and its result commit together, or nothing does (an action refused leaves the request
// pending). Two approvals at once: one commits, the other finds the request approved (ApprovalNotPending).
import { Injectable } from '@nestjs/common';
import type { AuditActor } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { approvalView, type ExistingApproval } from '@mm/transactions/domain';
import { ApprovalCommands } from './approval.commands';
import { ApprovalQueries } from './approval.queries';
import { OperatorActionsHandler } from './operator-actions.handler';

@Injectable()
export class ApprovalDecisionsHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: ApprovalCommands,
    private readonly queries: ApprovalQueries,
    private readonly operator: OperatorActionsHandler,
    private readonly clock: ProjectClock,
  ) {}

  async approve(approvalId: string, by: AuditActor): Promise<Record<string, unknown>> {
    const { project_id: projectId } = await this.queries.requireRow(approvalId);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const approved = (await this.commands.handle(projectId, approvalId, { type: 'Approve', by, at }))
        .state as ExistingApproval;
      const { action, transactionId, params } = approved.request;
      const reason = params.reason ?? undefined;
      const { result } =
        action === 'completeRefund'
          ? await this.operator.completeRefund(transactionId, reason ?? 'operator complete-refund')
          : await this.operator.operate(
              transactionId,
              action,
              reason ?? `operator ${action}`,
              params.amount,
              params.to,
            );
      const done = await this.commands.handle(projectId, approvalId, { type: 'RecordResult', result, at });
      return approvalView(done.state as ExistingApproval, at);
    });
  }

  async reject(approvalId: string, by: AuditActor, reason: string | null): Promise<Record<string, unknown>> {
    const { project_id: projectId } = await this.queries.requireRow(approvalId);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const decision = await this.commands.handle(projectId, approvalId, { type: 'Reject', by, reason, at });
      return approvalView(decision.state as ExistingApproval, at);
    });
  }
}
