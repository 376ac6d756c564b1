// What every platform the e2e suite starts is configured with, whichever way it
// runs: the credentials the tests know, and distributed mode's Kafka settings.

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const BOOTSTRAP_KEY = 'sk_sdbx_e2eBootstrapKey01';
export const BOOTSTRAP_SECRET = 'e2e-bootstrap-secret-0123456789';
/** Set as a deployment would: nothing generated into the working directory, and production starts too. */
export const SIGNING_KEY_ENCRYPTION_KEYS = `e2e:${Buffer.alloc(32, 'e2e-signing-key-encryption').toString('base64')}`;

/** The variables of a platform on this database, `env` over them. */
export function platformSettings(databaseUrl: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    ...pooled(databaseUrl),
    PORT: '0',
    // Info and above, read back at stop(): no log line may carry a secret the test sent.
    MM_LOG_LEVEL: 'info',
    MM_ADMIN_TOKEN: ADMIN_TOKEN,
    MM_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
    MM_BOOTSTRAP_API_SECRET: BOOTSTRAP_SECRET,
    MM_SIGNING_KEY_ENCRYPTION_KEYS: SIGNING_KEY_ENCRYPTION_KEYS,
    ...env,
  };
}

/**
 * In the e2e-pgbouncer project (tools/jest/pgbouncer-mode.js): the database through the run's PgBouncer in
 * transaction pooling, and PostgreSQL itself for what needs a session (docs/kubernetes.md, PgBouncer).
 */
function pooled(databaseUrl: string): Record<string, string> {
  const pgBouncer = process.env.MM_E2E_POOLER === 'pgbouncer' ? process.env.MM_TEST_PGBOUNCER : undefined;
  if (!pgBouncer) return {};
  const url = new URL(databaseUrl);
  url.host = pgBouncer;
  return { DATABASE_URL: url.toString(), MM_DATABASE_DIRECT_URL: databaseUrl, MM_DATABASE_POOL_MODE: 'transaction' };
}

let warnedNoKafka = false;

/** KAFKA_BROKERS and a topic prefix per database; none (the PostgreSQL log transport) without a broker. */
export function distributedKafka(databaseUrl: string): Record<string, string> {
  const brokers = process.env.KAFKA_BROKERS;
  if (!brokers) {
    if (!warnedNoKafka)
      process.stderr.write(
        'e2e-distributed: no Kafka broker (KAFKA_BROKERS, tools/kafka-mock): events travel on the PostgreSQL log transport\n',
      );
    warnedNoKafka = true;
    return {};
  }
  // Kafka's least session timeout, which any broker accepts: a stopped platform's consumers leave their groups at once, so its successor does not wait out a session.
  // A fetch waits a second rather than the platform's 200 ms: the stock-broker proxy answers a waiting fetch as soon
  // as events arrive, as a broker does, so the longer wait costs no event any time, and an idle platform's consumers
  // ask five times less often (a run keeps several platforms idle between requests, on two cores).
  return {
    KAFKA_BROKERS: brokers,
    MM_KAFKA_TOPIC_PREFIX: `mm-${new URL(databaseUrl).pathname.slice(1)}`,
    MM_KAFKA_SESSION_TIMEOUT_MS: '6000',
    MM_KAFKA_MAX_WAIT_MS: '1000',
  };
}
