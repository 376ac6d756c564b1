import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deliveries and their HTTP attempts (spec: Webhook endpoint and delivery; Delivery and
 * verification), and each endpoint's health. The deliveries table is the delivery queue: due rows
 * are claimed FOR UPDATE SKIP LOCKED and leased for the length of one attempt (ADR 0018). Times
 * a partner sees (created_at, next_attempt_at, attempted_at) are project time; a lease is wall time.
 */
export class WebhookDeliveries1700000003100 implements MigrationInterface {
  name = 'WebhookDeliveries1700000003100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhooks.deliveries (
        id               text        PRIMARY KEY,
        project_id       text        NOT NULL,
        webhook_id       text        NOT NULL REFERENCES webhooks.endpoints (id),
        event_id         text        NOT NULL,
        event            text        NOT NULL,
        resource_id      text,
        test             boolean     NOT NULL DEFAULT false,
        body             text        NOT NULL,
        status           text        NOT NULL CHECK (status IN ('queued', 'delivered', 'failed', 'skipped')),
        attempt_count    integer     NOT NULL DEFAULT 0,
        next_attempt_at  timestamptz,
        lease_until      timestamptz,
        lease_token      uuid,
        last_attempt_at  timestamptz,
        delivered_at     timestamptz,
        created_at       timestamptz NOT NULL,
        updated_at       timestamptz NOT NULL,
        UNIQUE (webhook_id, event_id)
      )`);
    await runner.query(
      `CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE status = 'queued'`,
    );
    await runner.query(`CREATE INDEX deliveries_webhook_idx ON webhooks.deliveries (webhook_id, id DESC)`);
    await runner.query(`CREATE INDEX deliveries_created_idx ON webhooks.deliveries (created_at)`);
    await runner.query(`
      CREATE TABLE webhooks.delivery_attempts (
        id            bigserial   PRIMARY KEY,
        delivery_id   text        NOT NULL REFERENCES webhooks.deliveries (id) ON DELETE CASCADE,
        attempt       integer     NOT NULL,
        attempted_at  timestamptz NOT NULL,
        duration_ms   integer     NOT NULL,
        status_code   integer,
        error         text,
        response_body text
      )`);
    await runner.query(`CREATE INDEX delivery_attempts_delivery_idx ON webhooks.delivery_attempts (delivery_id, id)`);
    await runner.query(`
      CREATE TABLE webhooks.endpoint_health (
        webhook_id      text        PRIMARY KEY REFERENCES webhooks.endpoints (id),
        down_since      timestamptz,
        notified_at     timestamptz,
        last_success_at timestamptz,
        last_failure_at timestamptz
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE webhooks.delivery_attempts, webhooks.deliveries, webhooks.endpoint_health`);
  }
}

/**
 * A retry of a delivery with an attempt in flight (ADR 0059): the attempt keeps its lease and the retry is made
 * once it ends (`retry_requested`), never beside it; and attempt numbers that go on across retries, which reset
 * the attempt count (spec: Endpoints / Webhooks): an attempt's number is `earlier_attempts + attempt_count + 1`,
 * `earlier_attempts` being the attempts made before the last retry. Additive: two columns with constant defaults
 * (no rewrite of the table); only deliveries retried before, whose numbers started again at 1, are updated, to
 * number their next attempts after every one recorded.
 */
export class WebhookDeliveryRetries1700000003500 implements MigrationInterface {
  name = 'WebhookDeliveryRetries1700000003500';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE webhooks.deliveries ADD COLUMN earlier_attempts integer NOT NULL DEFAULT 0, ADD COLUMN retry_requested boolean NOT NULL DEFAULT false`,
    );
    await runner.query(`
      UPDATE webhooks.deliveries d SET earlier_attempts = a.n - d.attempt_count
        FROM (SELECT delivery_id, count(*)::int AS n FROM webhooks.delivery_attempts GROUP BY delivery_id) a
       WHERE a.delivery_id = d.id AND a.n > d.attempt_count`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN earlier_attempts, DROP COLUMN retry_requested`);
  }
}
