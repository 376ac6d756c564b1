// The events table every service owns (ARCHITECTURE: Event sourcing, precisely).
// transaction_id orders readers safely: a row becomes readable by position only
// once every transaction that started before it has finished, so a reader never
// skips an event that committed late with a lower global_position.
import type { QueryRunner } from 'typeorm';

/** The constraint a lost race between two appends to one stream version breaks. */
export const EVENTS_STREAM_VERSION_UNIQUE = 'events_stream_version_unique';

export async function createEventsTable(runner: QueryRunner, schema: string): Promise<void> {
  await runner.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await runner.query(`
    CREATE TABLE ${schema}.events (
      global_position bigserial PRIMARY KEY,
      transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
      event_id        text        NOT NULL UNIQUE,
      stream_id       text        NOT NULL,
      stream_version  integer     NOT NULL CHECK (stream_version > 0),
      type            text        NOT NULL,
      data            jsonb       NOT NULL,
      metadata        jsonb       NOT NULL DEFAULT '{}'::jsonb,
      recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
      CONSTRAINT ${EVENTS_STREAM_VERSION_UNIQUE} UNIQUE (stream_id, stream_version)
    )`);
  await runner.query(`CREATE INDEX events_read_all_idx ON ${schema}.events (transaction_id, global_position)`);
  // Rows are never updated or deleted.
  await runner.query(`
    CREATE FUNCTION ${schema}.events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'the events table is append-only'; END $$`);
  await runner.query(`
    CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON ${schema}.events
    FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.events_append_only()`);
}

/** Checkpoints of subscriptions and the idempotency log of event consumers. */
export async function createSubscriptionTables(runner: QueryRunner): Promise<void> {
  await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
  await runner.query(`
    CREATE TABLE platform.subscription_checkpoints (
      subscription    text        NOT NULL,
      source          text        NOT NULL,
      transaction_id  xid8        NOT NULL DEFAULT '0',
      global_position bigint      NOT NULL DEFAULT 0,
      updated_at      timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (subscription, source)
    )`);
  await runner.query(`
    CREATE TABLE platform.processed_events (
      consumer_group text        NOT NULL,
      event_id       text        NOT NULL,
      processed_at   timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (consumer_group, event_id)
    )`);
}

/**
 * Every foreign key that refers to `table` becomes deferrable (still checked at once unless a transaction
 * defers it): a read model's rebuild deletes a row and writes it again in one transaction, and defers the
 * check to its commit (read-model-rebuild.ts). `deferrable: false` puts them back.
 */
export async function deferrableReferencesTo(runner: QueryRunner, table: string, deferrable = true): Promise<void> {
  await runner.query(
    `DO $$ DECLARE r record; BEGIN
       FOR r IN SELECT conrelid::regclass::text AS referring, conname FROM pg_constraint
                 WHERE contype = 'f' AND confrelid = '${table}'::regclass LOOP
         EXECUTE format('ALTER TABLE %s ALTER CONSTRAINT %I ${deferrable ? 'DEFERRABLE INITIALLY IMMEDIATE' : 'NOT DEFERRABLE'}',
                        r.referring, r.conname);
       END LOOP;
     END $$`,
  );
}
