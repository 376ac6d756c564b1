// Project limits as the transactions service knows them (from the gateway's
// project events), and the caps' usage, counted in the command's transaction.
// Limits are read for every source-pinned sell and change rarely: kept per project in memory while the
// database can tell this process of every change (a trigger notifies on commit). Applying an event
// returns once every process has dropped its copy (ProjectCache.change; ADR 0025).
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { ProjectLimits } from '@mm/contracts';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger, ProjectCache, UnitOfWork } from '@mm/platform/database';

export const LIMIT_CHANGES_CHANNEL = 'mm_project_limit_changes';

@Injectable()
export class TransactionLimitsRepository extends ProjectCache<ProjectLimits> {
  constructor(uow: UnitOfWork) {
    super(uow, LIMIT_CHANGES_CHANNEL, 'project-limits');
  }

  /**
   * Merges a change as the gateway does: a null clears a limit. Once the event's transaction has committed,
   * every process of this service decides on the new limits.
   */
  async apply(projectId: string, changes: ProjectLimits): Promise<void> {
    await this.change(projectId, () =>
      this.uow.query(
        `INSERT INTO transactions.project_limits (project_id, limits) VALUES ($1, $2::jsonb)
         ON CONFLICT (project_id) DO UPDATE SET limits = transactions.project_limits.limits || EXCLUDED.limits`,
        [projectId, JSON.stringify(changes)],
      ),
    );
  }

  limits(projectId: string): Promise<ProjectLimits> {
    return this.cached(projectId, async () => {
      const [row] = await this.uow.query<{ limits: ProjectLimits }>(`SELECT limits FROM transactions.project_limits WHERE project_id = $1`, [projectId]);
      return row?.limits ?? {};
    });
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

const LIMITS_TRIGGER = { name: 'notify_project_limits_changed', table: 'transactions.project_limits' };

/** Every change of a project's limits tells the processes that cache them. */
export class TransactionLimitChanges1700000005200 implements MigrationInterface {
  name = 'TransactionLimitChanges1700000005200';

  async up(runner: QueryRunner): Promise<void> {
    await createChangeNotifyTrigger(runner, { ...LIMITS_TRIGGER, events: 'AFTER INSERT OR UPDATE', channel: LIMIT_CHANGES_CHANNEL, groupColumn: 'project_id' });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, LIMITS_TRIGGER);
  }
}
