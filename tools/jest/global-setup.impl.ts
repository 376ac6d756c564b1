// One PostgreSQL for the whole run: the embedded server from node_modules when
// DATABASE_URL is unset. All migrations run once into a template database;
// each test file clones it (libs/platform/testing).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { openDatabase } from '@mm/platform/database';
import { platformMigrations, startEmbeddedPostgres, type EmbeddedDatabase } from '@mm/runtime/platform';
import { startTestKafka, type TestKafka } from './kafka-broker';
import { containersMode, imagesMemo, startPostgresContainer, type PostgresContainer } from '@mm/platform/testing';

interface State {
  embedded?: EmbeddedDatabase;
  container?: PostgresContainer;
  dir?: string;
  adminUrl: string;
  template: string;
}
const state = globalThis as unknown as { __mmTestDb?: State; __mmTestKafka?: TestKafka };

/**
 * PostgreSQL with the migrated template, and the Kafka broker. Once per run, whichever global setup
 * asks first (a project's own setup runs before the run's: see the e2e-distributed project's).
 */
export default async function globalSetup(): Promise<void> {
  if (state.__mmTestDb) return;
  let adminUrl = process.env.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  let dir: string | undefined;
  let container: PostgresContainer | undefined;
  if (!adminUrl && containersMode()) {
    container = await startPostgresContainer((line) => process.stdout.write(`\n[test] ${line}\n`));
    adminUrl = container.adminUrl;
  } else if (!adminUrl) {
    dir = mkdtempSync(join(tmpdir(), 'mm-test-pg-'));
    embedded = await startEmbeddedPostgres({
      dataDir: dir,
      database: 'postgres',
      ephemeral: true,
      onNotice: (line) => process.stdout.write(`[test] ${line}\n`),
    });
    adminUrl = embedded.adminUrl;
    process.stdout.write(`\n[test] embedded PostgreSQL started for this run\n`);
  } else {
    process.stdout.write(`\n[test] using PostgreSQL at DATABASE_URL\n`);
  }
  const template = await migrateTemplate(adminUrl);
  process.env.MM_TEST_ADMIN_URL = adminUrl;
  process.env.MM_TEST_TEMPLATE_DB = template;
  state.__mmTestDb = { embedded, container, dir, adminUrl, template };
  state.__mmTestKafka = await startTestKafka((line) => process.stdout.write(`[test] ${line}\n`));
}

/** The run's template database on this server, every migration run into it: its name. */
export async function migrateTemplate(adminUrl: string): Promise<string> {
  const template = `mm_template_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const templateUrl = withDatabase(adminUrl, template);
  const dataSource = await openDatabase({ url: templateUrl, migrations: platformMigrations, poolSize: 2 });
  await dataSource.destroy();
  return template;
}

export async function teardown(): Promise<void> {
  // Tests delete the topics and consumer groups they make (issue 42); on the run's own broker, what is left is a test that did not.
  let left: { topics: string[]; groups: string[] } | undefined;
  let unlisted: unknown;
  await state.__mmTestKafka
    ?.contents?.()
    .then((contents) => (left = contents))
    .catch((error: unknown) => (unlisted = error));
  await state.__mmTestKafka?.stop();
  state.__mmTestKafka = undefined;
  await stopDatabase();
  if (unlisted)
    throw new Error(
      `listing what the run left on its Kafka broker failed: ${unlisted instanceof Error ? unlisted.message : String(unlisted)}`,
    );
  if (left && left.topics.length + left.groups.length > 0) {
    throw new Error(
      `the run left ${left.topics.length} Kafka topic(s) and ${left.groups.length} consumer group(s) on its broker; a test that makes them deletes them ` +
        `(removeKafkaNames of @mm/platform/testing): topics ${left.topics.join(', ') || 'none'}; groups ${left.groups.join(', ') || 'none'}`,
    );
  }
}

async function stopDatabase(): Promise<void> {
  const s = state.__mmTestDb;
  if (!s) return;
  state.__mmTestDb = undefined;
  rmSync(imagesMemo(s.template), { force: true });
  if (s.container) {
    await s.container.stop();
    return;
  }
  if (s.embedded) {
    await s.embedded.stop();
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
    return;
  }
  const admin = new Client({ connectionString: s.adminUrl });
  await admin.connect();
  const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
    `mm_t%_${process.pid}%`,
  ]);
  for (const row of rows) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  await admin.end();
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
