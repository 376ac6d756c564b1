import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Project limits on bank payouts (spec: Limits, Bank payouts and others, item 2), as the gateway's
 * project events set them, and what each project used of its daily and monthly caps.
 */
export class TransactionLimits1700000005100 implements MigrationInterface {
  name = 'TransactionLimits1700000005100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE transactions.project_limits (project_id text PRIMARY KEY, limits jsonb NOT NULL)`);
    await runner.query(`
      CREATE TABLE transactions.payout_usage (
        project_id text           NOT NULL,
        period     text           NOT NULL,
        asset      text           NOT NULL,
        amount     numeric(38,18) NOT NULL,
        PRIMARY KEY (project_id, period, asset)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE transactions.payout_usage`);
    await runner.query(`DROP TABLE transactions.project_limits`);
  }
}
