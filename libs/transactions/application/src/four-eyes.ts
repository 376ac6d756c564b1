// Four eyes on money (docs/operators.md, Four eyes): an operator's refund, complete-refund, mark-failed or retry
// of a transaction worth the project's threshold or more becomes a request for a second operator, instead of
// acting. The threshold is asked of the gateway at every action, so a lowered one applies to the next.
import { Injectable } from '@nestjs/common';
import { GatewayPort, type ApprovalAction, type ApprovalRequested, type AuditActor } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { dec } from '@mm/platform/money';
import { approvalView, type ExistingApproval, type TransactionView } from '@mm/transactions/domain';
import { ApprovalCommands } from './approval.commands';
import { checkOperatorFields } from './operator-actions.handler';
import { TransactionQueries } from './transaction.queries';

const DOLLARS = new Set(['usd', 'usdc']);

/**
 * What an action is worth in USD: the part of a virtual account deposit a refund returns, else the transaction's
 * dollar side (every corridor has usdc on one side, and usd is the dollar's fiat).
 */
export function dollarValue(view: TransactionView, amount?: string): string {
  if (amount !== undefined) return amount;
  const pricing = view.pricing as {
    source: { asset: string; amountGross: string };
    destination: typeof pricing.source;
  };
  const side = [pricing.source, pricing.destination].find((s) => DOLLARS.has(s.asset)) ?? pricing.source;
  return side.amountGross;
}

export interface ActionRequest {
  transactionId: string;
  action: ApprovalAction;
  params: ApprovalRequested['params'];
  operator: AuditActor;
}

@Injectable()
export class FourEyes {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: ApprovalCommands,
    private readonly transactions: TransactionQueries,
    private readonly gateway: GatewayPort,
    private readonly clock: ProjectClock,
    private readonly config: PlatformConfig,
  ) {}

  /** The request the action becomes, for a second operator; undefined when it acts now. */
  async requestIfNeeded(input: ActionRequest): Promise<Record<string, unknown> | undefined> {
    const row = await this.transactions.requireAny(input.transactionId);
    if (input.action !== 'completeRefund')
      checkOperatorFields(row.view, input.action, input.params.amount, input.params.to);
    const { fourEyesThreshold: threshold } = await this.gateway.project(row.project_id);
    const value = dollarValue(row.view, input.params.amount);
    if (threshold === null || dec(value).lt(threshold)) return undefined;
    const projectId = row.project_id;
    const approvalId = newId('approval');
    return runCommand(this.uow, async () => {
      const now = await this.clock.now(projectId);
      const expiresAt = new Date(now.getTime() + this.config.MM_APPROVAL_EXPIRY_HOURS * 3_600_000).toISOString();
      const decision = await this.commands.handle(projectId, approvalId, {
        type: 'RequestApproval',
        request: {
          approvalId,
          projectId,
          transactionId: input.transactionId,
          action: input.action,
          params: input.params,
          value,
          threshold,
          requestedBy: input.operator,
          requestedAt: now.toISOString(),
          expiresAt,
        },
      });
      return approvalView(decision.state as ExistingApproval, now.toISOString());
    });
  }
}
