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

/** The held queue's rows (HELD_SUB_STATUSES, or awaiting action): the index's predicate, as queries must spell it. */
export const HELD_PREDICATE = `sub_status IN ('processing.underReview', 'processing.payoutUnconfirmed') OR status = 'awaitingAction'`;

/**
 * The operator's held queue as an index of its own (the same condition as the held list): the queue's size and
 * age are read at every scrape of /metrics (held-queue.metrics.ts), which must not read every transaction.
 */
export class TransactionsHeldIndex1700000005500 implements MigrationInterface {
  name = 'TransactionsHeldIndex1700000005500';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX transactions_held_idx ON transactions.transactions (updated_at) WHERE ${HELD_PREDICATE}`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX transactions.transactions_held_idx`);
  }
}

/** Transactions not ended yet: what an operator watches by status (transaction-status.metrics.ts). */
export const OPEN_PREDICATE = `status IN ('processing', 'awaitingAction')`;

/**
 * The transactions not ended yet as an index of their own, by status and sub-status: counted at every scrape of
 * /metrics, which must not read the ended ones, however many there are.
 */
export class TransactionsOpenIndex1700000005600 implements MigrationInterface {
  name = 'TransactionsOpenIndex1700000005600';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX transactions_open_idx ON transactions.transactions (status, sub_status) WHERE ${OPEN_PREDICATE}`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX transactions.transactions_open_idx`);
  }
}
