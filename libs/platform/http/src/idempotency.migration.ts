import type { MigrationInterface, QueryRunner } from 'typeorm';

export class PlatformIdempotency1700000000100 implements MigrationInterface {
  name = 'PlatformIdempotency1700000000100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
    await runner.query(`
      CREATE TABLE platform.idempotency_keys (
        scope           text        NOT NULL,
        key             text        NOT NULL,
        request_hash    text        NOT NULL,
        response_status integer     NOT NULL,
        response_body   jsonb       NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
      )`);
    await runner.query(`CREATE INDEX idempotency_keys_created_at_idx ON platform.idempotency_keys (created_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.idempotency_keys`);
  }
}
