import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable, deferrableReferencesTo } from '@mm/platform/event-store';

/**
 * The virtual-accounts service's log and read models (spec: Virtual account; ADR 0032): each account as
 * partners read it; each inbound transfer with what became of it (a DELETE asks the transactions service
 * about their transactions); and the sandbox bank's own accounts, kept here so that a request it took
 * (an account opened, a close accepted) survives a crash of this process.
 */
export class VirtualAccounts1700000008000 implements MigrationInterface {
  name = 'VirtualAccounts1700000008000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'virtual_accounts');
    await runner.query(`
      CREATE TABLE virtual_accounts.accounts (
        id                     text        PRIMARY KEY,
        project_id             text        NOT NULL,
        customer_id            text        NOT NULL,
        status                 text        NOT NULL CHECK (status IN ('pending', 'active', 'frozen', 'closed', 'deleting', 'deleted', 'failed')),
        destination_id         text        NOT NULL,
        return_account_id      text,
        view                   jsonb       NOT NULL,
        version                integer     NOT NULL,
        created_at             timestamptz NOT NULL,
        updated_at             timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX accounts_project_idx ON virtual_accounts.accounts (project_id, id DESC)`);
    await runner.query(
      `CREATE INDEX accounts_customer_idx ON virtual_accounts.accounts (project_id, customer_id, id DESC)`,
    );
    await runner.query(`
      CREATE TABLE virtual_accounts.deposits (
        transaction_id     text          PRIMARY KEY,
        project_id         text          NOT NULL,
        customer_id        text          NOT NULL,
        virtual_account_id text          NOT NULL REFERENCES virtual_accounts.accounts (id),
        amount             numeric(38,2) NOT NULL CHECK (amount > 0),
        rail               text          NOT NULL CHECK (rail IN ('ach', 'wire', 'internationalWire')),
        reference          text          NOT NULL,
        disposition        text          NOT NULL CHECK (disposition IN ('deliver', 'returnToSender')),
        deposited_at       timestamptz   NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX deposits_account_idx ON virtual_accounts.deposits (virtual_account_id, transaction_id)`,
    );
    // The sandbox bank's ledger of accounts: what it opened, and the close it was asked for.
    await runner.query(`
      CREATE TABLE virtual_accounts.bank_accounts (
        virtual_account_id text        PRIMARY KEY,
        project_id         text        NOT NULL,
        holder_name        text        NOT NULL,
        account_number     text        NOT NULL,
        routing_number     text        NOT NULL,
        status             text        NOT NULL CHECK (status IN ('open', 'closed')),
        close_request      text        CHECK (close_request IN ('requested', 'closed', 'refused')),
        close_label        text,
        -- The sandbox's lost requests (label CloseRequestLost): how many never reached it.
        lost_close_requests integer    NOT NULL DEFAULT 0,
        opened_at          timestamptz NOT NULL,
        close_requested_at timestamptz,
        closed_at          timestamptz
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA virtual_accounts CASCADE`);
  }
}

/**
 * What refers to virtual_accounts.accounts (its read model's rows) is checked at a rebuild's commit, where the rebuild defers it:
 * the rebuild deletes a row and writes it again in one transaction. Every other transaction checks at once.
 */
export class VirtualAccountsRebuildable1700000008100 implements MigrationInterface {
  name = 'VirtualAccountsRebuildable1700000008100';

  async up(runner: QueryRunner): Promise<void> {
    await deferrableReferencesTo(runner, 'virtual_accounts.accounts');
  }

  async down(runner: QueryRunner): Promise<void> {
    await deferrableReferencesTo(runner, 'virtual_accounts.accounts', false);
  }
}
