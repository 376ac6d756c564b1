import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable } from '@mm/platform/event-store';

/**
 * The cash-in service's log and read models (spec: Cash-in; Limits / Cash-in; ADR 0020): each
 * cash-in as partners read it, with its live code unique among pending cash-ins; the completed
 * deposits the limits count; a row per customer that orders their deposits; the retail locations
 * as published; and the customers whose usd endorsement the accounts service announced active.
 */
export class CashIn1700000006000 implements MigrationInterface {
  name = 'CashIn1700000006000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'cash_in');
    await runner.query(`
      CREATE TABLE cash_in.cash_ins (
        id          text        PRIMARY KEY,
        project_id  text        NOT NULL,
        customer_id text        NOT NULL,
        status      text        NOT NULL CHECK (status IN ('pending', 'completed', 'expired')),
        code        text        NOT NULL CHECK (code ~ '^[0-9]{3} [0-9]{3}$'),
        expires_at  timestamptz NOT NULL,
        view        jsonb       NOT NULL,
        version     integer     NOT NULL,
        created_at  timestamptz NOT NULL,
        updated_at  timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX cash_ins_project_idx ON cash_in.cash_ins (project_id, id DESC)`);
    // A code names one live cash-in for the retail network, whatever the project: unique among
    // pending cash-ins (a lapsed code stays taken until the expiry timer marks its cash-in expired).
    await runner.query(
      `CREATE UNIQUE INDEX cash_ins_live_code_unique ON cash_in.cash_ins (code) WHERE status = 'pending'`,
    );
    await runner.query(`
      CREATE TABLE cash_in.deposits (
        cash_in_id   text          PRIMARY KEY,
        project_id   text          NOT NULL,
        customer_id  text          NOT NULL,
        amount       numeric(20,2) NOT NULL CHECK (amount > 0),
        deposited_at timestamptz   NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX deposits_customer_idx ON cash_in.deposits (project_id, customer_id, deposited_at)`,
    );
    // Locked by every deposit of the customer: deposits of one customer are decided one at a time.
    await runner.query(`
      CREATE TABLE cash_in.customer_usage (
        project_id  text    NOT NULL,
        customer_id text    NOT NULL,
        deposits    integer NOT NULL DEFAULT 0 CHECK (deposits >= 0),
        PRIMARY KEY (project_id, customer_id)
      )`);
    // The retail network's locations as last published (cashLocation.published), one row each.
    await runner.query(`
      CREATE TABLE cash_in.cash_locations (
        loc_id       text        PRIMARY KEY,
        version      integer     NOT NULL,
        location     jsonb       NOT NULL,
        published_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA cash_in CASCADE`);
  }
}
