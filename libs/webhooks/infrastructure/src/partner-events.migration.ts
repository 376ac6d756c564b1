import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Events API (ADR 0034). Every partner event of a project, recorded once by the fan-out in the
 * transaction that creates its deliveries, whether or not an endpoint takes it: its envelope as
 * delivered (the `evt_` id in place of a delivery's `whd_`), kept as text so that what is served is
 * byte for byte what was built. `position` is the order the fan-out recorded them in, the order of
 * the list. Deliveries a partner asks for by event (POST /webhooks/{id}/deliveries) are `requested`:
 * the fan-out still creates one row per (endpoint, event), but a requested row may repeat an event.
 * The events of the retention window that some endpoint received before this migration are
 * recovered from their deliveries.
 */
export class WebhookPartnerEvents1700000003400 implements MigrationInterface {
  name = 'WebhookPartnerEvents1700000003400';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhooks.partner_events (
        position    bigserial   PRIMARY KEY,
        event_id    text        NOT NULL UNIQUE,
        project_id  text        NOT NULL,
        event       text        NOT NULL,
        resource_id text,
        created_at  timestamptz NOT NULL,
        body        text        NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX partner_events_project_idx ON webhooks.partner_events (project_id, position DESC)`,
    );
    await runner.query(
      `CREATE INDEX partner_events_resource_idx ON webhooks.partner_events (project_id, resource_id, position DESC)`,
    );
    await runner.query(
      `CREATE INDEX partner_events_type_idx ON webhooks.partner_events (project_id, event, position DESC)`,
    );
    await runner.query(`CREATE INDEX partner_events_created_idx ON webhooks.partner_events (created_at)`);
    await runner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN requested boolean NOT NULL DEFAULT false`);
    await runner.query(`ALTER TABLE webhooks.deliveries DROP CONSTRAINT deliveries_webhook_id_event_id_key`);
    await runner.query(
      `CREATE UNIQUE INDEX deliveries_fan_out_once_idx ON webhooks.deliveries (webhook_id, event_id) WHERE NOT requested`,
    );
    await runner.query(`CREATE INDEX deliveries_event_idx ON webhooks.deliveries (webhook_id, event_id)`);
    // An envelope is stored as JSON.stringify wrote it: its id comes first.
    await runner.query(`
      INSERT INTO webhooks.partner_events (event_id, project_id, event, resource_id, created_at, body)
      SELECT event_id, project_id, event, resource_id, created_at, regexp_replace(body, '^\\{"id":"whd_[0-9a-z]+"', '{"id":"' || event_id || '"')
        FROM (SELECT DISTINCT ON (event_id) event_id, project_id, event, resource_id, created_at, body
                FROM webhooks.deliveries WHERE NOT test ORDER BY event_id, created_at, id) first
       ORDER BY created_at, event_id`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX webhooks.deliveries_event_idx`);
    await runner.query(`DROP INDEX webhooks.deliveries_fan_out_once_idx`);
    await runner.query(`DELETE FROM webhooks.deliveries WHERE requested`);
    await runner.query(
      `ALTER TABLE webhooks.deliveries ADD CONSTRAINT deliveries_webhook_id_event_id_key UNIQUE (webhook_id, event_id)`,
    );
    await runner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN requested`);
    await runner.query(`DROP TABLE webhooks.partner_events`);
  }
}
