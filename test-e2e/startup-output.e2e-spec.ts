// Issue 18 item 4: what a person who runs the platform sees. `npm start` prints
// the banner and little else (Nest's narration of modules and routes is debug
// detail); start:distributed's banner shows the database URL, without its
// password, that start:service needs; both say where the dashboard is (issue 22) beside the API; and a clean stop, as Ctrl-C at a terminal
// makes it (SIGINT to the whole foreground process group, PostgreSQL included),
// logs no warning in either mode. Issue 42 item 7: a first start of
// start:distributed prints no error and no warning that npm start's does not,
// and its banner carries every line npm start's carries (the key pair the
// gateway made among them).
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaTestPrefix, removeKafkaNames } from '@mm/platform/testing';
import { brokerList, freePort, spawnTied, stopTied } from './support/distributed-processes';
import { isAlive, postmasterPid, waitUntilGone } from './support/platform-process';
import { START_TIMEOUT_MS } from './support/test-platform';

jest.setTimeout(START_TIMEOUT_MS + 60_000);

/** Nothing of the test run's own configuration (its DATABASE_URL, HOST, MM_*): a person's first run. */
function freshEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('MM_') && !['DATABASE_URL', 'HOST', 'PORT', 'KAFKA_BROKERS'].includes(key),
    ),
  );
  return { ...inherited, ...env };
}

async function waitFor(
  output: () => string,
  pattern: RegExp,
  child: ChildProcess,
  timeoutMs = START_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(output())) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline)
      throw new Error(`no ${pattern} in:\n${output()}`);
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
const warnings = (text: string) =>
  text
    .split('\n')
    .filter((line) => /"level":[4-6]0\b/.test(line) || /^\s*(\[[\w-]+\] )?\s*at .+:\d+:\d+\)?$/.test(line));

const nestNarration = /Mapped \{|dependencies initialized|RoutesResolver|RouterExplorer|InstanceLoader/;

/** JSON log lines (a service's under its name) at `level` or above, their messages with the data directory named DIR. */
function logged(text: string, level: number, dataDir: string): string[] {
  return text.split('\n').flatMap((line) => {
    const json = /^(?:\[[\w-]+\] )?(\{.*\})$/.exec(line)?.[1];
    if (!json) return [];
    const entry = JSON.parse(json) as { level: number; msg?: string; context?: string };
    return entry.level >= level ? [`${entry.msg ?? entry.context ?? json}`.replaceAll(dataDir, 'DIR')] : [];
  });
}

/** The banner's lines under its title, to the blank line that ends it, with what differs between two starts replaced. */
function bannerLines(text: string, title: RegExp, dataDir: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => title.test(line));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && line.trim() === '');
  return lines.slice(start + 1, end < 0 ? undefined : end).map((line) =>
    line
      .replaceAll(dataDir, 'DIR')
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'URL')
      .replace(/sk_sdbx_\w+/, 'KEY')
      .replace(/^( {2}API secret {3})\S+/, '$1SECRET')
      .replace(/prj_\w+/, 'PROJECT')
      .replace(/mm_admin_\S+/, 'ADMIN_TOKEN'),
  );
}

/** What each mode's first start printed up to its banner, and the data directory it ran on: recorded by the tests that start one. */
const firstStarts: Partial<Record<'platform' | 'kafka' | 'postgres', { output: string; dataDir: string }>> = {};
const PLATFORM_TITLE = /^Money-movement platform \(sandbox\) is listening/;
const DISTRIBUTED_TITLE = /^Money-movement platform, distributed \(sandbox\)/;

describe('what start-up prints and a clean stop logs', () => {
  let dataDir: string;
  let started: ReturnType<typeof spawnTied> | undefined;
  /** The Kafka prefixes of the test's distributed starts on the run's broker, whose topics and groups go when it ends. */
  const kafkaPrefixes: string[] = [];
  const brokers = brokerList(process.env.KAFKA_BROKERS);

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mm-startup-output-'));
  });
  afterEach(async () => {
    if (started) await stopTied(started.child);
    started = undefined;
    for (const prefix of kafkaPrefixes.splice(0)) await removeKafkaNames(brokers, prefix);
    // The embedded PostgreSQL runs in a process group of its own: one its platform could not stop goes too.
    const postmaster = existsSync(join(dataDir, 'pg', 'postmaster.pid')) ? postmasterPid(dataDir) : 0;
    if (postmaster > 0 && isAlive(postmaster)) {
      process.kill(postmaster, 'SIGINT');
      if (!(await waitUntilGone(postmaster, 20_000))) process.kill(postmaster, 'SIGQUIT');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npm start` on an empty data directory, at the default log level, until its banner is out. */
  async function startPlatformMode(): Promise<ReturnType<typeof spawnTied>> {
    started = spawnTied(
      ['-r', './tools/register.js', '-r', './apps/platform/src/instrument.ts', 'apps/platform/src/main.ts'],
      freshEnvironment({ MM_DATA_DIR: dataDir, PORT: '0' }),
    );
    await waitFor(started.output, /^ {2}Data {9}.*$/m, started.child);
    firstStarts.platform = { output: started.output(), dataDir };
    return started;
  }

  /**
   * `npm run start:distributed` on an empty data directory, until its banner is out: events over Kafka (the
   * run's broker, on topics of this test's own), or, asked or without a broker, over the PostgreSQL log transport.
   */
  async function startDistributedMode(
    transport: 'kafka' | 'postgres' = 'kafka',
  ): Promise<{ started: ReturnType<typeof spawnTied>; port: number }> {
    const port = await freePort();
    const kafkaPrefix = transport === 'kafka' && brokers.length > 0 ? kafkaTestPrefix('startup') : undefined;
    if (kafkaPrefix) kafkaPrefixes.push(kafkaPrefix);
    const kafka: Record<string, string> = kafkaPrefix
      ? { KAFKA_BROKERS: brokers.join(','), MM_KAFKA_TOPIC_PREFIX: kafkaPrefix, MM_KAFKA_SESSION_TIMEOUT_MS: '6000' }
      : {};
    started = spawnTied(
      ['-r', './tools/register.js', 'tools/distributed/start-distributed.ts'],
      freshEnvironment({
        MM_DATA_DIR: dataDir,
        PORT: String(port),
        MM_READY_TIMEOUT_SECS: String(START_TIMEOUT_MS / 1000 - 30),
        ...kafka,
      }),
    );
    await waitFor(started.output, /^ {2}A service again: .*$/m, started.child);
    firstStarts[kafkaPrefix ? 'kafka' : 'postgres'] = { output: started.output(), dataDir };
    return { started, port };
  }

  it('npm start: a few lines before the banner, none of them route mapping, and no warning on Ctrl-C', async () => {
    // As `npm start` runs it, on its embedded PostgreSQL, at the default log level.
    const { child, output } = await startPlatformMode();
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
    const {
      started: { child, output },
      port,
    } = await startDistributedMode();
    const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
    expect(output()).toMatch(
      /^ {2}Database {5}postgres:\/\/postgres@127\.0\.0\.1:\d+\/money_movement {3}\(password in .*pg-password\)$/m,
    );
    expect(output()).toMatch(
      /^ {2}A service again: DATABASE_URL=postgres:\/\/postgres:<password>@127\.0\.0\.1:\d+\/money_movement /m,
    );
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

  it("start:distributed's first start: no error, no warning npm start's first start does not print, and every line of npm start's banner", async () => {
    // Each mode on an empty data directory of its own: what the two tests above recorded, or a start of its own.
    if (!firstStarts.platform) {
      await startPlatformMode();
      await stopTied(started!.child);
      started = undefined;
      rmSync(dataDir, { recursive: true, force: true });
      dataDir = mkdtempSync(join(tmpdir(), 'mm-startup-output-'));
    }
    // On both transports: the PostgreSQL log transport's readers read the logs of the services they consume.
    for (const transport of brokers.length > 0 ? (['kafka', 'postgres'] as const) : (['postgres'] as const)) {
      if (firstStarts[transport]) continue;
      if (started) {
        await stopTied(started.child);
        started = undefined;
        rmSync(dataDir, { recursive: true, force: true });
        dataDir = mkdtempSync(join(tmpdir(), 'mm-startup-output-'));
      }
      await startDistributedMode(transport);
    }
    const platform = firstStarts.platform!;
    const platformWarnings = logged(platform.output, 40, platform.dataDir);
    const platformBanner = bannerLines(platform.output, PLATFORM_TITLE, platform.dataDir);
    expect(platformBanner.map((line) => line.slice(0, 15).trim())).toEqual([
      'API',
      'Reference',
      'Dashboard',
      'API key',
      'API secret',
      'Project',
      'Providers',
      'Admin token',
      'Data',
    ]);

    for (const transport of ['kafka', 'postgres'] as const) {
      const distributed = firstStarts[transport];
      if (!distributed) continue;
      // No error from any process (a reader of a log another service had not created yet logged one each poll).
      expect({ transport, errors: logged(distributed.output, 50, distributed.dataDir) }).toEqual({
        transport,
        errors: [],
      });
      expect(distributed.output).not.toMatch(/^\s*(\[[\w-]+\] )?\s*at .+:\d+:\d+\)?$/m);
      // No warning but those npm start's first start printed too.
      const warnings = logged(distributed.output, 40, distributed.dataDir).filter(
        (warning) => !platformWarnings.includes(warning),
      );
      expect({ transport, warnings }).toEqual({ transport, warnings: [] });
      // Each of npm start's banner lines is in start:distributed's, as it is or with more said after it.
      const distributedBanner = bannerLines(distributed.output, DISTRIBUTED_TITLE, distributed.dataDir);
      const missing = platformBanner.filter((line) => !distributedBanner.some((shown) => shown.startsWith(line)));
      expect({ transport, missing }).toEqual({ transport, missing: [] });
      // The secret of the key pair the gateway made is shown once, in the banner.
      expect(distributed.output.match(/shown this once/g)).toHaveLength(1);
    }
  });
});
