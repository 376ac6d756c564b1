import type { EventEmitter } from 'node:events';
import { DataSource, type MigrationInterface } from 'typeorm';
import { poolOf } from './pg-internals';

export type MigrationClass = new () => MigrationInterface;

export interface DataSourceOptions {
  url: string;
  migrations: MigrationClass[];
  poolSize?: number;
  applicationName?: string;
}

export function createDataSource(options: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    migrations: options.migrations,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    entities: [],
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? 'money-movement',
    extra: { max: options.poolSize ?? 20, idleTimeoutMillis: 60_000, onConnect: heedConnectionErrors },
  });
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
  // others wait. A session lock, so it is held on one dedicated connection.
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(7346001)');
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await lock.query('SELECT pg_advisory_unlock(7346001)').catch(() => undefined);
    await lock.release();
  }
  return dataSource;
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
