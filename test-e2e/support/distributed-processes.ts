// The e2e suite's distributed mode: `npm run start:distributed` itself, the
// gateway and each service a Node process of its own, every request through the
// gateway's port. The test reads the database through a pool of its own, and
// learns the bootstrap key pair from the gateway's banner, as an operator would.
//
// Nothing a test starts may outlive it. start:distributed runs in a process
// group of its own with its services, and its stdin is a pipe from the test's
// process (the lifeline: it stops every service when the pipe closes, which the
// kernel does when the test's process dies, however it dies). A start that
// fails or takes too long kills the whole group; so does the test process's
// exit, for anything still running then; and every file's afterAll stops what
// the file started (stopLeftovers), even a start whose hook timed out.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import { kafkaTestPrefix, removeKafkaNames } from '@mm/platform/testing';
import { freeLoopbackPort, LIFELINE_VARIABLE } from '@mm/runtime/platform';

const ROOT = resolve(__dirname, '..', '..');
/** Six Node processes under a loaded CI machine: generous, since each file's hook waits on it anyway. */
export const START_TIMEOUT_MS = 150_000;
const STOP_TIMEOUT_MS = 30_000;

/** The start-up bootstrap's result, as the gateway reports it (`RunningPlatform.bootstrap`). */
export interface BootstrapResult {
  projectId: string;
  apiKey?: string;
  apiSecret?: string;
  created: boolean;
}

/** What the tests read the database with: `query` resolves to the rows. */
export interface Queryable {
  query<T = any>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** A started platform as the tests see it, whichever way it runs. */
export interface PlatformHandle {
  url: string;
  databaseUrl: string;
  dataSource: Queryable;
  bootstrap?: BootstrapResult;
  stop(): Promise<void>;
  /** What the processes wrote so far (their log lines), when they are child processes. */
  output?(): string;
}

export { freeLoopbackPort as freePort } from '@mm/runtime/platform';

/** Process groups started here and not yet gone. */
const groups = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

// The test process is going away: nothing it started may stay (no time for a clean stop here).
process.once('exit', () => {
  for (const child of groups) killGroup(child, 'SIGKILL');
});

/**
 * A Node script of this repository in a process group of its own, tied to this process by its stdin.
 * Its output is collected, and handed to onOutput as it comes.
 */
export function spawnTied(
  args: string[],
  env: NodeJS.ProcessEnv,
  onOutput?: (text: string) => void,
): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...env, [LIFELINE_VARIABLE]: 'true' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  groups.add(child);
  child.once('exit', () => {
    groups.delete(child);
    // The lifeline has done its work; its handle would keep this process alive.
    child.stdin!.destroy();
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      onOutput?.(chunk.toString());
    });
  }
  // Never written nor ended: the pipe is the lifeline, closed only by this process's death.
  child.stdin!.on('error', () => undefined);
  return { child, output: () => output };
}

/** SIGTERM (a clean stop of every service), then SIGKILL of the whole group if it hangs. */
export async function stopTied(child: ChildProcess, timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
  // Whatever of the group is left (a service that ignored its parent's stop).
  killGroup(child, 'SIGKILL');
}

/** What this file started and has not stopped: a test's afterAll may never have got a handle (its hook timed out). */
const unstopped = new Set<() => Promise<void>>();

/**
 * The Kafka names of the platforms this file started, by prefix (one a database: test-e2e/support/settings.ts),
 * with their brokers. They outlive a platform's stop: a file starts several platforms on one database (a
 * second process beside the first, a restart), which share the database's topics and consumer groups, so
 * deleting them when one stops would pull them from under the others, and a topic deleted cannot be made
 * again on the test broker. They are deleted once the file is done (stopLeftovers), or by a test that asks.
 */
const kafkaNames = new Map<string, string[]>();

/** The Kafka names of the platforms this file started, forgotten here: whoever takes them deletes them. */
function takeKafkaNames(): Array<{ prefix: string; brokers: string[] }> {
  const started = [...kafkaNames].map(([prefix, brokers]) => ({ prefix, brokers }));
  kafkaNames.clear();
  return started;
}

/** Deletes the Kafka topics and consumer groups of every platform this file started (removeKafkaNames). */
export async function removeStartedKafkaNames(): Promise<void> {
  for (const { prefix, brokers } of takeKafkaNames()) await removeKafkaNames(brokers, prefix);
}

/**
 * Stops everything this test file started and did not stop itself; the e2e test environment calls it after the
 * file's hooks. Resolves to the Kafka names of every platform the file started, which the environment deletes:
 * the file's modules are gone by then, and the Kafka client loads more of its own as it works.
 */
export async function stopLeftovers(): Promise<Array<{ prefix: string; brokers: string[] }>> {
  const stops = [...unstopped];
  unstopped.clear();
  await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
  return takeKafkaNames();
}
(globalThis as { __mmStopLeftovers?: typeof stopLeftovers }).__mmStopLeftovers = stopLeftovers;

/** Registers a stop for stopLeftovers until `stopped` is called. */
export function track(stop: () => Promise<void>): () => void {
  unstopped.add(stop);
  return () => unstopped.delete(stop);
}

/** The brokers of KAFKA_BROKERS, none when it is unset or empty. */
export function brokerList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
}

/**
 * `env` as for the platform, DATABASE_URL set; `services`: only these besides the gateway (all when
 * omitted). Rejects with the processes' output when start-up fails. On Kafka, its topics and consumer
 * groups carry env's MM_KAFKA_TOPIC_PREFIX, or one of its own, and are deleted once the file is done
 * (kafkaNames: a broker other runs share keeps whatever a run leaves).
 */
export async function startDistributedProcesses(
  env: Record<string, string>,
  onOutput?: (text: string) => void,
  services?: readonly string[],
  /** How long the whole start may take: by default less than a hook's limit, so a failure carries the output. */
  startBoundMs = START_TIMEOUT_MS - 10_000,
): Promise<PlatformHandle> {
  // The gateway's port: the one env names (a test of a port in use), else a free one.
  const port = env.PORT && env.PORT !== '0' ? Number(env.PORT) : await freeLoopbackPort();
  const dataDir = mkdtempSync(join(tmpdir(), 'mm-e2e-distributed-'));
  const brokers = brokerList(env.KAFKA_BROKERS ?? process.env.KAFKA_BROKERS);
  const kafka =
    brokers.length > 0 ? { MM_KAFKA_TOPIC_PREFIX: env.MM_KAFKA_TOPIC_PREFIX ?? kafkaTestPrefix('e2e') } : {};
  const { child, output } = spawnTied(
    [
      '-r',
      './tools/register.js',
      'tools/distributed/start-distributed.ts',
      ...(services ? ['gateway', ...services] : []),
    ],
    // Each service's readiness is given most of the hook's time, so a slow start names the service.
    {
      MM_READY_TIMEOUT_SECS: String(START_TIMEOUT_MS / 1000 - 30),
      ...process.env,
      ...env,
      ...kafka,
      PORT: String(port),
      MM_DATA_DIR: dataDir,
    },
    onOutput,
  );
  if (kafka.MM_KAFKA_TOPIC_PREFIX) kafkaNames.set(kafka.MM_KAFKA_TOPIC_PREFIX, brokers);
  const cleanUp = () => rmSync(dataDir, { recursive: true, force: true });
  // Until stop() is called, whatever happens to the caller, this file's afterAll stops it.
  const untrack = track(async () => {
    await stopTied(child);
    cleanUp();
  });
  try {
    await started(child, output, startBoundMs);
  } catch (error) {
    untrack();
    await stopTied(child);
    cleanUp();
    throw error;
  }
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 2 });
  const stopAll = async () => {
    try {
      await stopTied(child);
    } finally {
      await pool.end().catch(() => undefined);
      cleanUp();
    }
  };
  untrack();
  const untrackRunning = track(stopAll);
  return {
    url: `http://127.0.0.1:${port}`,
    databaseUrl: env.DATABASE_URL,
    dataSource: { query: async (sql, params) => (await pool.query(sql, params)).rows },
    bootstrap: bootstrapFromBanner(output()),
    output,
    stop: async () => {
      untrackRunning();
      await stopAll();
      if (child.exitCode !== 0)
        throw new Error(`start:distributed stopped with ${child.exitCode ?? child.signalCode}:\n${output()}`);
    },
  };
}

async function started(child: ChildProcess, output: () => string, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (/Money-movement platform, distributed \(\w+\): \d+ processes/.test(output())) return;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`start:distributed failed (${child.exitCode ?? child.signalCode}):\n${output()}`);
    if (Date.now() > deadline)
      throw new Error(`start:distributed did not start within ${Math.round(boundMs / 1000)} s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The banner's credential lines (the gateway's): the key, the secret only when it was created now, the default project. */
function bootstrapFromBanner(output: string): BootstrapResult | undefined {
  const line = (label: string) => new RegExp(`^ {2}${label} +(\\S+)(.*)$`, 'm').exec(output);
  const project = line('Project');
  if (!project) return undefined;
  const apiKey = line('API key')?.[1];
  const secret = line('API secret');
  const created = Boolean(secret && /shown this once/.test(secret[2]));
  return {
    projectId: project[1],
    ...(apiKey ? { apiKey } : {}),
    ...(created ? { apiSecret: secret![1] } : {}),
    created,
  };
}
