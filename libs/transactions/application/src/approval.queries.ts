// The four-eyes requests as operators read them (GET /admin/approvals): every project's, newest first, each
// shown as it stands on its project's clock (a pending one past its expiry is expired).
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import { isId } from '@mm/platform/ids';
import { approvalView, type ExistingApproval } from '@mm/transactions/domain';
import { ApprovalsReadModel, type ApprovalFilter, type ApprovalRow } from '@mm/transactions/infrastructure';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired';

@Injectable()
export class ApprovalQueries {
  constructor(
    private readonly readModel: ApprovalsReadModel,
    private readonly clock: ProjectClock,
  ) {}

  async requireRow(approvalId: string): Promise<ApprovalRow> {
    if (!isId('approval', approvalId))
      throw new ApiError('InvalidApprovalID', `"${approvalId.slice(0, 64)}" is not an approval id (apr_…)`);
    const row = await this.readModel.get(approvalId);
    if (!row) throw new ApiError('ApprovalNotFound');
    return row;
  }

  async require(approvalId: string): Promise<Record<string, unknown>> {
    return (await this.views([await this.requireRow(approvalId)]))[0];
  }

  /**
   * A page of requests; `pending` and `expired` are told apart on each project's clock, after the read: a page
   * may then hold fewer than asked while more follow (its cursor says so).
   */
  async list(
    filter: Omit<ApprovalFilter, 'status'> & { status?: ApprovalStatus },
  ): Promise<{ rows: ApprovalRow[]; views: Array<Record<string, unknown>> }> {
    const stored = filter.status === 'expired' ? 'pending' : filter.status;
    const rows = await this.readModel.list({ ...filter, status: stored });
    const views = await this.views(rows);
    return { rows, views };
  }

  private async views(rows: ApprovalRow[]): Promise<Array<Record<string, unknown>>> {
    const now = new Map<string, string>();
    for (const projectId of new Set(rows.map((r) => r.project_id)))
      now.set(projectId, (await this.clock.now(projectId)).toISOString());
    return rows.map((r) => approvalView(r.state as unknown as ExistingApproval, now.get(r.project_id)!));
  }
}
