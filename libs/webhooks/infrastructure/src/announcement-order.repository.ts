// Events held until the event that announces their resource has been fanned
// out (libs/webhooks/domain announcement-order.ts), and the announcements made.
// Both sides take the same transaction-scoped advisory lock per announcement,
// so an event read from one log and its announcement read from another, in
// concurrent transactions, cannot miss each other.
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { UnitOfWork } from '@mm/platform/database';

@Injectable()
export class AnnouncementOrder {
  constructor(private readonly uow: UnitOfWork) {}

  /** Serialises, until the transaction ends, everything about this announcement. */
  async lock(projectId: string, key: string): Promise<void> {
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `webhooks.announcement\n${projectId}\n${key}`,
    ]);
  }

  async announced(projectId: string, key: string): Promise<boolean> {
    const rows = await this.uow.query(`SELECT 1 FROM webhooks.announcements WHERE project_id = $1 AND key = $2`, [
      projectId,
      key,
    ]);
    return rows.length > 0;
  }

  async hold(projectId: string, key: string, event: unknown): Promise<void> {
    await this.uow.query(`INSERT INTO webhooks.held_events (project_id, key, event) VALUES ($1, $2, $3::jsonb)`, [
      projectId,
      key,
      JSON.stringify(event),
    ]);
  }

  /** Records the announcement and hands back what waited for it, in the order it arrived. */
  async announce<T>(projectId: string, key: string): Promise<T[]> {
    await this.uow.query(
      `INSERT INTO webhooks.announcements (project_id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [projectId, key],
    );
    const rows = await this.uow.query<{ event: T }>(
      `WITH released AS (DELETE FROM webhooks.held_events WHERE project_id = $1 AND key = $2 RETURNING id, event) SELECT event FROM released ORDER BY id`,
      [projectId, key],
    );
    return rows.map((r) => r.event);
  }
}

export class WebhookAnnouncementOrder1700000003300 implements MigrationInterface {
  name = 'WebhookAnnouncementOrder1700000003300';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhooks.announcements (
        project_id    text        NOT NULL,
        key           text        NOT NULL,
        announced_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, key)
      )`);
    await runner.query(`
      CREATE TABLE webhooks.held_events (
        id          bigserial   PRIMARY KEY,
        project_id  text        NOT NULL,
        key         text        NOT NULL,
        event       jsonb       NOT NULL,
        held_at     timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX held_events_key_idx ON webhooks.held_events (project_id, key, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE webhooks.held_events`);
    await runner.query(`DROP TABLE webhooks.announcements`);
  }
}
