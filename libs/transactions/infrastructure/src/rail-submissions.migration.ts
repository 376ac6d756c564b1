import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rails' submissions (PaymentRails): each leg's provider reference, on the service's side; and the sandbox's
 * simulated provider's own records of them (SandboxRails): the notifications it sends and what a lookup finds.
 */
export class TransactionRailSubmissions1700000005400 implements MigrationInterface {
  name = 'TransactionRailSubmissions1700000005400';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE transactions.rail_submissions (
        reference      text PRIMARY KEY,
        project_id     text NOT NULL,
        transaction_id text NOT NULL,
        leg_id         text NOT NULL UNIQUE,
        purpose        text NOT NULL CHECK (purpose IN ('leg', 'bankRefund'))
      )`);
    await runner.query(`
      CREATE TABLE transactions.sandbox_rail_payments (
        reference     text        PRIMARY KEY,
        project_id    text        NOT NULL,
        notifications jsonb       NOT NULL,
        holds         jsonb       NOT NULL,
        submitted_at  timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE transactions.sandbox_rail_payments`);
    await runner.query(`DROP TABLE transactions.rail_submissions`);
  }
}
