// What the crash tests of start:distributed share (issues 19 and 20): a platform
// of their own on a fresh database and the PostgreSQL log transport, requests
// through its gateway, a service killed outright (SIGKILL) and started again
// alone on its port (`npm run start:service`), a request whose answer was lost
// sent again with the same Idempotency-Key and body until it is answered, and
// the small arithmetic they check the ledger with (a seeded PRNG, amounts as
// whole numbers of 10^-18 units: no floats near money).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceUrlVariable } from '@mm/contracts';
import { cloneTemplateDatabase } from '@mm/platform/testing';
import {
  spawnTied,
  startDistributedProcesses,
  START_TIMEOUT_MS,
  stopTied,
  track,
  type PlatformHandle,
  type Queryable,
} from './distributed-processes';
import { until } from './platform-process';
import { ADMIN_TOKEN, platformSettings } from './settings';

/** How long `ok` sends a request again while its answer is one a client retries. */
const RETRIED_MS = 60_000;

/** mulberry32: a small seeded PRNG, so a crash test's mix is the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An amount with at most 18 decimals as a whole number of 10^-18 units (no floats near money). */
export function units(amount: string | null | undefined): bigint {
  if (amount === null || amount === undefined) return 0n;
  const match = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(amount);
  if (!match) throw new Error(`not an amount: ${amount}`);
  const value = BigInt(match[2]) * 10n ** 18n + BigInt((match[3] ?? '').padEnd(18, '0'));
  return match[1] ? -value : value;
}

export interface Answer {
  status: number;
  body: any;
  replayed: boolean;
}

export interface Service {
  name: string;
  url: string;
  port: string;
  pid: number;
}

/** Each process's line in start:distributed's banner: name, URL, pid. */
export function bannerServices(output: string): Map<string, Service> {
  const services = new Map<string, Service>();
  for (const [, name, url, port, pid] of output.matchAll(/^ {2}([a-z-]+) +(http:\/\/127\.0\.0\.1:(\d+)) +pid (\d+)$/gm))
    services.set(name, { name, url, port, pid: Number(pid) });
  return services;
}

/** A request that creates a transaction (a deposit, a transfer), sent until it is answered: its transaction, and each answer lost before it. */
export interface Sent {
  n: number;
  key: string;
  transactionId?: string;
  /** Each answer that was lost (the connection, a 5xx) or told to wait (409 in flight), before the 201. */
  lost: string[];
  /** The 201 was a replay of the answer a killed process had committed. */
  replayed?: boolean;
}

/** A request sent until it was answered: its answer, and each answer lost (the connection, a 5xx) or told to wait (409 in flight) before it. */
export interface Retried {
  answer?: Answer;
  lost: string[];
}

/**
 * start:distributed on a fresh database, events on the PostgreSQL log transport whatever broker the run has,
 * warnings only (the kills are expected). Every request goes through the gateway; `bearer` is the token of
 * the project made with `project()` (the operator's before).
 */
export class CrashRun {
  readonly services: Map<string, Service>;
  /** The output of each process started again, by service. */
  readonly outputs: Record<string, Array<() => string>> = {};
  /** The services killed and not listening again yet. */
  readonly down = new Set<string>();
  /** Until then every retried request is sent again; after it, it is given up. */
  readonly deadline = Date.now() + START_TIMEOUT_MS;
  bearer = ADMIN_TOKEN;
  /** What went wrong with the requests sent by `send`: each a line. */
  readonly problems: string[] = [];
  private readonly restarted: ChildProcess[] = [];
  private readonly dirs: string[] = [];
  private readonly serviceUrls: Record<string, string>;

  private constructor(
    readonly platform: PlatformHandle,
    private readonly settings: Record<string, string>,
    private readonly prefix: string,
  ) {
    this.services = bannerServices(platform.output!());
    this.serviceUrls = Object.fromEntries(
      [...this.services.values()]
        .filter((s) => s.name !== 'gateway')
        .map((s) => [serviceUrlVariable(s.name as never), s.url]),
    );
  }

  /**
   * `prefix` names the temporary directories of the processes started again; `env`, settings of the test's;
   * `services`, only these besides the gateway (every service when omitted).
   */
  static async start(
    prefix: string,
    { env = {}, services }: { env?: Record<string, string>; services?: readonly string[] } = {},
  ): Promise<CrashRun> {
    const databaseUrl = await cloneTemplateDatabase();
    const settings = platformSettings(databaseUrl, { KAFKA_BROKERS: '', MM_LOG_LEVEL: 'warn', ...env });
    return new CrashRun(await startDistributedProcesses(settings, undefined, services), settings, prefix);
  }

  get db(): Queryable {
    return this.platform.dataSource;
  }

  async stop(): Promise<void> {
    for (const child of this.restarted) await stopTied(child);
    await this.platform.stop();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }

  /** One request through the gateway; POST and PATCH carry `key` (a new one when none is given). Throws when the connection fails. */
  readonly call = async (
    method: string,
    path: string,
    body?: unknown,
    options: { token?: string; key?: string } = {},
  ): Promise<Answer> => {
    const res = await fetch(`${this.platform.url}/v0.13${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token ?? this.bearer}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'POST' || method === 'PATCH' ? { 'idempotency-key': options.key ?? randomUUID() } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: res.status,
      body: await res.json().catch(() => undefined),
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  };

  /** A request that must answer `status`; its body. */
  readonly ok = async (
    method: string,
    path: string,
    body?: unknown,
    status = method === 'POST' ? 201 : 200,
    token?: string,
  ): Promise<any> => {
    // Sent again, with the same key, while the answer is one a client retries (a 503 with Retry-After, a lost
    // connection): the machine may be slow, which is not what a crash run is about.
    const { answer, lost } = await this.retried(method, path, body, randomUUID(), token, Date.now() + RETRIED_MS);
    const res = answer ?? { status: 0, body: { lost } };
    expect({ method, path, status: res.status, body: res.body }).toEqual({
      method,
      path,
      status,
      body: expect.anything(),
    });
    return res.body;
  };

  /** A project of its own with these features, and a token of a key pair of it for every later request. */
  async project(name: string, features: Record<string, boolean> = {}): Promise<string> {
    this.bearer = ADMIN_TOKEN;
    const project = await this.ok('POST', '/admin/projects', { name });
    if (Object.keys(features).length > 0) await this.ok('PATCH', `/admin/projects/${project.id}`, { features }, 200);
    const keys = await this.ok('POST', `/admin/projects/${project.id}/api-keys`);
    this.bearer = (
      await this.ok('POST', '/auth/token', { apiKey: keys.apiKey, apiSecret: keys.apiSecret }, 200)
    ).accessToken;
    return project.id;
  }

  /** The project's clock moves on. */
  advance(seconds: number): Promise<unknown> {
    return this.ok('POST', '/sandbox/clock/advance', { seconds }, 200);
  }

  /**
   * Sends a request until it is answered: an answer lost to a dead process (the connection, a 5xx from the
   * gateway) or a key still locked by a dying request (409) is sent again with the same key and body, a
   * little later (the process is coming back), until the deadline.
   */
  async retried(
    method: string,
    path: string,
    body: unknown,
    key: string,
    token?: string,
    deadline = this.deadline,
  ): Promise<Retried> {
    const lost: string[] = [];
    for (;;) {
      let res: Answer;
      try {
        res = await this.call(method, path, body, { key, token });
      } catch (error) {
        res = { status: 0, body: { error: (error as Error).message }, replayed: false };
      }
      if (res.status !== 0 && res.status < 500 && !(res.status === 409 && res.body?.error === 'IdempotencyKeyInFlight'))
        return { answer: res, lost };
      lost.push(`${res.status} ${res.body?.error ?? ''} while ${[...this.down].join(' and ') || 'nothing'} down`);
      if (Date.now() > deadline) return { lost };
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** POSTs `body` to `path` with the item's key until it is answered; a 201 gives its transactionId, anything else is a problem named `${what} ${n}`. */
  async send(what: string, item: Sent, path: string, body: unknown): Promise<void> {
    const { answer, lost } = await this.retried('POST', path, body, item.key);
    item.lost.push(...lost);
    if (!answer) this.problems.push(`${what} ${item.n}: never answered (${item.lost.join(', ')})`);
    else if (answer.status !== 201)
      this.problems.push(`${what} ${item.n}: answered ${answer.status} ${JSON.stringify(answer.body)}`);
    else {
      item.transactionId = answer.body.transactionId;
      item.replayed = answer.replayed;
    }
  }

  /** Every transaction of these customers, page by page, by id. */
  async transactions(customerIds: readonly string[]): Promise<Map<string, any>> {
    const all = new Map<string, any>();
    for (const customerId of customerIds) {
      for (let cursor: string | null = null; ;) {
        const page = await this.call(
          'GET',
          `/transactions?customerId=${customerId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        for (const t of page.body.data) all.set(t.id, t);
        cursor = page.body.nextCursor;
        if (!page.body.hasMore) break;
      }
    }
    return all;
  }

  /**
   * The clock moves on `seconds` at a time until each item's transaction has the status and subStatus
   * `final` gives its expected outcome (one held for review only once its payout failed: no amount here
   * is large enough for a compliance review); answers the transactions as listed then.
   */
  async settle<O extends string>(
    items: ReadonlyArray<Sent & { amount: string; expected: O }>,
    customerIds: readonly string[],
    final: Record<O, [string, string | null]>,
    seconds: number,
  ): Promise<Map<string, any>> {
    let views = new Map<string, any>();
    const where = (item: Sent) => {
      const v = views.get(item.transactionId!);
      return v ? [v.status, v.subStatus ?? null] : ['missing', null];
    };
    const settled = (item: Sent & { expected: O }) => {
      const [status, subStatus] = where(item);
      const [wanted, wantedSub] = final[item.expected];
      const v = views.get(item.transactionId!);
      return (
        status === wanted &&
        subStatus === wantedSub &&
        (wantedSub !== 'processing.underReview' ||
          v.legs.some((l: any) => l.kind === 'payout' && l.status === 'failed'))
      );
    };
    await until(
      async () => {
        await this.advance(seconds);
        views = await this.transactions(customerIds);
        return items.every(settled) ? true : undefined;
      },
      120_000,
      () =>
        `not where they should be: ${items
          .filter((item) => !settled(item))
          .map((item) => `#${item.n} ${item.amount} ${item.expected}: ${where(item).join(' ')}`)
          .join('; ')}`,
    );
    return views;
  }

  /** A service killed outright, then started again alone on its port, as the banner says; resolves once it listens. */
  killAndRestart(name: string): Promise<void> {
    this.kill(name);
    const restarted = this.restart(name);
    // Awaited by the test; marked handled so that, when the test failed before awaiting it, its later failure is
    // not reported against whichever test file the worker runs next.
    restarted.catch(() => undefined);
    return restarted;
  }

  /** A service killed outright (SIGKILL). */
  kill(name: string): void {
    process.kill(this.services.get(name)!.pid, 'SIGKILL');
    this.down.add(name);
  }

  /** A killed service started again alone on its port, as the banner says; resolves once it listens. */
  async restart(name: string): Promise<void> {
    const service = this.services.get(name)!;
    const dataDir = mkdtempSync(join(tmpdir(), `${this.prefix}-${name}-`));
    this.dirs.push(dataDir);
    const again = spawnTied(['-r', './tools/register.js', 'tools/distributed/start-service.ts', name], {
      ...process.env,
      ...this.settings,
      ...this.serviceUrls,
      MM_DATA_DIR: dataDir,
      MM_GATEWAY_URL: this.platform.url,
      PORT: service.port,
      HOST: '127.0.0.1',
    });
    this.restarted.push(again.child);
    track(() => stopTied(again.child));
    // The next kill of this service is of this process.
    this.services.set(name, { ...service, pid: again.child.pid! });
    (this.outputs[name] ??= []).push(again.output);
    await until(
      () => {
        if (again.child.exitCode !== null)
          throw new Error(`the ${name} service exited on its restart:\n${again.output()}`);
        return new RegExp(`${name} service \\(sandbox\\) is listening`).test(again.output()) ? true : undefined;
      },
      START_TIMEOUT_MS - 30_000,
      () => `the ${name} service listening again:\n${again.output()}`,
    );
    this.down.delete(name);
  }

  /** How many lines of the processes started again of this service match `pattern`. */
  restartedLines(name: string, pattern: RegExp): number {
    return (this.outputs[name] ?? [])
      .map((output) => output().match(new RegExp(pattern.source, 'g'))?.length ?? 0)
      .reduce((a, b) => a + b, 0);
  }
}

/** A crash test file's run: the function starts it (once), and the file's afterAll stops it. */
export function crashRun(prefix: string): () => Promise<CrashRun> {
  let run: CrashRun | undefined;
  afterAll(async () => {
    await run?.stop();
  }, START_TIMEOUT_MS);
  return async () => (run ??= await CrashRun.start(prefix));
}
