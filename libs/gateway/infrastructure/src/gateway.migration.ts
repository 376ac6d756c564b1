import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createEventsTable } from '@mm/platform/event-store';

export class Gateway1700000001000 implements MigrationInterface {
  name = 'Gateway1700000001000';

  async up(runner: QueryRunner): Promise<void> {
    await createEventsTable(runner, 'gateway');
    await runner.query(`
      CREATE TABLE gateway.projects (
        id                        text        PRIMARY KEY,
        name                      text        NOT NULL,
        features                  jsonb       NOT NULL,
        limits                    jsonb       NOT NULL DEFAULT '{}'::jsonb,
        attribution_timeout_hours integer     NOT NULL,
        created_at                timestamptz NOT NULL,
        updated_at                timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE gateway.api_keys (
        api_key     text        PRIMARY KEY,
        project_id  text        NOT NULL REFERENCES gateway.projects (id),
        mode        text        NOT NULL CHECK (mode IN ('sdbx', 'live')),
        secret_hash text        NOT NULL,
        created_at  timestamptz NOT NULL,
        revoked_at  timestamptz
      )`);
    await runner.query(`CREATE INDEX api_keys_project_idx ON gateway.api_keys (project_id)`);
    await runner.query(`
      CREATE TABLE gateway.publishable_keys (
        publishable_key text        PRIMARY KEY,
        project_id      text        NOT NULL REFERENCES gateway.projects (id),
        mode            text        NOT NULL CHECK (mode IN ('sdbx', 'live')),
        created_at      timestamptz NOT NULL,
        revoked_at      timestamptz
      )`);
    // Token signing keys. Not event-sourced: key material never goes into a log.
    await runner.query(`
      CREATE TABLE gateway.signing_keys (
        kid             text        PRIMARY KEY,
        private_key_pem text        NOT NULL,
        public_jwk      jsonb       NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        retired_at      timestamptz
      )`);
    await runner.query(`
      CREATE TABLE gateway.settings (
        name  text PRIMARY KEY,
        value text NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP SCHEMA gateway CASCADE`);
  }
}
