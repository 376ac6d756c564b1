import type { MigrationInterface, QueryRunner } from 'typeorm';

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
