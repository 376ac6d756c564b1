import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Custodial wallets on a chain (docs/chain.md): the custody index each address derives from, allocated from a
 * sequence, and the address looked up by the chain watcher in any case (the chain's logs carry it lower case).
 */
export class AccountsChainCustody1700000002400 implements MigrationInterface {
  name = 'AccountsChainCustody1700000002400';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE accounts.wallets ADD COLUMN derivation_index integer UNIQUE`);
    await runner.query(`CREATE SEQUENCE accounts.wallet_derivation_index MINVALUE 0 START 0`);
    await runner.query(
      `CREATE INDEX wallets_chain_address_idx ON accounts.wallets (network, lower(address)) WHERE derivation_index IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX accounts.wallets_chain_address_idx`);
    await runner.query(`DROP SEQUENCE accounts.wallet_derivation_index`);
    await runner.query(`ALTER TABLE accounts.wallets DROP COLUMN derivation_index`);
  }
}
