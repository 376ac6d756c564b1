import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable } from '@mm/platform/event-store';

/** The quoting service's log and its quotes (spec: Quote): the record as created, its status and who accepted it. */
export class Quoting1700000004000 implements MigrationInterface {
  name = 'Quoting1700000004000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'quoting');
    await runner.query(`
      CREATE TABLE quoting.quotes (
        id             text        PRIMARY KEY,
        project_id     text        NOT NULL,
        customer_id    text        NOT NULL,
        status         text        NOT NULL CHECK (status IN ('open', 'accepted', 'expired')),
        record         jsonb       NOT NULL,
        transaction_id text,
        version        integer     NOT NULL,
        expires_at     timestamptz NOT NULL,
        created_at     timestamptz NOT NULL,
        updated_at     timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX quotes_project_idx ON quoting.quotes (project_id, id DESC)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA quoting CASCADE`);
  }
}
