import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger } from '@mm/platform/database';
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

const CLOCK_TRIGGER = { name: 'notify_clock_changed', table: 'platform.sandbox_clocks' };

/** Processes keep each project's clock offset in memory (ProjectClock) and are told of every change on commit. */
export class PlatformClockChanges1700000000210 implements MigrationInterface {
  name = 'PlatformClockChanges1700000000210';

  async up(runner: QueryRunner): Promise<void> {
    await createChangeNotifyTrigger(runner, {
      ...CLOCK_TRIGGER,
      events: 'AFTER INSERT OR UPDATE',
      channel: CLOCK_CHANGES_CHANNEL,
      groupColumn: 'project_id',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, CLOCK_TRIGGER);
  }
}

/**
 * Each change of a clock carries a number, sent with its notification, that every process
 * acknowledges (NotifiedCacheFeed): an advance is answered once all have heard it.
 */
export class PlatformClockAcknowledged1700000000230 implements MigrationInterface {
  name = 'PlatformClockAcknowledged1700000000230';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE platform.sandbox_clocks ADD COLUMN change_no bigint NOT NULL DEFAULT 0`);
    await runner.query(`
      CREATE OR REPLACE FUNCTION platform.${CLOCK_TRIGGER.name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CLOCK_CHANGES_CHANNEL}', NEW.project_id || ' ' || NEW.change_no);
        RETURN NULL;
      END $$`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE OR REPLACE FUNCTION platform.${CLOCK_TRIGGER.name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CLOCK_CHANGES_CHANNEL}', NEW.project_id);
        RETURN NULL;
      END $$`);
    await runner.query(`ALTER TABLE platform.sandbox_clocks DROP COLUMN change_no`);
  }
}
