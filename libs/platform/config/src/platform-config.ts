// Configuration is read once, validated, and injected (STYLE: config is
// validated at start-up). A missing or bad variable stops the process with a
// message that names it.
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  NotEquals,
  ValidateBy,
  validateSync,
} from 'class-validator';
import { isIP } from 'node:net';
import { createHmac } from 'node:crypto';
import { validateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { readChainSettings, type ChainSettingsByNetwork } from './chain-settings';
import { KeyRing, REQUIRED, SIGNING_KEY_ENCRYPTION_KEYS } from './key-ring';
import { providersOnSimulators } from './provider-bindings';

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
/** An IP address or a host name; a dotted quad must be a real IPv4 address, not pass as a name. */
const isListenHost = (value: unknown) =>
  typeof value === 'string' &&
  (/^[\d.]+$/.test(value) ? isIP(value) === 4 : isIP(value) !== 0 || HOST_NAME.test(value));

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));

const PARTITIONS = "MM_KAFKA_TOPIC_PARTITIONS must be -1 (the broker's default) or 1 to 10000";
const REPLICATION = "MM_KAFKA_TOPIC_REPLICATION_FACTOR must be -1 (the broker's default) or 1 to 32767";

export class PlatformConfig {
  /** HTTP port; 0 picks a free port (tests). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /** Listening address; unset: loopback on the embedded database, every interface with DATABASE_URL. */
  @IsOptional()
  @ValidateBy({
    name: 'isListenHost',
    validator: {
      validate: isListenHost,
      defaultMessage: () => 'HOST must be an IP address or a host name, such as 127.0.0.1, 0.0.0.0 or ::',
    },
  })
  HOST?: string;

  /** External PostgreSQL; when unset, platform mode starts an embedded one under MM_DATA_DIR. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  /**
   * `transaction` when DATABASE_URL is a pooler in transaction mode (PgBouncer): no named prepared statements,
   * and MM_DATABASE_DIRECT_URL for what needs a session (LISTEN, the migrations' lock).
   */
  @IsIn(['session', 'transaction'])
  MM_DATABASE_POOL_MODE: 'session' | 'transaction' = 'session';

  /** PostgreSQL itself, past the pooler: required with MM_DATABASE_POOL_MODE=transaction. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'MM_DATABASE_DIRECT_URL must be a postgres:// URL' })
  MM_DATABASE_DIRECT_URL?: string;

  @IsString()
  MM_DATA_DIR = './.data';

  @IsIn(['sandbox', 'production'])
  MM_ENVIRONMENT: 'sandbox' | 'production' = 'sandbox';

  /** Operator credential for /v0.13/admin/* routes. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'MM_ADMIN_TOKEN must be at least 16 characters' })
  MM_ADMIN_TOKEN?: string;

  /**
   * The static admin token is break-glass once operators sign in through SSO: production refuses it unless
   * this is true (docs/operators.md).
   */
  @IsIn(['true', 'false'])
  MM_ADMIN_TOKEN_IN_PRODUCTION: 'true' | 'false' = 'false';

  /** The OpenID provider operators sign in with (its issuer identifier); unset: no operator but the static token. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/\S*)?$/, { message: 'MM_OIDC_ISSUER must be an http(s) URL' })
  MM_OIDC_ISSUER?: string;

  /** This platform's client at the OpenID provider: the access tokens it accepts were issued to it. */
  @IsOptional()
  @IsString()
  MM_OIDC_CLIENT_ID?: string;

  /** The client's secret, for the dashboard's sign-in (the authorization code exchange). */
  @IsOptional()
  @IsString()
  MM_OIDC_CLIENT_SECRET?: string;

  /** The claim of an operator's token that carries their roles: a name, or a dotted path (realm_access.roles). */
  @Matches(/^[A-Za-z_][\w:-]*(\.[A-Za-z_][\w:-]*)*$/, {
    message: 'MM_OIDC_ROLES_CLAIM must be a claim name or a dotted path of claim names',
  })
  MM_OIDC_ROLES_CLAIM = 'roles';

  @IsOptional()
  @Matches(/^sk_(sdbx|live)_[A-Za-z0-9]{8,}$/, {
    message: 'MM_BOOTSTRAP_API_KEY must look like sk_sdbx_<at least 8 letters or digits>',
  })
  MM_BOOTSTRAP_API_KEY?: string;

  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'MM_BOOTSTRAP_API_SECRET must be at least 16 characters' })
  MM_BOOTSTRAP_API_SECRET?: string;

  /** HMAC key for stored API secrets; when unset, one is generated per database. Keep it stable. */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'MM_SECRET_HASH_KEY must be at least 32 characters' })
  MM_SECRET_HASH_KEY?: string;

  /** Keys sealing the token signing key in the database (key-ring.ts): "<id>:<base64 32 bytes>,…", the first current. */
  @IsOptional()
  @IsString()
  MM_SIGNING_KEY_ENCRYPTION_KEYS?: string;

  /** Token endpoint: requests allowed per client IP per window. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  MM_TOKEN_RATE_LIMIT = 60;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  MM_TOKEN_RATE_WINDOW_SECONDS = 60;

  /** Trust X-Forwarded-For from a reverse proxy when computing the client IP. */
  @IsIn(['true', 'false'])
  MM_TRUST_PROXY: 'true' | 'false' = 'false';

  /** Largest accepted request body, in bytes. */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  MM_BODY_LIMIT_BYTES = 1024 * 1024;

  // Slow clients (docs/configuration.md, ADR 0009).
  /** Time to receive a request's headers, on a new connection counted from its opening; then 408. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MM_HTTP_HEADERS_TIMEOUT_MS = 10_000;

  /** Time to receive a whole request, headers and body; then 408. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MM_HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /** Silence on a connection while a request is read or answered, after which it is closed. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MM_HTTP_IDLE_TIMEOUT_MS = 30_000;

  /** Idle time allowed between requests on a kept-alive connection: above a load balancer's idle timeout. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MM_HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  MM_HTTP_MAX_CONNECTIONS = 4096;

  /** Open connections from one remote address; behind a load balancer that is the balancer's. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  MM_HTTP_MAX_CONNECTIONS_PER_CLIENT = 256;

  /** Risk provider client id returned by GET /risk/config; without it production answers 503. */
  @IsOptional()
  @IsString()
  MM_RISK_CLIENT_ID?: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  MM_LOG_LEVEL = 'info';

  /** Log lines as JSON, or human-readable (pino-pretty); auto: human-readable when standard output is a terminal. */
  @IsIn(['auto', 'json', 'pretty'])
  MM_LOG_FORMAT: 'auto' | 'json' | 'pretty' = 'auto';

  /** Per-route request counts and latencies on GET /metrics (process metrics are always there). */
  @IsIn(['true', 'false'])
  MM_HTTP_METRICS: 'true' | 'false' = 'true';

  /** The request log (docs/request-logs.md): every partner request kept with its masked bodies; false keeps none. */
  @IsIn(['true', 'false'])
  MM_REQUEST_LOG: 'true' | 'false' = 'true';

  /** Comma-separated Kafka brokers (host:port): distributed mode's event transport. */
  @IsOptional()
  @Matches(/^\s*[^\s,]+:\d{1,5}\s*(,\s*[^\s,]+:\d{1,5}\s*)*$/, {
    message: 'KAFKA_BROKERS must be host:port[,host:port...]',
  })
  KAFKA_BROKERS?: string;

  /** Distributed mode on Kafka: the prefix of the topics (`<prefix>.<service>.events`) and consumer groups, so installations can share a cluster. */
  @Matches(/^[A-Za-z0-9._-]{1,100}$/, {
    message: 'MM_KAFKA_TOPIC_PREFIX must be 1 to 100 letters, digits, dots, underscores or hyphens',
  })
  MM_KAFKA_TOPIC_PREFIX = 'mm';

  /** How long an operator's money action that waits for a second operator stays open (docs/operators.md, Four eyes). */
  @Transform(toInt)
  @IsInt({ message: 'MM_APPROVAL_EXPIRY_HOURS must be a whole number of hours' })
  @Min(1, { message: 'MM_APPROVAL_EXPIRY_HOURS must be at least 1' })
  @Max(720, { message: 'MM_APPROVAL_EXPIRY_HOURS must be at most 720 (30 days)' })
  MM_APPROVAL_EXPIRY_HOURS = 24;

  /**
   * Distributed mode on Kafka: how long a consumer may go silent before its group hands its partitions on
   * (a crashed process is noticed after this). What every stock broker accepts: group.min.session.timeout.ms
   * is 6 s by default, group.max.session.timeout.ms 5 minutes (30 since Kafka 2.3).
   */
  @Transform(toInt)
  @IsInt({ message: 'MM_KAFKA_SESSION_TIMEOUT_MS must be a whole number of milliseconds' })
  @Min(6_000, {
    message:
      "MM_KAFKA_SESSION_TIMEOUT_MS must be at least 6000: a Kafka broker's least session timeout (group.min.session.timeout.ms) is 6000 by default",
  })
  @Max(300_000, {
    message:
      'MM_KAFKA_SESSION_TIMEOUT_MS must be at most 300000, which every Kafka broker allows by default (group.max.session.timeout.ms)',
  })
  MM_KAFKA_SESSION_TIMEOUT_MS = 10_000;

  /**
   * Distributed mode on Kafka: how long a consumer's fetch waits for new events when there are none.
   * A stock broker answers as soon as events arrive, so a longer wait costs no latency, only fewer idle
   * fetches; a broker that answers an empty fetch only when the wait is over (librdkafka's mock cluster,
   * which the tests use) delays every event by up to this.
   */
  @Transform(toInt)
  @IsInt({ message: 'MM_KAFKA_MAX_WAIT_MS must be a whole number of milliseconds' })
  @Min(10, { message: 'MM_KAFKA_MAX_WAIT_MS must be at least 10' })
  @Max(30_000, { message: 'MM_KAFKA_MAX_WAIT_MS must be at most 30000' })
  MM_KAFKA_MAX_WAIT_MS = 200;

  /**
   * `npm run start:distributed`: how long each service may take to answer /readyz before start-up is
   * abandoned (every process stopped, the one not ready named). A busy machine needs more than an idle one.
   */
  @Transform(toInt)
  @IsInt({ message: 'MM_READY_TIMEOUT_SECS must be a whole number of seconds' })
  @Min(1, { message: 'MM_READY_TIMEOUT_SECS must be at least 1' })
  @Max(3600, { message: 'MM_READY_TIMEOUT_SECS must be at most 3600' })
  MM_READY_TIMEOUT_SECS = 120;

  /** Distributed mode on Kafka: the partitions of each topic a service creates; -1, the broker's num.partitions. Never change it once a topic exists. */
  @Transform(toInt)
  @IsInt({ message: 'MM_KAFKA_TOPIC_PARTITIONS must be a whole number' })
  @Min(-1, { message: PARTITIONS })
  @Max(10_000, { message: PARTITIONS })
  @NotEquals(0, { message: PARTITIONS })
  MM_KAFKA_TOPIC_PARTITIONS = 6;

  /** Distributed mode on Kafka: the replicas of each partition of a topic a service creates; -1, the broker's default.replication.factor. */
  @Transform(toInt)
  @IsInt({ message: 'MM_KAFKA_TOPIC_REPLICATION_FACTOR must be a whole number' })
  @Min(-1, { message: REPLICATION })
  @Max(32_767, { message: REPLICATION })
  @NotEquals(0, { message: REPLICATION })
  MM_KAFKA_TOPIC_REPLICATION_FACTOR = -1;

  /** Distributed mode, every service but the gateway: the gateway's address, for its public keyset (JWKS). */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_GATEWAY_URL must be an http(s) URL' })
  MM_GATEWAY_URL?: string;

  /** Distributed mode, the gateway: where the accounts service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_ACCOUNTS_URL must be an http(s) URL' })
  MM_SERVICE_ACCOUNTS_URL?: string;

  /** Distributed mode, the gateway: where the webhooks service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_WEBHOOKS_URL must be an http(s) URL' })
  MM_SERVICE_WEBHOOKS_URL?: string;

  /** Distributed mode, the gateway and the transactions service: where the quoting service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_QUOTING_URL must be an http(s) URL' })
  MM_SERVICE_QUOTING_URL?: string;

  /** Distributed mode, the gateway: where the transactions service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_TRANSACTIONS_URL must be an http(s) URL' })
  MM_SERVICE_TRANSACTIONS_URL?: string;

  /** Distributed mode, the gateway: where the cash-in service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_CASH_IN_URL must be an http(s) URL' })
  MM_SERVICE_CASH_IN_URL?: string;

  /** Distributed mode, the gateway: where the deposit-addresses service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_DEPOSIT_ADDRESSES_URL must be an http(s) URL' })
  MM_SERVICE_DEPOSIT_ADDRESSES_URL?: string;

  /** Distributed mode, the gateway: where the virtual-accounts service listens. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/.*)?$/, { message: 'MM_SERVICE_VIRTUAL_ACCOUNTS_URL must be an http(s) URL' })
  MM_SERVICE_VIRTUAL_ACCOUNTS_URL?: string;

  /**
   * Distributed mode: the credential services present on each other's internal routes (ADR 0019).
   * When unset it is derived from DATABASE_URL, which every service of one deployment shares.
   */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'MM_INTERNAL_TOKEN must be at least 32 characters' })
  MM_INTERNAL_TOKEN?: string;

  /** Quotes: how long a quote's pricing stays locked, in seconds of project time. */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(3600)
  MM_QUOTE_TTL_SECONDS = 60;

  /** Webhooks: how long delivery history (deliveries and their attempts) is kept, in days of project time. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  MM_WEBHOOK_RETENTION_DAYS = 30;

  /** The request log (docs/request-logs.md): how many days (of the wall clock) its entries are kept. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  MM_REQUEST_LOG_RETENTION_DAYS = 30;

  /** Webhooks: deliveries in flight at once, per process of the webhooks service. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MM_WEBHOOK_CONCURRENCY = 64;

  /** Distributed mode, the gateway: longest wait for a service's answer before 503. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  MM_GATEWAY_UPSTREAM_TIMEOUT_MS = 10_000;

  /**
   * Production on simulated providers (every rail but a configured chain): refused unless this is `true`, and
   * then announced in the banner and /readyz.
   */
  @IsIn(['true', 'false'])
  MM_ALLOW_SIMULATED_PROVIDERS: 'true' | 'false' = 'false';

  /**
   * The custody seed (BIP-39 words) every on-chain address is derived from. Required in production with a
   * chain configured; a sandbox without it keeps a generated one in MM_DATA_DIR (docs/chain.md).
   */
  @IsOptional()
  @ValidateBy({
    name: 'isMnemonic',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && validateMnemonic(normaliseWords(value), english),
      // Never the value: it is the key to every custodial address.
      defaultMessage: () => 'MM_CUSTODY_MNEMONIC must be 12 to 24 English BIP-39 words with a valid checksum',
    },
  })
  MM_CUSTODY_MNEMONIC?: string;

  /** How often a chain watcher asks its node for a new head when it has caught up (docs/chain.md). */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  @Max(60_000)
  MM_CHAIN_POLL_INTERVAL_MS = 1000;

  /** A payout's transfer not mined this long after it was signed is replaced at higher fees on its nonce. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  MM_CHAIN_REPLACE_AFTER_SECONDS = 180;

  /** A derived address holding at least this much USDC is swept to its network's treasury (docs/chain.md, Sweeps). */
  @Matches(/^(?!0+(\.0+)?$)\d{1,12}(\.\d{1,6})?$/, {
    message: 'MM_CHAIN_SWEEP_THRESHOLD must be a positive amount of USDC with at most 6 decimal places',
  })
  MM_CHAIN_SWEEP_THRESHOLD = '100';

  /** How often each network on a chain is reconciled with the ledger for its metric (docs/chain.md, Metrics). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  MM_CHAIN_RECONCILE_INTERVAL_SECONDS = 60;

  /** Each network's chain, from MM_CHAIN_<NETWORK>_* (chain-settings); undefined where it stays simulated. */
  declare chains: ChainSettingsByNetwork;

  /** The ports bound to a simulator (provider-bindings). */
  get simulatedProviders(): string[] {
    return providersOnSimulators(this.chains);
  }

  /** Whether the static admin token opens the operator routes here (docs/operators.md, break-glass). */
  get staticAdminTokenAccepted(): boolean {
    return Boolean(this.MM_ADMIN_TOKEN) && (this.isSandbox || this.MM_ADMIN_TOKEN_IN_PRODUCTION === 'true');
  }

  get isSandbox(): boolean {
    return this.MM_ENVIRONMENT === 'sandbox';
  }

  /** The key-prefix mode segment of this deployment: sdbx or live. */
  get keyMode(): 'sdbx' | 'live' {
    return this.isSandbox ? 'sdbx' : 'live';
  }
}

export class ConfigError extends Error {}

/** BIP-39 words as the standard reads them: lower case, single spaces. */
function normaliseWords(text: string): string {
  return text.trim().toLowerCase().split(/\s+/).join(' ');
}

/** Validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): PlatformConfig {
  const known = Object.keys(new PlatformConfig());
  const input: Record<string, string> = {};
  // Optional variables have no default, so they are not own keys of a fresh instance.
  const optional = [
    'HOST',
    'DATABASE_URL',
    'MM_DATABASE_DIRECT_URL',
    'MM_ADMIN_TOKEN',
    'MM_OIDC_ISSUER',
    'MM_OIDC_CLIENT_ID',
    'MM_OIDC_CLIENT_SECRET',
    'MM_BOOTSTRAP_API_KEY',
    'MM_BOOTSTRAP_API_SECRET',
    'MM_SECRET_HASH_KEY',
    'MM_SIGNING_KEY_ENCRYPTION_KEYS',
    'MM_RISK_CLIENT_ID',
    'KAFKA_BROKERS',
    'MM_GATEWAY_URL',
    'MM_SERVICE_ACCOUNTS_URL',
    'MM_SERVICE_WEBHOOKS_URL',
    'MM_SERVICE_QUOTING_URL',
    'MM_SERVICE_TRANSACTIONS_URL',
    'MM_SERVICE_CASH_IN_URL',
    'MM_SERVICE_DEPOSIT_ADDRESSES_URL',
    'MM_SERVICE_VIRTUAL_ACCOUNTS_URL',
    'MM_INTERNAL_TOKEN',
    'MM_CUSTODY_MNEMONIC',
  ];
  for (const key of [...known, ...optional]) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const config = plainToInstance(PlatformConfig, input);
  const errors = validateSync(config, { forbidUnknownValues: false });
  const { chains, problems } = readChainSettings(env, config.MM_ENVIRONMENT !== 'production');
  if (errors.length > 0 || problems.length > 0) {
    const lines = errors.map((e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new ConfigError(`invalid configuration:\n${[...lines, ...problems.map((p) => `  ${p}`)].join('\n')}`);
  }
  config.chains = chains;
  if (config.MM_CUSTODY_MNEMONIC) config.MM_CUSTODY_MNEMONIC = normaliseWords(config.MM_CUSTODY_MNEMONIC);
  if (Boolean(config.MM_BOOTSTRAP_API_KEY) !== Boolean(config.MM_BOOTSTRAP_API_SECRET)) {
    throw new ConfigError(
      'invalid configuration:\n  MM_BOOTSTRAP_API_KEY and MM_BOOTSTRAP_API_SECRET must be set together',
    );
  }
  if (config.MM_BOOTSTRAP_API_KEY && !config.MM_BOOTSTRAP_API_KEY.startsWith(`sk_${config.keyMode}_`)) {
    throw new ConfigError(
      `invalid configuration:\n  MM_BOOTSTRAP_API_KEY must start with sk_${config.keyMode}_ in ${config.MM_ENVIRONMENT}`,
    );
  }
  if (config.MM_OIDC_ISSUER && !config.MM_OIDC_CLIENT_ID) {
    throw new ConfigError('invalid configuration:\n  MM_OIDC_CLIENT_ID is required with MM_OIDC_ISSUER');
  }
  if (config.MM_SIGNING_KEY_ENCRYPTION_KEYS) {
    try {
      KeyRing.parse(config.MM_SIGNING_KEY_ENCRYPTION_KEYS);
    } catch (error) {
      throw new ConfigError(`invalid configuration:\n  ${(error as Error).message}`);
    }
  } else if (!config.isSandbox) {
    throw new ConfigError(`invalid configuration:\n  ${SIGNING_KEY_ENCRYPTION_KEYS} ${REQUIRED}`);
  }
  if (!config.isSandbox && !config.MM_CUSTODY_MNEMONIC && Object.values(chains).some(Boolean)) {
    throw new ConfigError(
      'invalid configuration:\n  MM_CUSTODY_MNEMONIC is required in production with a chain configured (from a secret; docs/chain.md)',
    );
  }
  if (!config.isSandbox && config.MM_ALLOW_SIMULATED_PROVIDERS !== 'true' && config.simulatedProviders.length > 0) {
    throw new ConfigError(
      'invalid configuration:\n  production binds simulated providers: ' +
        `${config.simulatedProviders.join('; ')}. Configure them, or set MM_ALLOW_SIMULATED_PROVIDERS=true to run on ` +
        'simulators knowingly (payouts then settle without leaving)',
    );
  }
  if (config.MM_DATABASE_POOL_MODE === 'transaction' && !(config.DATABASE_URL && config.MM_DATABASE_DIRECT_URL)) {
    throw new ConfigError(
      'invalid configuration:\n  MM_DATABASE_POOL_MODE=transaction needs DATABASE_URL (the pooler) and MM_DATABASE_DIRECT_URL ' +
        "(PostgreSQL itself, for LISTEN and the migrations' lock)",
    );
  }
  // Node refuses a header deadline after the request deadline.
  if (config.MM_HTTP_HEADERS_TIMEOUT_MS > config.MM_HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'invalid configuration:\n  MM_HTTP_HEADERS_TIMEOUT_MS must not exceed MM_HTTP_REQUEST_TIMEOUT_MS',
    );
  }
  return config;
}

/** The credential of internal routes between services (ADR 0019): MM_INTERNAL_TOKEN, else derived from DATABASE_URL. */
export function internalToken(config: PlatformConfig): string {
  if (config.MM_INTERNAL_TOKEN) return config.MM_INTERNAL_TOKEN;
  return createHmac('sha256', config.DATABASE_URL ?? 'embedded')
    .update('mm-internal-calls')
    .digest('base64url');
}
