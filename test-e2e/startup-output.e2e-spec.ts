// Issue 18 item 4: what a person who runs the platform sees. `npm start` prints
// the banner and little else (Nest's narration of modules and routes is debug
// detail); start:distributed's banner shows the database URL, without its
// password, that start:service needs; both say where the dashboard is (issue 22) beside the API; and a clean stop, as Ctrl-C at a terminal
// makes it (SIGINT to the whole foreground process group, PostgreSQL included),
// logs no warning in either mode.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnTied, stopTied } from './support/distributed-processes';
import { isAlive, postmasterPid, waitUntilGone } from './support/platform-process';
import { START_TIMEOUT_MS } from './support/test-platform';

jest.setTimeout(START_TIMEOUT_MS + 60_000);

/** Nothing of the test run's own configuration (its DATABASE_URL, HOST, MM_*): a person's first run. */
function freshEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MM_') && !['DATABASE_URL', 'HOST', 'PORT', 'KAFKA_BROKERS'].includes(key)));
  return { ...inherited, ...env };
}

async function waitFor(output: () => string, pattern: RegExp, child: ChildProcess, timeoutMs = START_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(output())) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Ctrl-C at a terminal: SIGINT to the process group the command runs in. Resolves with the exit code. */
async function interrupt(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  process.kill(-child.pid!, 'SIGINT');
  return exited;
}

/** Log lines at warn or above (JSON lines, a service's under its name), and anything on a line with a stack frame. */
const warnings = (text: string) => text.split('\n').filter((line) => /"level":[4-6]0\b/.test(line) || /^\s*(\[[\w-]+\] )?\s*at .+:\d+:\d+\)?$/.test(line));

const nestNarration = /Mapped \{|dependencies initialized|RoutesResolver|RouterExplorer|InstanceLoader/;

describe('what start-up prints and a clean stop logs', () => {
  let dataDir: string;
  let started: ReturnType<typeof spawnTied> | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mm-startup-output-'));
  });
  afterEach(async () => {
    if (started) await stopTied(started.child);
    started = undefined;
    // The embedded PostgreSQL runs in a process group of its own: one its platform could not stop goes too.
    const postmaster = existsSync(join(dataDir, 'pg', 'postmaster.pid')) ? postmasterPid(dataDir) : 0;
    if (postmaster > 0 && isAlive(postmaster)) {
      process.kill(postmaster, 'SIGINT');
      if (!(await waitUntilGone(postmaster, 20_000))) process.kill(postmaster, 'SIGQUIT');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('npm start: a few lines before the banner, none of them route mapping, and no warning on Ctrl-C', async () => {
    // As `npm start` runs it, on its embedded PostgreSQL, at the default log level.
    started = spawnTied(['-r', './tools/register.js', '-r', './apps/platform/src/instrument.ts', 'apps/platform/src/main.ts'], freshEnvironment({ MM_DATA_DIR: dataDir, PORT: '0' }));
    const { child, output } = started;
    await waitFor(output, /^ {2}Data {9}.*$/m, child);
    const lines = output().split('\n');
    const banner = lines.findIndex((line) => line.startsWith('Money-movement platform (sandbox) is listening'));
    expect(banner).toBeGreaterThanOrEqual(0);
    const before = lines.slice(0, banner).filter((line) => line.trim() !== '');
    // npm adds its own four lines (the script's name and command, and blank lines): under 15 in all.
    expect(before.length).toBeLessThanOrEqual(10);
    expect(output()).not.toMatch(nestNarration);

    // Requests, then a stop while the platform is in use.
    const url = /API {10}(http:\/\/\S+)\/v0\.13/.exec(output())![1];
    for (let i = 0; i < 5; i++) expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The dashboard's address beside the API's, on the same origin, and served there.
    expect(output()).toMatch(/^ {2}Reference {4}.*\n {2}Dashboard {4}http:\/\/\S+\/dashboard\//m);
    const dashboard = /^ {2}Dashboard {4}(http:\/\/\S+\/dashboard\/)/m.exec(output())![1];
    expect(dashboard).toBe(`${url}/dashboard/`);
    expect((await fetch(dashboard)).status).toBe(200);
    const stopAt = output().length;
    expect(await interrupt(child)).toBe(0);
    const stopping = output().slice(stopAt);
    expect(stopping).toContain('SIGINT: stopping');
    expect(warnings(stopping)).toEqual([]);
  });

  it('start:distributed: the database URL without its password in the banner, and no warning on Ctrl-C', async () => {
    const port = await freePort();
    // Kafka when the run has a broker (as CI does), on topics of this test's own.
    const kafka: Record<string, string> = process.env.KAFKA_BROKERS ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS, MM_KAFKA_TOPIC_PREFIX: `mm-startup-${port}`, MM_KAFKA_SESSION_TIMEOUT_MS: '6000' } : {};
    started = spawnTied(
      ['-r', './tools/register.js', 'tools/distributed/start-distributed.ts'],
      freshEnvironment({ MM_DATA_DIR: dataDir, PORT: String(port), MM_READY_TIMEOUT_SECS: String(START_TIMEOUT_MS / 1000 - 30), ...kafka }),
    );
    const { child, output } = started;
    await waitFor(output, /^ {2}A service again: .*$/m, child);
    const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
    expect(output()).toMatch(/^ {2}Database {5}postgres:\/\/postgres@127\.0\.0\.1:\d+\/money_movement {3}\(password in .*pg-password\)$/m);
    expect(output()).toMatch(/^ {2}A service again: DATABASE_URL=postgres:\/\/postgres:<password>@127\.0\.0\.1:\d+\/money_movement /m);
    expect(output()).not.toContain(password);
    expect(output()).not.toMatch(nestNarration);

    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 5; i++) expect((await fetch(`${base}/v0.13/customers`)).status).toBe(401);
    // The gateway serves the dashboard, and the banner says where.
    expect(output()).toMatch(new RegExp(`^ {2}Dashboard {4}${base.replace(/[.]/g, '\\.')}/dashboard/`, 'm'));
    expect((await fetch(`${base}/dashboard/`)).status).toBe(200);
    const stopAt = output().length;
    expect(await interrupt(child)).toBe(0);
    const stopping = output().slice(stopAt);
    expect(stopping).toContain('SIGINT: stopping every service');
    expect(warnings(stopping)).toEqual([]);
  });
});
