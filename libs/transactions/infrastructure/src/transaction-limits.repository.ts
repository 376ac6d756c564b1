// What each project used of its daily and monthly caps on bank payouts, counted
// in the command's transaction. The limits themselves are the gateway's, read
// through its port where a payout is decided (ADR 0057).
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger, UnitOfWork } from '@mm/platform/database';

@Injectable()
export class TransactionLimitsRepository {
  constructor(private readonly uow: UnitOfWork) {}

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

/** The channel of the limits this service no longer keeps (its migrations below). */
const LIMIT_CHANGES_CHANNEL = 'mm_project_limit_changes';
const LIMITS_TRIGGER = { name: 'notify_project_limits_changed', table: 'transactions.project_limits' };

/** Every change of a project's limits tells the processes that cache them. */
export class TransactionLimitChanges1700000005200 implements MigrationInterface {
  name = 'TransactionLimitChanges1700000005200';

  async up(runner: QueryRunner): Promise<void> {
    await createChangeNotifyTrigger(runner, {
      ...LIMITS_TRIGGER,
      events: 'AFTER INSERT OR UPDATE',
      channel: LIMIT_CHANGES_CHANNEL,
      groupColumn: 'project_id',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, LIMITS_TRIGGER);
  }
}

/**
 * The copy of the gateway's limits this service kept (from project.updated) is gone: a lowered limit must
 * refuse the next payout, which a copy a moment behind could not promise, so payouts are decided on the
 * gateway's own (ADR 0057). Undone, the table comes back empty.
 */
export class TransactionProjectLimitsDropped1700000005300 implements MigrationInterface {
  name = 'TransactionProjectLimitsDropped1700000005300';

  async up(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, LIMITS_TRIGGER);
    await runner.query(`DROP TABLE transactions.project_limits`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE transactions.project_limits (project_id text PRIMARY KEY, limits jsonb NOT NULL)`);
    await createChangeNotifyTrigger(runner, {
      ...LIMITS_TRIGGER,
      events: 'AFTER INSERT OR UPDATE',
      channel: LIMIT_CHANGES_CHANNEL,
      groupColumn: 'project_id',
    });
  }
}
