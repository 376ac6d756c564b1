// The e2e suite's distributed mode: `npm run start:distributed` itself, the
// gateway and each service a Node process of its own, every request through the
// gateway's port. The test reads the database through a pool of its own, and
// learns the bootstrap key pair from the gateway's banner, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'pg';
import { freeLoopbackPort } from '@mm/runtime/platform';

const ROOT = resolve(__dirname, '..', '..');
const START_TIMEOUT_MS = 90_000;
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

/** `env` as for the platform, DATABASE_URL set. Rejects with the processes' output when start-up fails. */
export async function startDistributedProcesses(env: Record<string, string>): Promise<PlatformHandle> {
  const port = await freeLoopbackPort();
  const dataDir = mkdtempSync(join(tmpdir(), 'mm-e2e-distributed-'));
  let output = '';
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/distributed/start-distributed.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), MM_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await started(child, () => output);
  } catch (error) {
    await stopProcess(child);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 2 });
  return {
    url: `http://127.0.0.1:${port}`,
    databaseUrl: env.DATABASE_URL,
    dataSource: { query: async (sql, params) => (await pool.query(sql, params)).rows },
    bootstrap: bootstrapFromBanner(output),
    output: () => output,
    stop: async () => {
      try {
        await stopProcess(child);
        if (child.exitCode !== 0) throw new Error(`start:distributed stopped with ${child.exitCode ?? child.signalCode}:\n${output}`);
      } finally {
        await pool.end();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

async function started(child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (/Money-movement platform, distributed \(\w+\): \d+ processes/.test(output())) return;
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`start:distributed failed (${child.exitCode ?? child.signalCode}):\n${output()}`);
    if (Date.now() > deadline) throw new Error(`start:distributed did not start within ${START_TIMEOUT_MS / 1000} s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** The gateway's credential lines: the key, the secret only when it was created now, the default project. */
function bootstrapFromBanner(output: string): BootstrapResult | undefined {
  const line = (label: string) => new RegExp(`^\\[gateway\\]\\s+${label}\\s+(\\S+)(.*)$`, 'm').exec(output);
  const project = line('Project');
  if (!project) return undefined;
  const apiKey = line('API key')?.[1];
  const secret = line('API secret');
  const created = Boolean(secret && /shown this once/.test(secret[2]));
  return { projectId: project[1], ...(apiKey ? { apiKey } : {}), ...(created ? { apiSecret: secret![1] } : {}), created };
}
