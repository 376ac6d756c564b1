import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable } from '@mm/platform/event-store';

/** The transactions service's log and its read model: the partner shape as of the last event. */
export class Transactions1700000005000 implements MigrationInterface {
  name = 'Transactions1700000005000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'transactions');
    await runner.query(`
      CREATE TABLE transactions.transactions (
        id           text        PRIMARY KEY,
        project_id   text        NOT NULL,
        customer_ids text[]      NOT NULL,
        status       text        NOT NULL CHECK (status IN ('processing', 'awaitingAction', 'completed', 'failed')),
        sub_status   text,
        view         jsonb       NOT NULL,
        version      integer     NOT NULL,
        created_at   timestamptz NOT NULL,
        updated_at   timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX transactions_project_idx ON transactions.transactions (project_id, id DESC)`);
    await runner.query(`CREATE INDEX transactions_customers_idx ON transactions.transactions USING gin (customer_ids)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA transactions CASCADE`);
  }
}
