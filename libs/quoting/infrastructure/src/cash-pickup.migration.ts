import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the quoting service needs to price and limit cash pickups (spec: rule 8; Limits / Cash
 * pickup (cash-out)): the projects' features (from the gateway's project events), the retail
 * locations (from the cash-in service's cashLocation.published), and the pickups each customer's
 * limits count (written when a transaction accepts or releases a pickup quote, and marked returned
 * by the transactions service's refund of an expired pickup).
 */
export class QuotingCashPickup1700000004100 implements MigrationInterface {
  name = 'QuotingCashPickup1700000004100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE quoting.project_features (project_id text PRIMARY KEY, features jsonb NOT NULL)`);
    await runner.query(`
      CREATE TABLE quoting.cash_locations (
        loc_id                  text    PRIMARY KEY,
        cash_location_reference text    NOT NULL,
        name                    text    NOT NULL,
        provider                text    NOT NULL,
        state                   text    NOT NULL,
        flows                   text[]  NOT NULL,
        location                jsonb   NOT NULL,
        version                 integer NOT NULL
      )`);
    // One row per accepted cash pickup quote; a released quote's row is deleted, an expired
    // pickup's is kept with returned_at set and no longer counts.
    await runner.query(`
      CREATE TABLE quoting.cash_pickups (
        quote_id       text           PRIMARY KEY,
        project_id     text           NOT NULL,
        customer_id    text           NOT NULL,
        transaction_id text           NOT NULL,
        amount         numeric(38,18) NOT NULL CHECK (amount > 0),
        location_state text           NOT NULL,
        accepted_at    timestamptz    NOT NULL,
        returned_at    timestamptz
      )`);
    await runner.query(
      `CREATE INDEX cash_pickups_customer_idx ON quoting.cash_pickups (project_id, customer_id, accepted_at) WHERE returned_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX cash_pickups_transaction_idx ON quoting.cash_pickups (project_id, transaction_id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE quoting.cash_pickups`);
    await runner.query(`DROP TABLE quoting.cash_locations`);
    await runner.query(`DROP TABLE quoting.project_features`);
  }
}

/**
 * The copy of the projects' features this service kept (from the gateway's project events) is gone: a
 * feature turned off must refuse the next pickup, which a copy a moment behind could not promise, so the
 * gateway is asked where a pickup is decided (ADR 0057). Undone, the table comes back empty.
 */
export class QuotingProjectFeaturesDropped1700000004200 implements MigrationInterface {
  name = 'QuotingProjectFeaturesDropped1700000004200';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE quoting.project_features`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE quoting.project_features (project_id text PRIMARY KEY, features jsonb NOT NULL)`);
  }
}
