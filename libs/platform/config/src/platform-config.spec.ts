import { ConfigError, loadConfig } from './platform-config';

describe('loadConfig', () => {
  it('applies defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.MM_ENVIRONMENT).toBe('sandbox');
    expect(config.MM_DATA_DIR).toBe('./.data');
    expect(config.keyMode).toBe('sdbx');
  });

  it('names each bad variable', () => {
    expect(() => loadConfig({ PORT: 'abc', MM_ENVIRONMENT: 'staging' })).toThrow(
      /PORT[\s\S]*MM_ENVIRONMENT|MM_ENVIRONMENT[\s\S]*PORT/,
    );
  });

  it('refuses a short secret hash key and keeps a good one', () => {
    expect(() => loadConfig({ MM_SECRET_HASH_KEY: 'short' })).toThrow(/MM_SECRET_HASH_KEY/);
    expect(loadConfig({ MM_SECRET_HASH_KEY: 'k'.repeat(32) }).MM_SECRET_HASH_KEY).toBe('k'.repeat(32));
  });

  it('takes transaction pooling (PgBouncer) only with the pooler and PostgreSQL itself both named', () => {
    const pooler = 'postgres://mm@pgbouncer:6432/money_movement';
    const direct = 'postgres://mm@postgres:5432/money_movement';
    expect(loadConfig({}).MM_DATABASE_POOL_MODE).toBe('session');
    const config = loadConfig({
      DATABASE_URL: pooler,
      MM_DATABASE_POOL_MODE: 'transaction',
      MM_DATABASE_DIRECT_URL: direct,
    });
    expect([config.MM_DATABASE_POOL_MODE, config.MM_DATABASE_DIRECT_URL]).toEqual(['transaction', direct]);
    expect(() => loadConfig({ DATABASE_URL: pooler, MM_DATABASE_POOL_MODE: 'transaction' })).toThrow(
      /MM_DATABASE_POOL_MODE=transaction needs DATABASE_URL \(the pooler\) and MM_DATABASE_DIRECT_URL/,
    );
    expect(() => loadConfig({ MM_DATABASE_POOL_MODE: 'statement' })).toThrow(/MM_DATABASE_POOL_MODE/);
    expect(() => loadConfig({ MM_DATABASE_DIRECT_URL: 'mysql://x' })).toThrow(
      /MM_DATABASE_DIRECT_URL must be a postgres/,
    );
  });

  it('takes Kafka brokers as host:port pairs and a topic prefix Kafka allows', () => {
    const config = loadConfig({
      KAFKA_BROKERS: 'kafka-0.kafka:9092, kafka-1.kafka:9092',
      MM_KAFKA_TOPIC_PREFIX: 'acme.sandbox',
      MM_KAFKA_SESSION_TIMEOUT_MS: '6000',
    });
    expect([config.KAFKA_BROKERS, config.MM_KAFKA_TOPIC_PREFIX, config.MM_KAFKA_SESSION_TIMEOUT_MS]).toEqual([
      'kafka-0.kafka:9092, kafka-1.kafka:9092',
      'acme.sandbox',
      6000,
    ]);
    expect(loadConfig({})).toMatchObject({ MM_KAFKA_TOPIC_PREFIX: 'mm', MM_KAFKA_SESSION_TIMEOUT_MS: 10_000 });
    expect(() => loadConfig({ KAFKA_BROKERS: 'kafka' })).toThrow(/KAFKA_BROKERS must be host:port/);
    expect(() => loadConfig({ KAFKA_BROKERS: 'kafka:9092,' })).toThrow(/KAFKA_BROKERS/);
    expect(() => loadConfig({ MM_KAFKA_TOPIC_PREFIX: 'mm/prod' })).toThrow(/MM_KAFKA_TOPIC_PREFIX/);
  });

  it('takes only a session timeout every stock Kafka broker accepts (6 s to 5 min: group.min/max.session.timeout.ms)', () => {
    expect(loadConfig({ MM_KAFKA_SESSION_TIMEOUT_MS: '6000' }).MM_KAFKA_SESSION_TIMEOUT_MS).toBe(6000);
    expect(loadConfig({}).MM_KAFKA_MAX_WAIT_MS).toBe(200);
    expect(loadConfig({ MM_KAFKA_MAX_WAIT_MS: '25' }).MM_KAFKA_MAX_WAIT_MS).toBe(25);
    for (const bad of ['5', '30001', '1.5', 'soon'])
      expect(() => loadConfig({ MM_KAFKA_MAX_WAIT_MS: bad })).toThrow(/MM_KAFKA_MAX_WAIT_MS/);
    expect(loadConfig({ MM_KAFKA_SESSION_TIMEOUT_MS: '300000' }).MM_KAFKA_SESSION_TIMEOUT_MS).toBe(300_000);
    expect(() => loadConfig({ MM_KAFKA_SESSION_TIMEOUT_MS: '3000' })).toThrow(
      /MM_KAFKA_SESSION_TIMEOUT_MS must be at least 6000/,
    );
    expect(() => loadConfig({ MM_KAFKA_SESSION_TIMEOUT_MS: '300001' })).toThrow(
      /MM_KAFKA_SESSION_TIMEOUT_MS must be at most 300000/,
    );
    expect(() => loadConfig({ MM_KAFKA_SESSION_TIMEOUT_MS: '6s' })).toThrow(/MM_KAFKA_SESSION_TIMEOUT_MS/);
  });

  it('takes how long start:distributed waits for each service to be ready, in whole seconds', () => {
    expect(loadConfig({}).MM_READY_TIMEOUT_SECS).toBe(120);
    expect(loadConfig({ MM_READY_TIMEOUT_SECS: '300' }).MM_READY_TIMEOUT_SECS).toBe(300);
    for (const bad of ['0', '-5', '2m', '1.5', '3601'])
      expect(() => loadConfig({ MM_READY_TIMEOUT_SECS: bad })).toThrow(/MM_READY_TIMEOUT_SECS/);
  });

  it('takes the partitions and replication factor of the topics it creates: -1 for the broker default, else at least 1', () => {
    expect(loadConfig({})).toMatchObject({ MM_KAFKA_TOPIC_PARTITIONS: 6, MM_KAFKA_TOPIC_REPLICATION_FACTOR: -1 });
    expect(loadConfig({ MM_KAFKA_TOPIC_PARTITIONS: '-1', MM_KAFKA_TOPIC_REPLICATION_FACTOR: '3' })).toMatchObject({
      MM_KAFKA_TOPIC_PARTITIONS: -1,
      MM_KAFKA_TOPIC_REPLICATION_FACTOR: 3,
    });
    for (const bad of ['0', '-2', 'many', '1.5']) {
      expect(() => loadConfig({ MM_KAFKA_TOPIC_PARTITIONS: bad })).toThrow(/MM_KAFKA_TOPIC_PARTITIONS/);
      expect(() => loadConfig({ MM_KAFKA_TOPIC_REPLICATION_FACTOR: bad })).toThrow(/MM_KAFKA_TOPIC_REPLICATION_FACTOR/);
    }
  });

  it('requires the bootstrap key pair together', () => {
    expect(() => loadConfig({ MM_BOOTSTRAP_API_KEY: 'sk_sdbx_abcdefgh' })).toThrow(ConfigError);
  });

  it('refuses a bootstrap key of the other mode', () => {
    expect(() =>
      loadConfig({ MM_BOOTSTRAP_API_KEY: 'sk_live_abcdefgh', MM_BOOTSTRAP_API_SECRET: 'x'.repeat(20) }),
    ).toThrow(/sk_sdbx_/);
  });

  it('refuses a header timeout beyond the request timeout, and a zero connection cap', () => {
    expect(() => loadConfig({ MM_HTTP_HEADERS_TIMEOUT_MS: '40000', MM_HTTP_REQUEST_TIMEOUT_MS: '30000' })).toThrow(
      /MM_HTTP_HEADERS_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ MM_HTTP_MAX_CONNECTIONS_PER_CLIENT: '0' })).toThrow(/MM_HTTP_MAX_CONNECTIONS_PER_CLIENT/);
    expect(loadConfig({ MM_HTTP_IDLE_TIMEOUT_MS: '5000' }).MM_HTTP_IDLE_TIMEOUT_MS).toBe(5000);
  });

  it('takes HOST as an IP address or a host name, and refuses anything else', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'api.internal'])
      expect(loadConfig({ HOST: host }).HOST).toBe(host);
    for (const host of ['999.1.1.1', 'http://x', 'a b', '-x'])
      expect(() => loadConfig({ HOST: host })).toThrow(/HOST must be an IP address or a host name/);
    expect(loadConfig({}).HOST).toBeUndefined();
  });

  it('takes the chain sweep threshold as a positive USDC amount of at most six places, 100 unless set', () => {
    expect(loadConfig({}).MM_CHAIN_SWEEP_THRESHOLD).toBe('100');
    for (const amount of ['0.5', '250', '1000000.000001'])
      expect(loadConfig({ MM_CHAIN_SWEEP_THRESHOLD: amount }).MM_CHAIN_SWEEP_THRESHOLD).toBe(amount);
    for (const amount of ['0', '0.000', '-5', '1.1234567', 'abc', '1e3'])
      expect(() => loadConfig({ MM_CHAIN_SWEEP_THRESHOLD: amount })).toThrow(
        /MM_CHAIN_SWEEP_THRESHOLD must be a positive/,
      );
  });
});
