import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read models of external accounts and counterparties (spec: External account, Counterparty).
 * No column holds a full account number, IBAN, card number or tax id: those go to the provider
 * at registration and only what a read shows is kept. Deleted rows stay (deleted_at), so
 * transactions that used an account can still resolve it.
 */
export class AccountsExternalAccounts1700000002100 implements MigrationInterface {
  name = 'AccountsExternalAccounts1700000002100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE accounts.counterparties (
        id              text        PRIMARY KEY,
        project_id      text        NOT NULL,
        customer_id     text        NOT NULL REFERENCES accounts.customers (id),
        entity_type     text        NOT NULL CHECK (entity_type IN ('individual', 'business')),
        first_name      text,
        last_name       text,
        business_name   text,
        name            text        NOT NULL,
        email           text,
        phone           text,
        tax_id_provided boolean     NOT NULL,
        address         jsonb,
        version         integer     NOT NULL,
        created_at      timestamptz NOT NULL,
        updated_at      timestamptz NOT NULL,
        deleted_at      timestamptz
      )`);
    await runner.query(
      `CREATE INDEX counterparties_customer_idx ON accounts.counterparties (project_id, customer_id, id DESC) WHERE deleted_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE accounts.external_accounts (
        id                     text        PRIMARY KEY,
        project_id             text        NOT NULL,
        customer_id            text        NOT NULL REFERENCES accounts.customers (id),
        counterparty_id        text        REFERENCES accounts.counterparties (id),
        type                   text        NOT NULL,
        status                 text        NOT NULL CHECK (status IN ('pending', 'active', 'failed', 'invalid')),
        details                jsonb       NOT NULL,
        supported_destinations jsonb       NOT NULL,
        provider_reference     text        NOT NULL,
        failure                jsonb,
        label                  text,
        metadata               jsonb       NOT NULL,
        version                integer     NOT NULL,
        created_at             timestamptz NOT NULL,
        updated_at             timestamptz NOT NULL,
        deleted_at             timestamptz
      )`);
    await runner.query(
      `CREATE INDEX external_accounts_customer_idx ON accounts.external_accounts (project_id, customer_id, id DESC) WHERE deleted_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX external_accounts_counterparty_idx ON accounts.external_accounts (counterparty_id) WHERE deleted_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE accounts.external_accounts`);
    await runner.query(`DROP TABLE accounts.counterparties`);
  }
}
