// The platform as a partner meets it: started on a free port against a fresh
// clone of the migrated test database, driven over real HTTP.
import 'reflect-metadata';
import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { SERVICES, startPlatform } from '@mm/runtime/platform';
import { SERVICE_NAMES } from '@mm/contracts';
import { loadConfig, signingKeyEncryptionRing } from '@mm/platform/config';
import { cloneTemplateDatabase } from '@mm/platform/testing';
import { startDistributedProcesses, type PlatformHandle, type Queryable } from './distributed-processes';
import { SensitiveValues } from './sensitive-values';

/** platform (`npm start`'s one process) or distributed (`npm run start:distributed`'s processes): set per jest project. */
export const E2E_MODE = process.env.MM_E2E_MODE === 'distributed' ? 'distributed' : 'platform';
export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const BOOTSTRAP_KEY = 'sk_sdbx_e2eBootstrapKey01';
export const BOOTSTRAP_SECRET = 'e2e-bootstrap-secret-0123456789';
/** Set as a deployment would: nothing generated into the working directory, and production starts too. */
export const SIGNING_KEY_ENCRYPTION_KEYS = `e2e:${Buffer.alloc(32, 'e2e-signing-key-encryption').toString('base64')}`;

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

/** KAFKA_BROKERS and a topic prefix per database; none (the PostgreSQL log transport) without a broker. */
function distributedKafka(databaseUrl: string): Record<string, string> {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) {
    if (!warnedNoKafka) process.stderr.write('e2e-distributed: no Kafka broker (KAFKA_BROKERS, tools/kafka-mock): events travel on the PostgreSQL log transport\n');
    warnedNoKafka = true;
    return {};
  }
  // Kafka's least session timeout, which any broker accepts: a stopped platform's consumers leave their groups at once, so its successor does not wait out a session.
  return { KAFKA_BROKERS: brokers, MM_KAFKA_TOPIC_PREFIX: `mm-${new URL(databaseUrl).pathname.slice(1)}`, MM_KAFKA_SESSION_TIMEOUT_MS: '6000' };
}
let warnedNoKafka = false;

/** Whether every service's consumer group has committed every message of the topics it reads. */
async function consumersCaughtUp(admin: Admin, prefix: string): Promise<boolean> {
  for (const service of SERVICE_NAMES.filter((s) => s !== 'gateway')) {
    const topics = [SERVICES[service].schema, ...SERVICES[service].consumes].map((schema) => `${prefix}.${schema}.events`);
    const committed = await admin.fetchOffsets({ groupId: `${prefix}.${service}`, topics });
    for (const { topic, partitions } of committed) {
      const ends = await admin.fetchTopicOffsets(topic);
      for (const end of ends) {
        const at = partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
        if (Number(at === '-1' ? end.low : at) < Number(end.high)) return false;
      }
    }
  }
  return true;
}

export class TestPlatform {
  /** Every 500 this platform answered: a 500 is a defect whatever the test asserted. */
  private readonly internalErrors: string[] = [];

  /** Account numbers, IBANs, card numbers and tax ids sent, and where one came back. */
  private readonly sensitive = new SensitiveValues();

  private kafkaAdmin?: Promise<Admin>;

  private constructor(
    readonly running: PlatformHandle,
    private readonly settings: Record<string, string>,
    /** Everything the platform logged so far. */
    readonly logs: () => string,
  ) {}

  /** databaseUrl: start on an existing database (a restart) instead of a fresh clone. */
  static async start(env: Record<string, string> = {}, databaseUrl?: string): Promise<TestPlatform> {
    const url = databaseUrl ?? (await cloneTemplateDatabase());
    const settings = {
      DATABASE_URL: url,
      PORT: '0',
      // Info and above, read back at stop(): no log line may carry a secret the test sent.
      MM_LOG_LEVEL: 'info',
      MM_ADMIN_TOKEN: ADMIN_TOKEN,
      MM_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
      MM_BOOTSTRAP_API_SECRET: BOOTSTRAP_SECRET,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: SIGNING_KEY_ENCRYPTION_KEYS,
      ...env,
    };
    // The same suite in both modes (jest project e2e-distributed): every request through the gateway,
    // and events between the services over the run's Kafka broker (the Jest setup's mock), on topics
    // of this database's own, as a separate installation sharing the cluster would.
    if (E2E_MODE === 'distributed') {
      const distributed = { ...distributedKafka(url), ...settings };
      const handle = await startDistributedProcesses(distributed);
      return new TestPlatform(handle, distributed, () => handle.output?.() ?? '');
    }
    let logged = '';
    const logDestination = {
      write(line: string) {
        logged += line;
        // Errors still reach the test's output, as they would on stdout.
        if (/"level":(5|6)0/.test(line)) process.stderr.write(line);
      },
    };
    return new TestPlatform(await startPlatform(loadConfig(settings), { host: '127.0.0.1', logDestination }), settings, () => logged);
  }

  /** The platform's database, read as the test's own client. */
  get db(): Queryable {
    return this.running.dataSource;
  }

  /**
   * Returns once every event appended so far has reached its consumers. On the PostgreSQL log
   * transport they hear of a commit at once; on Kafka, each log's relay must have published it and
   * each consumer group committed past it.
   */
  async settle(timeoutMs = 10_000): Promise<void> {
    const prefix = this.settings.KAFKA_BROKERS ? this.settings.MM_KAFKA_TOPIC_PREFIX : undefined;
    if (!prefix) return;
    this.kafkaAdmin ??= (async () => {
      const admin = new Kafka({ clientId: 'mm-e2e-settle', brokers: this.settings.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      return admin;
    })();
    const admin = await this.kafkaAdmin;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await this.relaysCaughtUp()) && (await consumersCaughtUp(admin, prefix))) return;
      if (Date.now() > deadline) throw new Error('the events did not reach their consumers in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async relaysCaughtUp(): Promise<boolean> {
    const relayed = (schema: string) =>
      `(SELECT coalesce(max(global_position), 0) FROM ${schema}.events) <= coalesce((SELECT global_position FROM platform.subscription_checkpoints
          WHERE subscription = 'kafka-relay:${schema}' AND source = '${schema}'), 0)`;
    const [row] = await this.db.query<{ caught_up: boolean }>(`SELECT ${SERVICE_NAMES.map((s) => relayed(SERVICES[s].schema)).join(' AND ')} AS caught_up`);
    return row.caught_up;
  }

  get url(): string {
    return this.running.url;
  }

  async stop(): Promise<void> {
    await this.kafkaAdmin?.then((admin) => admin.disconnect()).catch(() => undefined);
    await this.sensitive.checkDatabase(this.db);
    await this.running.stop();
    // The start-up banner prints the bootstrap secret by design; a test's account number may be part of it.
    this.sensitive.check('the log output', this.logs().replaceAll(BOOTSTRAP_SECRET, '[bootstrap secret]'));
    if (this.internalErrors.length > 0) throw new Error(`the platform answered 500 to:\n${this.internalErrors.join('\n')}`);
    if (this.sensitive.leaks.length > 0) throw new Error(`sensitive values leaked:\n${[...new Set(this.sensitive.leaks)].join('\n')}`);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined || options.rawBody !== undefined) headers['content-type'] ??= 'application/json';
    if ((method === 'POST' || method === 'PATCH') && options.idempotencyKey !== null) {
      headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    }
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
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
    return { status: response.status, headers: response.headers, body, text };
  }

  async token(apiKey = BOOTSTRAP_KEY, apiSecret = BOOTSTRAP_SECRET): Promise<string> {
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

  admin<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    return this.request<T>(method, `/v0.13/admin${path}`, { token: ADMIN_TOKEN, ...options });
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
  expect({ status: res.status, error: res.body?.error, code: res.body?.code }).toEqual({ status, error, code: code ?? res.body?.code });
  expect(typeof res.body.msg).toBe('string');
  expect(typeof res.body.cause).toBe('string');
  expect(typeof res.body.code).toBe('number');
}
