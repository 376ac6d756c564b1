import { DataSource, type MigrationInterface } from 'typeorm';

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
    extra: { max: options.poolSize ?? 20 },
  });
}

/** Opens the pool and applies pending migrations (they run on start). */
export async function openDatabase(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = createDataSource(options);
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
