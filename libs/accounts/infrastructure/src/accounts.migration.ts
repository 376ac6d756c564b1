import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable, deferrableReferencesTo } from '@mm/platform/event-store';

export class Accounts1700000002000 implements MigrationInterface {
  name = 'Accounts1700000002000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'accounts');
    await runner.query(`
      CREATE TABLE accounts.customers (
        id           text        PRIMARY KEY,
        project_id   text        NOT NULL,
        type         text        NOT NULL,
        first_name   text        NOT NULL,
        last_name    text        NOT NULL,
        email        text,
        endorsements jsonb       NOT NULL DEFAULT '[]'::jsonb,
        version      integer     NOT NULL,
        created_at   timestamptz NOT NULL,
        updated_at   timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX customers_project_idx ON accounts.customers (project_id, id DESC)`);
    await runner.query(`
      CREATE TABLE accounts.wallets (
        id                 text          PRIMARY KEY,
        project_id         text          NOT NULL,
        customer_id        text          NOT NULL REFERENCES accounts.customers (id),
        asset              text          NOT NULL,
        network            text          NOT NULL,
        address            text          NOT NULL UNIQUE,
        balance            numeric(38,18) NOT NULL DEFAULT 0 CHECK (balance >= 0),
        balance_updated_at timestamptz   NOT NULL,
        created_at         timestamptz   NOT NULL
      )`);
    await runner.query(`CREATE INDEX wallets_project_idx ON accounts.wallets (project_id, id DESC)`);
    await runner.query(`CREATE INDEX wallets_customer_idx ON accounts.wallets (project_id, customer_id, id DESC)`);
    // The double-entry ledger: every posting's entries sum to zero, checked at commit.
    await runner.query(`
      CREATE TABLE accounts.ledger_entries (
        posting_id text           NOT NULL,
        entry_no   smallint       NOT NULL,
        project_id text           NOT NULL,
        account    text           NOT NULL,
        asset      text           NOT NULL,
        amount     numeric(38,18) NOT NULL CHECK (amount <> 0),
        reason     text           NOT NULL,
        created_at timestamptz    NOT NULL,
        PRIMARY KEY (posting_id, entry_no)
      )`);
    await runner.query(`CREATE INDEX ledger_entries_account_idx ON accounts.ledger_entries (account)`);
    await runner.query(`
      CREATE FUNCTION accounts.ledger_posting_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE total numeric;
      BEGIN
        SELECT sum(amount) INTO total FROM accounts.ledger_entries WHERE posting_id = NEW.posting_id;
        IF total <> 0 THEN
          RAISE EXCEPTION 'ledger posting % does not balance (sum %)', NEW.posting_id, total;
        END IF;
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE CONSTRAINT TRIGGER ledger_posting_balanced AFTER INSERT ON accounts.ledger_entries
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION accounts.ledger_posting_balanced()`);
    await runner.query(`
      CREATE FUNCTION accounts.ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'ledger entries are append-only'; END $$`);
    await runner.query(`
      CREATE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON accounts.ledger_entries
      FOR EACH STATEMENT EXECUTE FUNCTION accounts.ledger_append_only()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA accounts CASCADE`);
  }
}

/**
 * What refers to accounts.customers (its read model's rows) is checked at a rebuild's commit, where the rebuild defers it:
 * the rebuild deletes a row and writes it again in one transaction. Every other transaction checks at once.
 */
export class AccountsRebuildableCustomers1700000002500 implements MigrationInterface {
  name = 'AccountsRebuildableCustomers1700000002500';

  async up(runner: QueryRunner): Promise<void> {
    await deferrableReferencesTo(runner, 'accounts.customers');
  }

  async down(runner: QueryRunner): Promise<void> {
    await deferrableReferencesTo(runner, 'accounts.customers', false);
  }
}
