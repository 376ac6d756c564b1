// The platform as a partner meets it: started on a free port against a fresh
// clone of the migrated test database, driven over real HTTP; or, in the
// e2e-distributed run, the run's one shared multi-process platform with a
// project of the test file's own (shared-platform.ts).
import 'reflect-metadata';
import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Pool } from 'pg';
import { Agent, fetch as undiciFetch } from 'undici';
import { SERVICES, startPlatform } from '@mm/runtime/platform';
import { ENDORSEMENT_NAMES, SERVICE_NAMES, type EndorsementName, type ServiceName } from '@mm/contracts';
import { loadConfig, signingKeyEncryptionRing } from '@mm/platform/config';
import { cloneTemplateDatabase } from '@mm/platform/testing';
import { startDistributedProcesses, track, type PlatformHandle, type Queryable } from './distributed-processes';
import { SensitiveValues } from './sensitive-values';
import { distributedKafka, platformSettings, ADMIN_TOKEN, BOOTSTRAP_KEY, BOOTSTRAP_SECRET } from './settings';
import { sharedPlatformState } from './shared-platform';

export { ADMIN_TOKEN, BOOTSTRAP_KEY, BOOTSTRAP_SECRET, SIGNING_KEY_ENCRYPTION_KEYS } from './settings';
export { START_TIMEOUT_MS } from './distributed-processes';

/** For a test about the gateway alone (tokens, bootstrap, its keys): in distributed mode no service process is started. */
export const GATEWAY_ALONE: { services: ServiceName[] } = { services: [] };

/** platform (`npm start`'s one process) or distributed (`npm run start:distributed`'s processes): set per jest project. */
export const E2E_MODE = process.env.MM_E2E_MODE === 'distributed' ? 'distributed' : 'platform';

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  token?: string | null;
  headers?: Record<string, string>;
  /** undefined: a fresh key on POST/PATCH; null: no header. */
  idempotencyKey?: string | null;
}

/** Each consumer group's topics (a service's own log and the logs it reads). */
function consumerTopics(
  prefix: string,
  services: readonly ServiceName[],
): Array<{ groupId: string; topics: string[] }> {
  return services
    .filter((s) => s !== 'gateway')
    .map((service) => ({
      groupId: `${prefix}.${service}`,
      topics: [SERVICES[service].schema, ...SERVICES[service].consumes].map((schema) => `${prefix}.${schema}.events`),
    }));
}

export class TestPlatform {
  /** Every 500 this platform answered: a 500 is a defect whatever the test asserted. */
  private readonly internalErrors: string[] = [];

  /** Account numbers, IBANs, card numbers and tax ids sent, and where one came back. */
  private readonly sensitive = new SensitiveValues();
  /**
   * This file's connections to the platform. An idle one is closed after 4 s, far inside the server's
   * keep-alive (65 s): a client that keeps a socket as long as the server's hint allows races the
   * server's close whenever the machine is busy ('other side closed' on the next request).
   */
  private readonly http = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });

  private kafkaAdmin?: Promise<Admin>;

  /** The project this file works in: the bootstrap project, or on the shared platform one of the file's own. */
  projectId = '';
  /** Every project this file made (through newProject or the operator's POST /projects), its own first. */
  readonly projects: string[] = [];
  private apiKey = BOOTSTRAP_KEY;
  private apiSecret = BOOTSTRAP_SECRET;
  private untrack: () => void = () => undefined;
  /** The services running (distributed mode may run a few): settle() waits on their consumers only. */
  private services: readonly ServiceName[] = SERVICE_NAMES;

  private constructor(
    readonly running: PlatformHandle,
    private readonly settings: Record<string, string>,
    /** Everything the platform logged so far. */
    readonly logs: () => string,
    /** Whether this file shares the platform with others (it then stops only its own connections). */
    readonly isShared = false,
  ) {}

  /**
   * A platform of this file's own. databaseUrl: start on an existing database (a restart) instead of a
   * fresh clone. services: in distributed mode, only these processes besides the gateway, for a test
   * about start-up that reaches no other (platform mode runs every service in its one process anyway).
   * A start still running when the file ends (its hook timed out) is stopped then.
   */
  static async start(
    env: Record<string, string> = {},
    databaseUrl?: string,
    { services }: { services?: ServiceName[] } = {},
  ): Promise<TestPlatform> {
    const url = databaseUrl ?? (await cloneTemplateDatabase());
    const settings = platformSettings(url, env);
    // The same suite in both modes (jest project e2e-distributed): every request through the gateway,
    // and events between the services over the run's Kafka broker (the Jest setup's mock), on topics
    // of this database's own, as a separate installation sharing the cluster would.
    let platform: TestPlatform;
    if (E2E_MODE === 'distributed') {
      const distributed = { ...distributedKafka(url), ...settings };
      const handle = await startDistributedProcesses(distributed, undefined, services);
      platform = new TestPlatform(handle, distributed, () => handle.output?.() ?? '');
      if (services) platform.services = ['gateway', ...services];
    } else {
      let logged = '';
      const logDestination = {
        write(line: string) {
          logged += line;
          // Errors still reach the test's output, as they would on stdout.
          if (/"level":(5|6)0/.test(line)) process.stderr.write(line);
        },
      };
      const starting = startPlatform(loadConfig(settings), { host: '127.0.0.1', logDestination });
      // Stopped with the file even when the hook that awaits it has timed out.
      const untrack = track(async () => (await starting).stop());
      const running = await starting.catch((error: unknown) => {
        untrack();
        throw error;
      });
      platform = new TestPlatform(running, settings, () => logged);
      platform.untrack = untrack;
    }
    platform.projectId = platform.running.bootstrap?.projectId ?? '';
    return platform;
  }

  /** A service's own address: the one process's in platform mode; in distributed mode the service's process. */
  serviceUrl(service: ServiceName): string {
    if (E2E_MODE !== 'distributed') return this.url;
    const row = new RegExp(`^ {2}${service} +(http://127\\.0\\.0\\.1:\\d+) {3}pid \\d+$`, 'm').exec(this.logs());
    if (!row) throw new Error(`${service} is not among this platform's processes`);
    return row[1];
  }

  /**
   * A service's /metrics (Prometheus text): the one process's in platform mode; in distributed mode the
   * service's own process, found in the process table start:distributed prints.
   */
  async metrics(service: ServiceName): Promise<string> {
    const base = this.serviceUrl(service);
    const res = await fetch(`${base}/metrics`);
    if (res.status !== 200) throw new Error(`GET ${base}/metrics: ${res.status}`);
    return res.text();
  }

  /**
   * The platform for a file that neither kills processes nor needs settings of its own: in the
   * e2e-distributed run, the run's shared multi-process platform with a new project (and API key) of
   * this file's own, which token() then uses; otherwise a platform of the file's own, as start().
   */
  static async shared(): Promise<TestPlatform> {
    const state = E2E_MODE === 'distributed' ? await sharedPlatformState() : undefined;
    if (!state) return TestPlatform.start();
    const pool = new Pool({ connectionString: state.databaseUrl, max: 2 });
    const handle: PlatformHandle = {
      url: state.url!,
      databaseUrl: state.databaseUrl!,
      dataSource: { query: async (sql, params) => (await pool.query(sql, params)).rows },
      stop: () => pool.end(),
    };
    const platform = new TestPlatform(handle, state.settings!, () => readFileSync(state.logFile, 'utf8'), true);
    platform.untrack = track(() => pool.end());
    const file = basename(expect.getState().testPath ?? 'e2e').replace(/\.e2e-spec\.ts$/, '');
    const project = await platform.newProject(`e2e ${file}`);
    Object.assign(platform, { projectId: project.projectId, apiKey: project.apiKey, apiSecret: project.apiSecret });
    return platform;
  }

  /** The platform's database, read as the test's own client. */
  get db(): Queryable {
    return this.running.dataSource;
  }

  /**
   * Returns once every event appended before the call has reached its consumers. On the PostgreSQL
   * log transport they hear of a commit at once; on Kafka, each log's relay must have published it
   * and each consumer group committed past it. A barrier, not a moment of quiet: on the shared
   * platform other files append all the time.
   */
  /**
   * On the PostgreSQL log transport: waits (at most timeoutMs, then goes on) until every log reader's
   * checkpoint has passed what its source log held when called. A reader's checkpoint moves past every
   * event it reads, handled or not, so this is "every event appended before now has been seen".
   */
  private async settleLogReaders(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const readers = await this.db.query<{ source: string }>(
      `SELECT DISTINCT source FROM platform.subscription_checkpoints WHERE subscription NOT LIKE 'kafka-relay:%'`,
    );
    const sources = readers.map((r) => r.source).filter((source) => /^[a-z_]+$/.test(source));
    if (sources.length === 0) return;
    const [targets] = await this.db.query<Record<string, string>>(
      `SELECT ${sources.map((schema) => `(SELECT coalesce(max(global_position), 0) FROM ${schema}.events) AS ${schema}`).join(', ')}`,
    );
    // A reader is behind while an event appended before now is after its checkpoint in the order it reads in:
    // (transaction, position), not position alone. A transaction that took its id first may append after
    // another one and commit after it: the reader then ends on the earlier position, having read both.
    const unread = `c.subscription NOT LIKE 'kafka-relay:%' AND (${sources
      .map(
        (schema) =>
          `(c.source = '${schema}' AND EXISTS (SELECT 1 FROM ${schema}.events e WHERE e.global_position <= ${Number(targets[schema])}
             AND (e.transaction_id, e.global_position) > (c.transaction_id, c.global_position)))`,
      )
      .join(' OR ')})`;
    while (Date.now() < deadline) {
      const behind = await this.db.query(`SELECT 1 FROM platform.subscription_checkpoints c WHERE ${unread} LIMIT 1`);
      if (behind.length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    // Goes on, but says why: a reader reads only what committed before the oldest transaction still open
    // anywhere on the server (the log's ordering rule), so an open transaction of any database holds it.
    const lagging = await this.db.query(
      `SELECT subscription, source, transaction_id::text AS transaction_id, global_position FROM platform.subscription_checkpoints c WHERE ${unread}`,
    );
    // And what this database's sessions are doing: a reader's batch that holds its lock without having written
    // (waiting on a lock, or on the process) shows here, not among the transactions above.
    const sessions = await this.db.query(
      `SELECT application_name, state, wait_event_type, wait_event, round(extract(epoch FROM now() - xact_start)) AS xact_seconds, left(query, 160) AS query
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL ORDER BY xact_start LIMIT 8`,
    );
    // And where each lagging reader stands against the events it has not read: their transactions, which a reader
    // takes in (transaction, position) order and only below the horizon (the snapshot's xmin).
    const standing: unknown[] = [];
    for (const { subscription, source } of lagging as Array<{ subscription: string; source: string }>) {
      if (!/^[a-z_]+$/.test(source)) continue;
      standing.push(
        ...(await this.db.query(
          `SELECT $1::text AS subscription, c.transaction_id::text AS checkpoint_xid, c.global_position AS checkpoint_position,
                  pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
                  (SELECT json_agg(json_build_object('position', e.global_position, 'xid', e.transaction_id::text, 'type', e.type) ORDER BY e.global_position)
                     FROM (SELECT * FROM ${source}.events x WHERE (x.transaction_id, x.global_position) > (c.transaction_id, c.global_position) ORDER BY x.transaction_id, x.global_position LIMIT 5) e) AS next
             FROM platform.subscription_checkpoints c WHERE c.subscription = $1 AND c.source = $2`,
          [subscription, source],
        )),
      );
    }
    process.stderr.write(
      `[test] settle: log readers still behind after ${timeoutMs} ms: ${JSON.stringify(lagging)}; where they stand: ${JSON.stringify(standing)}; ${await this.oldestOpenTransactions()}; this database's open sessions: ${JSON.stringify(sessions)}\n`,
    );
  }

  /** The transactions open longest on the whole server: each holds back every log reader of every database. */
  private async oldestOpenTransactions(): Promise<string> {
    const open = await this.db.query(
      `SELECT datname, application_name, state, backend_xid::text, round(extract(epoch FROM now() - xact_start)) AS seconds, left(query, 120) AS query
         FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start LIMIT 5`,
    );
    return `oldest open transactions: ${JSON.stringify(open)}`;
  }

  /** (A generous deadline: on a busy 2-core machine nine relays and their consumers share the processor.) */
  async settle(timeoutMs = 30_000): Promise<void> {
    const prefix = this.settings.KAFKA_BROKERS ? this.settings.MM_KAFKA_TOPIC_PREFIX : undefined;
    if (!prefix) return this.settleLogReaders(timeoutMs);
    this.kafkaAdmin ??= (async () => {
      const admin = new Kafka({
        clientId: 'mm-e2e-settle',
        brokers: this.settings.KAFKA_BROKERS.split(','),
        logLevel: logLevel.NOTHING,
      }).admin();
      await admin.connect();
      return admin;
    })();
    const admin = await this.kafkaAdmin;
    const deadline = Date.now() + timeoutMs;
    const wait = async (what: string, done: () => Promise<boolean>) => {
      while (!(await done())) {
        if (Date.now() > deadline)
          throw new Error(
            `the events did not reach their consumers in time (${what}); ${await this.oldestOpenTransactions()}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // 1. Every log's relay has published what was appended before now.
    const schemas = this.services.map((s) => SERVICES[s].schema);
    const [targets] = await this.db.query<Record<string, string>>(
      `SELECT ${schemas.map((schema) => `(SELECT coalesce(max(global_position), 0) FROM ${schema}.events) AS ${schema}`).join(', ')}`,
    );
    await wait('relays', async () => {
      const [row] = await this.db.query<{ caught_up: boolean }>(
        `SELECT ${schemas
          .map(
            (
              schema,
            ) => `${Number(targets[schema])} <= coalesce((SELECT global_position FROM platform.subscription_checkpoints
              WHERE subscription = 'kafka-relay:${schema}' AND source = '${schema}'), 0)`,
          )
          .join(' AND ')} AS caught_up`,
      );
      return row.caught_up;
    });
    // 2. Every consumer group has committed up to each topic's end as it is now, which holds all of that.
    const ends = new Map<string, Array<{ partition: number; high: string }>>();
    for (const { topics } of consumerTopics(prefix, this.services)) {
      for (const topic of topics) if (!ends.has(topic)) ends.set(topic, await admin.fetchTopicOffsets(topic));
    }
    await wait('consumers', async () => {
      for (const { groupId, topics } of consumerTopics(prefix, this.services)) {
        for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics })) {
          for (const end of ends.get(topic)!) {
            const at = partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
            if (Number(end.high) > 0 && (at === '-1' || Number(at) < Number(end.high))) return false;
          }
        }
      }
      return true;
    });
  }

  get url(): string {
    return this.running.url;
  }

  /** Stops the platform (on the shared one, this file's connections only), then fails on any 500 or leak it saw. */
  async stop(): Promise<void> {
    await this.kafkaAdmin?.then((admin) => admin.disconnect()).catch(() => undefined);
    await this.sensitive.checkDatabase(this.db);
    this.untrack();
    await this.http.close();
    await this.running.stop();
    // The start-up banner prints the bootstrap secret by design; a test's account number may be part of it.
    this.sensitive.check('the log output', this.logs().replaceAll(BOOTSTRAP_SECRET, '[bootstrap secret]'));
    if (this.internalErrors.length > 0)
      throw new Error(`the platform answered 500 to:\n${this.internalErrors.join('\n')}`);
    if (this.sensitive.leaks.length > 0)
      throw new Error(`sensitive values leaked:\n${[...new Set(this.sensitive.leaks)].join('\n')}`);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined || options.rawBody !== undefined) headers['content-type'] ??= 'application/json';
    if ((method === 'POST' || method === 'PATCH') && options.idempotencyKey !== null) {
      headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    }
    const response = await undiciFetch(`${this.url}${path}`, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
      dispatcher: this.http,
    });
    const text = await response.text();
    if (response.status === 500) this.internalErrors.push(`${method} ${path}: ${text}`);
    if (options.rawBody !== undefined) this.sensitive.collectRaw(options.rawBody);
    else this.sensitive.collect(options.body);
    this.sensitive.check(`the response to ${method} ${path}`, text);
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: response.status, headers: response.headers as unknown as Headers, body, text };
  }

  /**
   * A fetch for clients that send their own requests (the client package): over this file's connections,
   * and held to the same checks as request(): a 500 or a sensitive value in an answer fails the file.
   */
  readonly fetch = async (request: Request): Promise<globalThis.Response> => {
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const response = await undiciFetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      body: body || undefined,
      dispatcher: this.http,
    });
    const text = await response.text();
    const where = `${request.method} ${new URL(request.url).pathname}`;
    if (response.status === 500) this.internalErrors.push(`${where}: ${text}`);
    if (body) this.sensitive.collectRaw(body);
    this.sensitive.check(`the response to ${where}`, text);
    return new globalThis.Response(text === '' ? null : text, {
      status: response.status,
      headers: [...response.headers],
    });
  };

  /** A bearer token; by default for this file's project. */
  async token(apiKey = this.apiKey, apiSecret = this.apiSecret): Promise<string> {
    const res = await this.request('POST', '/v0.13/auth/token', { body: { apiKey, apiSecret } });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
    return res.body.accessToken;
  }

  /** The issuer's current private key, to sign tokens it could have signed itself; issue a token first. */
  async signingKey(): Promise<{ kid: string; privateKey: KeyObject }> {
    const [row] = await this.running.dataSource.query(
      `SELECT kid, private_key_sealed, encryption_key_id FROM gateway.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    if (!row) throw new Error('no signing key yet: issue a token first');
    const { ring } = signingKeyEncryptionRing(loadConfig(this.settings));
    // Sealed for its row, as SigningKeys seals it: the kid is the context.
    const der = ring.open(row.encryption_key_id, row.private_key_sealed, row.kid, `token signing key ${row.kid}`);
    return { kid: row.kid, privateKey: createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }) };
  }

  async admin<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const res = await this.request<T>(method, `/v0.13/admin${path}`, { token: ADMIN_TOKEN, ...options });
    if (method === 'POST' && path === '/projects' && res.status === 201)
      this.projects.push((res.body as { id: string }).id);
    return res;
  }

  /**
   * A customer whose endorsements are active (docs/endorsements.md: custodial wallets need cryptoCustody,
   * cash, cards and USD payouts usd, other currencies' payouts basic): POST /customers asking for them,
   * then waiting for the sandbox, which approves them asynchronously. `fields` over Ada Lovelace's.
   */
  async endorsedCustomer(
    token: string,
    fields: Record<string, unknown> = {},
    endorsements: readonly EndorsementName[] = ENDORSEMENT_NAMES,
  ): Promise<any> {
    const created = await this.request('POST', '/v0.13/customers', {
      token,
      body: { type: 'individual', firstName: 'Ada', lastName: 'Lovelace', ...fields, endorsements },
    });
    if (created.status !== 201) throw new Error(`POST /customers: ${created.status} ${created.text}`);
    return eventually(async () => {
      const customer = (await this.request('GET', `/v0.13/customers/${created.body.id}`, { token })).body;
      return customer.endorsements.every((e: { status: string }) => e.status === 'active') ? customer : undefined;
    }, 30_000);
  }

  /** A new project with its own key pair and a token for it. */
  async newProject(name = 'tenant'): Promise<{ projectId: string; apiKey: string; apiSecret: string; token: string }> {
    const project = await this.admin('POST', '/projects', { body: { name } });
    const keys = await this.admin('POST', `/projects/${project.body.id}/api-keys`);
    return { projectId: project.body.id, ...keys.body, token: await this.token(keys.body.apiKey, keys.body.apiSecret) };
  }
}

/** Polls until check returns a value that is not undefined (no fixed sleeps in assertions). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function expectError(res: Response, status: number, error: string, code?: number): void {
  expect({ status: res.status, error: res.body?.error, code: res.body?.code }).toEqual({
    status,
    error,
    code: code ?? res.body?.code,
  });
  expect(typeof res.body.msg).toBe('string');
  expect(typeof res.body.cause).toBe('string');
  expect(typeof res.body.code).toBe('number');
}
