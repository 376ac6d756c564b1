// A real PgBouncer in transaction pooling in front of the test run's PostgreSQL (docs/kubernetes.md, PgBouncer):
// Debian's `pgbouncer` (1.18), started once for the tests that run the platform behind it. Every database of
// the server is reached through it by its own name (a fallback entry), with the server's credentials; clients
// are trusted, as on a private network. As root it runs as the `postgres` user, as PostgreSQL does.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './container-engine';

export interface RunningPgBouncer {
  /** host:port of PgBouncer. */
  address: string;
  /** A database URL of the server, through PgBouncer. */
  pooled(databaseUrl: string): string;
  stop(): Promise<void>;
}

/** The pgbouncer on PATH, else Debian's (in /usr/sbin, which a user's PATH may not hold), else none. */
function pgBouncerBinary(): string | undefined {
  return ['pgbouncer', '/usr/sbin/pgbouncer'].find(
    (binary) => spawnSync(binary, ['--version'], { encoding: 'utf8' }).status === 0,
  );
}

/** Why PgBouncer cannot run here, or undefined when it can. */
export function pgBouncerAbsence(): string | undefined {
  return pgBouncerBinary() ? undefined : "Debian's pgbouncer is not installed (.ci/run installs it)";
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** PgBouncer in transaction pooling before the server of `serverUrl` (any of its databases). */
export async function startPgBouncer(
  serverUrl: string,
  log: (line: string) => void = () => undefined,
): Promise<RunningPgBouncer> {
  const binary = pgBouncerBinary();
  if (!binary) throw new Error(pgBouncerAbsence());
  const server = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), 'mm-pgbouncer-'));
  const port = await freePort();
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  // Libpq's quoting: single quotes around a value, a quote inside doubled.
  const quoted = (value: string) => `'${value.replace(/'/g, "''")}'`;
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${quoted(user)} password=${quoted(password)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      // Every process of a distributed run opens up to 20 connections; the databases' pools share the server.
      'max_client_conn = 2000',
      'default_pool_size = 40',
      'max_db_connections = 0',
      // node-postgres sends none of these, but a client that does is not refused for it.
      'ignore_startup_parameters = extra_float_digits,options',
      'server_idle_timeout = 30',
      'autodb_idle_timeout = 30',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'log_connections = 0',
      // Its console (SHOW POOLS, SHOW STATS), for a test that asks what went through it.
      `admin_users = ${user}`,
      'log_disconnections = 0',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  let ids: { uid?: number; gid?: number } = {};
  if (asRoot) {
    ids = {
      uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
      gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
    };
    for (const file of ['', 'pgbouncer.ini', 'users.txt']) chownSync(join(dir, file), ids.uid!, ids.gid!);
  }
  const child: ChildProcess = spawn(binary, [join(dir, 'pgbouncer.ini')], {
    ...ids,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PgBouncer did not start: ${output.trim() || `exit ${child.exitCode}`}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  log(
    `PgBouncer ${execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0].replace('PgBouncer ', '')} in transaction pooling at 127.0.0.1:${port}`,
  );
  const address = `127.0.0.1:${port}`;
  return {
    address,
    pooled: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.host = address;
      return url.toString();
    },
    stop: async () => {
      // SIGTERM: PgBouncer's immediate shutdown (SIGINT would wait for its clients).
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
