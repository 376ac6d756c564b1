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

/**
 * Claims a key in one round trip: the transaction-scoped advisory lock on
 * (scope, key), then the stored response if there is one. A function, because in
 * READ COMMITTED each statement inside a VOLATILE function takes a fresh snapshot:
 * the read sees whatever the previous holder of the lock committed. (In one plain
 * statement the snapshot would predate the lock and could miss that row.)
 */
export class PlatformIdempotencyClaim1700000000110 implements MigrationInterface {
  name = 'PlatformIdempotencyClaim1700000000110';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION platform.claim_idempotency_key(p_scope text, p_key text)
      RETURNS TABLE (locked boolean, request_hash text, response_status integer, response_body jsonb)
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || E'\\n' || p_key, 0)) THEN
          RETURN QUERY SELECT false, NULL::text, NULL::integer, NULL::jsonb;
          RETURN;
        END IF;
        RETURN QUERY SELECT true, k.request_hash, k.response_status, k.response_body
          FROM platform.idempotency_keys k WHERE k.scope = p_scope AND k.key = p_key;
        IF NOT FOUND THEN
          RETURN QUERY SELECT true, NULL::text, NULL::integer, NULL::jsonb;
        END IF;
      END $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP FUNCTION platform.claim_idempotency_key(text, text)`);
  }
}

/**
 * The response as it was sent (ADR 0059): jsonb reorders an object's keys (shorter first), so a replay from it is
 * the same fields in another order; a replay sends this text again, byte for byte. Additive: a new nullable
 * column, no rewrite of the table, and rows written before it (response_text null) replay from response_body as
 * before. response_body is still written, for the processes of the version before during a rolling deploy.
 */
export class PlatformIdempotencyResponseText1700000000120 implements MigrationInterface {
  name = 'PlatformIdempotencyResponseText1700000000120';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE platform.idempotency_keys ADD COLUMN response_text text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE platform.idempotency_keys DROP COLUMN response_text`);
  }
}
