import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable } from '@mm/platform/event-store';

/**
 * The webhooks service's log and read models (spec: Webhook endpoint and delivery). Signing keys
 * are sealed with the key ring (ADR 0010) in a table of their own, never in an event; a rotated key
 * is retired at once and kept only as a record.
 */
export class Webhooks1700000003000 implements MigrationInterface {
  name = 'Webhooks1700000003000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'webhooks');
    await runner.query(`
      CREATE TABLE webhooks.endpoints (
        id                    text        PRIMARY KEY,
        project_id            text        NOT NULL,
        url                   text        NOT NULL,
        subscriptions         jsonb       NOT NULL,
        timeout_ms            integer     NOT NULL CHECK (timeout_ms BETWEEN 1 AND 10000),
        notify_threshold_secs integer     NOT NULL CHECK (notify_threshold_secs BETWEEN 600 AND 86400),
        description           text,
        status                text        NOT NULL CHECK (status IN ('enabled', 'disabled', 'suspended')),
        version               integer     NOT NULL,
        created_at            timestamptz NOT NULL,
        updated_at            timestamptz NOT NULL,
        deleted_at            timestamptz
      )`);
    await runner.query(
      `CREATE INDEX endpoints_project_idx ON webhooks.endpoints (project_id, id DESC) WHERE deleted_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE webhooks.signing_keys (
        id                bigserial   PRIMARY KEY,
        webhook_id        text        NOT NULL REFERENCES webhooks.endpoints (id),
        encryption_key_id text        NOT NULL,
        key_sealed        bytea       NOT NULL,
        created_at        timestamptz NOT NULL,
        retired_at        timestamptz
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX signing_keys_current_idx ON webhooks.signing_keys (webhook_id) WHERE retired_at IS NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA webhooks CASCADE`);
  }
}

/**
 * A rotated signing key goes on signing deliveries, beside the new one, until `verifies_until` (a day after the
 * rotation, on the project's clock): receivers that still hold the old key keep verifying while they deploy the new.
 */
export class WebhookSigningKeyOverlap1700000003600 implements MigrationInterface {
  name = 'WebhookSigningKeyOverlap1700000003600';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE webhooks.signing_keys ADD COLUMN verifies_until timestamptz`);
    await runner.query(
      `CREATE INDEX signing_keys_previous_idx ON webhooks.signing_keys (webhook_id, verifies_until) WHERE retired_at IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX webhooks.signing_keys_previous_idx`);
    await runner.query(`ALTER TABLE webhooks.signing_keys DROP COLUMN verifies_until`);
  }
}
