// Project limits as the transactions service knows them (from the gateway's
// project events), and the caps' usage, counted in the command's transaction.
import { Injectable } from '@nestjs/common';
import type { ProjectLimits } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';

@Injectable()
export class TransactionLimitsRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** Merges a change as the gateway does: a null clears a limit. */
  async apply(projectId: string, changes: ProjectLimits): Promise<void> {
    await this.uow.query(
      `INSERT INTO transactions.project_limits (project_id, limits) VALUES ($1, $2::jsonb)
       ON CONFLICT (project_id) DO UPDATE SET limits = transactions.project_limits.limits || EXCLUDED.limits`,
      [projectId, JSON.stringify(changes)],
    );
  }

  async limits(projectId: string): Promise<ProjectLimits> {
    const [row] = await this.uow.query<{ limits: ProjectLimits }>(`SELECT limits FROM transactions.project_limits WHERE project_id = $1`, [projectId]);
    return row?.limits ?? {};
  }

  /** Adds to a period's usage (the row lock orders concurrent payouts); returns the new total. */
  async use(projectId: string, period: string, asset: string, amount: string): Promise<string> {
    const [row] = await this.uow.query<{ amount: string }>(
      `INSERT INTO transactions.payout_usage (project_id, period, asset, amount) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, period, asset) DO UPDATE SET amount = transactions.payout_usage.amount + EXCLUDED.amount
       RETURNING amount::text`,
      [projectId, period, asset, amount],
    );
    return row.amount;
  }
}
