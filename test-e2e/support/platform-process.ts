// The platform process as `npm start` runs it (apps/platform on its embedded
// PostgreSQL, or on the e2e-containers project's container: platformDatabase),
// started and stopped by tests that kill it: the restart tests and the crash
// tests. Everything started is tracked, so a failed test leaves nothing running.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIFELINE_VARIABLE } from '@mm/runtime/platform';
import { cloneTemplateDatabase } from '@mm/platform/testing';
import { START_TIMEOUT_MS } from './distributed-processes';

const ROOT = join(__dirname, '..', '..');
export const API_KEY = 'sk_sdbx_restartTestKey01';
export const API_SECRET = 'restart-test-secret-0123456789';

export interface Launched {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

export const children = new Set<ChildProcess>();
export const dataDirs: string[] = [];

export function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mm-restart-'));
  dataDirs.push(dir);
  return dir;
}

/**
 * The database of a test's platform, the same for every start of it: none given, so `npm start` runs its embedded
 * PostgreSQL in the data directory, as a person's first run does; in the e2e-containers project
 * (tools/jest/containers-mode.js), a clone of the template in the project's PostgreSQL container.
 */
export async function platformDatabase(): Promise<Record<string, string>> {
  return process.env.MM_E2E_DATABASE === 'container' ? { DATABASE_URL: await cloneTemplateDatabase() } : {};
}

/** Starts apps/platform as `npm start` does; resolves once it prints its address, rejects if it exits first. */
export function start(dataDir: string, env: Record<string, string>): Promise<Launched> {
  // Nothing inherited from the test run's own configuration (DATABASE_URL, HOST, MM_*).
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('MM_') && !['DATABASE_URL', 'HOST', 'PORT'].includes(key),
    ),
  );
  const child = spawn(
    process.execPath,
    ['-r', './tools/register.js', '-r', './apps/platform/src/instrument.ts', 'apps/platform/src/main.ts'],
    {
      cwd: ROOT,
      env: {
        ...inherited,
        MM_DATA_DIR: dataDir,
        MM_LOG_LEVEL: 'warn',
        MM_BOOTSTRAP_API_KEY: API_KEY,
        MM_BOOTSTRAP_API_SECRET: API_SECRET,
        [LIFELINE_VARIABLE]: 'true',
        ...env,
      },
      // stdin: the lifeline (never written): if the test process dies, the platform stops its PostgreSQL and exits.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  child.stdin!.on('error', () => undefined);
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      child.stdin!.destroy();
      resolve({ code, signal });
    }),
  );
  const launched: Launched = { child, url: '', exited, output: () => output };
  return new Promise((resolve, reject) => {
    // The same bound as any platform's start in the suite: a first start makes its PostgreSQL cluster, and on a
    // loaded machine that took more than 40 s.
    const timer = setTimeout(() => reject(new Error(`no address printed in time:\n${output}`)), START_TIMEOUT_MS);
    child.stdout!.on('data', () => {
      const url = /API {10}(http:\/\/\S+)\/v0\.13/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ ...launched, url });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}

export async function stop(
  platform: Launched,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  platform.child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () => reject(new Error(`still running 20 s after ${signal}:\n${platform.output()}`)),
        20_000,
      )),
  );
  return Promise.race([platform.exited, hung]).finally(() => clearTimeout(timer));
}

export async function token(url: string): Promise<string> {
  const res = await fetch(`${url}/v0.13/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: API_KEY, apiSecret: API_SECRET }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

export const postmasterPid = (dataDir: string) =>
  Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An exited process its parent has not collected yet is a zombie: gone all the same.
  return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

export async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; isAlive(pid);) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** What a test left running, even when it failed halfway, so that the next one starts clean. */
export async function stopEverything(): Promise<void> {
  for (const child of [...children]) {
    child.kill('SIGTERM');
    if (!(await waitUntilGone(child.pid!, 20_000))) child.kill('SIGKILL');
  }
  // A platform killed outright leaves its PostgreSQL running.
  for (const dir of dataDirs) {
    const pid = existsSync(join(dir, 'pg', 'postmaster.pid')) ? postmasterPid(dir) : 0;
    if (pid > 0 && isAlive(pid)) {
      process.kill(pid, 'SIGINT');
      if (!(await waitUntilGone(pid, 20_000))) process.kill(pid, 'SIGQUIT');
    }
  }
}

/** Polls check until it answers (every 100 ms, or `intervalMs`); fails naming what is missing. */
export async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: () => string,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not in time: ${what()}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
