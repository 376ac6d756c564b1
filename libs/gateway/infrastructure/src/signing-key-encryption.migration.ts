import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing private keys sealed under a configured key (ADR 0010). Rows from
 * before keep their PEM in legacy_private_key_pem until start-up seals them
 * and clears it (SigningKeys.onModuleInit): a migration has no configuration.
 */
export class GatewaySigningKeyEncryption1700000001600 implements MigrationInterface {
  name = 'GatewaySigningKeyEncryption1700000001600';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.signing_keys RENAME COLUMN private_key_pem TO legacy_private_key_pem`);
    await runner.query(`
      ALTER TABLE gateway.signing_keys
        ALTER COLUMN legacy_private_key_pem DROP NOT NULL,
        ADD COLUMN private_key_sealed bytea,
        ADD COLUMN encryption_key_id  text,
        ADD CONSTRAINT signing_keys_sealed_under_a_key CHECK ((private_key_sealed IS NULL) = (encryption_key_id IS NULL)),
        ADD CONSTRAINT signing_keys_one_private_key CHECK (num_nonnulls(legacy_private_key_pem, private_key_sealed) = 1)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    // Sealed rows cannot go back to PEM here (no key): they are dropped, and a new signing key is made on first use.
    await runner.query(`DELETE FROM gateway.signing_keys WHERE legacy_private_key_pem IS NULL`);
    await runner.query(`
      ALTER TABLE gateway.signing_keys
        DROP CONSTRAINT signing_keys_one_private_key,
        DROP CONSTRAINT signing_keys_sealed_under_a_key,
        DROP COLUMN encryption_key_id,
        DROP COLUMN private_key_sealed,
        ALTER COLUMN legacy_private_key_pem SET NOT NULL`);
    await runner.query(`ALTER TABLE gateway.signing_keys RENAME COLUMN legacy_private_key_pem TO private_key_pem`);
  }
}
