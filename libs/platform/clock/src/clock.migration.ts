import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CLOCK_CHANGES_CHANNEL } from './project-clock';

export class PlatformClock1700000000200 implements MigrationInterface {
  name = 'PlatformClock1700000000200';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
    await runner.query(`
      CREATE TABLE platform.sandbox_clocks (
        project_id text   PRIMARY KEY,
        offset_ms  bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0)
      )`);
    await runner.query(`
      CREATE TABLE platform.timers (
        id         bigserial   PRIMARY KEY,
        project_id text        NOT NULL,
        kind       text        NOT NULL,
        key        text        NOT NULL,
        payload    jsonb       NOT NULL DEFAULT '{}'::jsonb,
        due_at     timestamptz NOT NULL,
        fired_at   timestamptz,
        CONSTRAINT timers_key_unique UNIQUE (kind, key)
      )`);
    await runner.query(`CREATE INDEX timers_pending_idx ON platform.timers (due_at) WHERE fired_at IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.timers`);
    await runner.query(`DROP TABLE platform.sandbox_clocks`);
  }
}

/**
 * Processes keep each project's clock offset in memory (ProjectClock) and are told
 * of every change on commit. A trigger, so that no code path that moves a clock can
 * forget to tell them.
 */
export class PlatformClockChanges1700000000210 implements MigrationInterface {
  name = 'PlatformClockChanges1700000000210';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION platform.notify_clock_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CLOCK_CHANGES_CHANNEL}', NEW.project_id);
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE TRIGGER sandbox_clock_changed AFTER INSERT OR UPDATE ON platform.sandbox_clocks
      FOR EACH ROW EXECUTE FUNCTION platform.notify_clock_changed()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER sandbox_clock_changed ON platform.sandbox_clocks`);
    await runner.query(`DROP FUNCTION platform.notify_clock_changed()`);
  }
}
