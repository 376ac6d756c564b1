import type { EventEmitter } from 'node:events';
import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';
import { poolOf } from './pg-internals';
import { prepareNothingOn } from './statement-batch';

export type MigrationClass = new () => MigrationInterface;

export interface DataSourceOptions {
  url: string;
  migrations: MigrationClass[];
  poolSize?: number;
  applicationName?: string;
  /**
   * `transaction`: `url` is a pooler in transaction mode (PgBouncer), which gives each transaction whichever
   * server connection is free: no named prepared statement, and what needs a session of its own (LISTEN, the
   * migrations' lock) goes to `directUrl`, PostgreSQL itself (docs/kubernetes.md, PgBouncer).
   */
  poolMode?: 'session' | 'transaction';
  directUrl?: string;
}

/** The direct connection of a DataSource behind a pooler in transaction mode (DataSourceOptions). */
const directUrls = new WeakMap<DataSource, string>();

/** Where a session of its own reaches the DataSource's database: PostgreSQL itself, past any pooler. */
export function sessionUrlOf(dataSource: DataSource): string | undefined {
  return directUrls.get(dataSource);
}

export function createDataSource(options: DataSourceOptions): DataSource {
  const transactionPooling = options.poolMode === 'transaction';
  if (transactionPooling && !options.directUrl)
    throw new Error('transaction pooling needs a direct connection to PostgreSQL (MM_DATABASE_DIRECT_URL)');
  const onConnect = transactionPooling
    ? (client: EventEmitter) => {
        heedConnectionErrors(client);
        prepareNothingOn(client);
      }
    : heedConnectionErrors;
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    migrations: options.migrations,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    entities: [],
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? 'money-movement',
    extra: { max: options.poolSize ?? 20, idleTimeoutMillis: 60_000, onConnect },
  });
  if (transactionPooling) directUrls.set(dataSource, options.directUrl!);
  return dataSource;
}

/**
 * Every pooled connection has an 'error' listener for its whole life. pg-pool listens only while a
 * connection is idle, and a caller can listen only once it holds one: a PostgreSQL that ends the session in
 * the same read that completes its start-up (shutting down as it admits it) has pg emit the FATAL in that
 * tick, unheard, which ends the process. Heard here, the connection is marked unusable, the statement given
 * it fails, and the pool drops it when it comes back.
 */
function heedConnectionErrors(client: EventEmitter): void {
  client.on('error', () => undefined);
}

/** Opens the pool and applies pending migrations (they run on start). */
export async function openDatabase(options: DataSourceOptions): Promise<DataSource> {
  // The lock below keeps one connection for the whole run and the migrations need another: a pool of
  // one would wait on itself for ever (npm run migrate asked for one).
  const dataSource = createDataSource({ ...options, poolSize: Math.max(options.poolSize ?? 20, 2) });
  await dataSource.initialize();
  // Several processes may start at once against one database: one migrates, the
  // others wait. A session lock, so it is held on one dedicated connection (PostgreSQL's own, behind a pooler).
  const direct = sessionUrlOf(dataSource);
  const lock: { query(sql: string): Promise<unknown>; close(): Promise<unknown> } = direct
    ? directSession(direct, options.applicationName)
    : queryRunnerSession(dataSource);
  try {
    await lock.query('SELECT pg_advisory_lock(7346001)');
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock(7346001)').catch(() => undefined);
    await lock.close().catch(() => undefined);
  }
  return dataSource;
}

/** A session on PostgreSQL itself, past the pooler, connected on its first statement. */
function directSession(url: string, applicationName = 'money-movement') {
  const client = new Client({ connectionString: url, application_name: `${applicationName}-migrate` });
  const connected = client.connect();
  return {
    query: async (sql: string) => {
      await connected;
      return client.query(sql);
    },
    close: () => client.end(),
  };
}

/** A session on one of the pool's connections, held until closed. */
function queryRunnerSession(dataSource: DataSource) {
  const runner = dataSource.createQueryRunner();
  return { query: (sql: string) => runner.query(sql), close: () => runner.release() };
}

/**
 * Waits (at most timeoutMs) until no query holds a pooled connection, so
 * closing the pool does not cut off a request whose client already went away
 * but whose handler is still running.
 */
export async function drainPool(dataSource: DataSource, timeoutMs = 5000): Promise<void> {
  const pool = poolOf(dataSource);
  if (!pool) return;
  const deadline = Date.now() + timeoutMs;
  let quietChecks = 0;
  while (Date.now() < deadline && quietChecks < 2) {
    const busy = pool.totalCount - pool.idleCount + pool.waitingCount;
    quietChecks = busy === 0 ? quietChecks + 1 : 0;
    await new Promise((r) => setTimeout(r, 25));
  }
}
