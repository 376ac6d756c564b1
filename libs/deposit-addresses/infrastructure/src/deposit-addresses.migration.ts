import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable, deferrableReferencesTo } from '@mm/platform/event-store';

/**
 * The deposit-addresses service's log and read models (spec: Deposit address; ADR 0030): each address
 * as partners read it, with the accounts it pays to and returns to (found when the accounts service
 * reports one deleted or invalid); each deposit with what became of it and whether it is still held on
 * this side (for its sender's attribution, or for a destination); and a row per customer that a
 * deposit's registration check and a wallet's registration both lock, so that neither slips past the other.
 */
export class DepositAddresses1700000007000 implements MigrationInterface {
  name = 'DepositAddresses1700000007000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'deposit_addresses');
    await runner.query(`
      CREATE TABLE deposit_addresses.addresses (
        id                     text        PRIMARY KEY,
        project_id             text        NOT NULL,
        customer_id            text        NOT NULL,
        status                 text        NOT NULL CHECK (status IN ('pending', 'active', 'inactiveActionRequired', 'frozen', 'closed', 'failed')),
        destination_account_id text        NOT NULL,
        return_account_id      text,
        view                   jsonb       NOT NULL,
        version                integer     NOT NULL,
        created_at             timestamptz NOT NULL,
        updated_at             timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX addresses_project_idx ON deposit_addresses.addresses (project_id, id DESC)`);
    await runner.query(
      `CREATE INDEX addresses_customer_idx ON deposit_addresses.addresses (project_id, customer_id, id DESC)`,
    );
    await runner.query(
      `CREATE INDEX addresses_destination_idx ON deposit_addresses.addresses (project_id, destination_account_id)`,
    );
    await runner.query(`
      CREATE TABLE deposit_addresses.deposits (
        transaction_id       text          PRIMARY KEY,
        project_id           text          NOT NULL,
        customer_id          text          NOT NULL,
        deposit_address_id   text          NOT NULL REFERENCES deposit_addresses.addresses (id),
        amount               numeric(38,6) NOT NULL CHECK (amount > 0),
        sender_address       text          NOT NULL,
        network              text          NOT NULL,
        disposition          text          NOT NULL CHECK (disposition IN ('payout', 'awaitingSenderAttribution', 'payoutDestinationMissing', 'returnToSender')),
        held                 text          CHECK (held IN ('attribution', 'destination')),
        attribution_deadline timestamptz,
        deposited_at         timestamptz   NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX deposits_address_idx ON deposit_addresses.deposits (deposit_address_id, transaction_id)`,
    );
    // What a registration looks for: this customer's deposits held for a sender on this network.
    await runner.query(`
      CREATE INDEX deposits_attribution_idx ON deposit_addresses.deposits (project_id, customer_id, network, lower(sender_address))
        WHERE held = 'attribution'`);
    await runner.query(`
      CREATE TABLE deposit_addresses.customer_locks (
        project_id  text NOT NULL,
        customer_id text NOT NULL,
        PRIMARY KEY (project_id, customer_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA deposit_addresses CASCADE`);
  }
}

/**
 * What refers to deposit_addresses.addresses (its read model's rows) is checked at a rebuild's commit, where the rebuild defers it:
 * the rebuild deletes a row and writes it again in one transaction. Every other transaction checks at once.
 */
export class DepositAddressesRebuildable1700000007200 implements MigrationInterface {
  name = 'DepositAddressesRebuildable1700000007200';

  async up(runner: QueryRunner): Promise<void> {
    await deferrableReferencesTo(runner, 'deposit_addresses.addresses');
  }

  async down(runner: QueryRunner): Promise<void> {
    await deferrableReferencesTo(runner, 'deposit_addresses.addresses', false);
  }
}
