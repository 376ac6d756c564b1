// The Kafka adapters' own logic against a real PostgreSQL, with no broker: the
// relay with a recording producer, and KafkaEventServer fed the messages the
// relay would publish. kafka.transport.int-spec.ts runs them on a real broker.
import { Controller, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import type { ITopicConfig, Kafka, Producer, ProducerConfig, ProducerRecord } from 'kafkajs';
import { UnitOfWork } from '@mm/platform/database';
import { createEventsTable, EventStore, type RecordedEvent } from '@mm/platform/event-store';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { KafkaEventServer } from './kafka-event.server';
import { toKafkaMessage } from './kafka-message';
import { KafkaRelay } from './kafka-relay';
import type { TopicsClient } from './kafka-topics';
import { eventually } from './transport.contract';

const ids = (events: RecordedEvent[]) => events.map((e) => e.eventId);
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** Stands in for a kafkajs producer: records every send attempt, and can refuse some; and for the admin client that creates its topic. */
class RecordingProducer {
  config?: ProducerConfig;
  readonly attempts: Array<{ record: ProducerRecord; failed: boolean }> = [];
  /** The topics the relay asked to create, before its producer connected or after. */
  readonly created: Array<ITopicConfig & { beforeConnect: boolean }> = [];
  private connected = false;
  refuse: (record: ProducerRecord) => boolean = () => false;

  readonly kafka: Pick<Kafka, 'producer'> & TopicsClient = {
    producer: (config?: ProducerConfig) => {
      this.config = config;
      return this as unknown as Producer;
    },
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      listTopics: async () => this.created.map((t) => t.topic),
      createTopics: async ({ topics }) => {
        this.created.push(...topics.map((topic) => ({ ...topic, beforeConnect: !this.connected })));
        return true;
      },
      fetchTopicMetadata: async (options?: { topics: string[] }) => ({
        topics: (options?.topics ?? []).map((name) => ({
          name,
          partitions: [{ partitionErrorCode: 0, partitionId: 0, leader: 1, replicas: [1], isr: [1] }],
        })),
      }),
    }),
    consumer: () => {
      throw new Error('a broker with CreateTopics needs no consumer to create topics');
    },
  };

  async connect(): Promise<void> {
    this.connected = true;
  }
  async disconnect(): Promise<void> {}

  async send(record: ProducerRecord): Promise<[]> {
    const failed = this.refuse(record);
    this.attempts.push({ record, failed });
    if (failed) throw new Error('broker unavailable');
    return [];
  }

  /** Event ids of the messages the broker accepted, in order. */
  published(): string[] {
    return this.attempts
      .filter((a) => !a.failed)
      .flatMap((a) => a.record.messages.map((m) => String(m.headers?.eventId)));
  }
}

// One database for the file (see pg-log.transport.int-spec.ts).
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe('KafkaRelay', () => {
  let store: EventStore;
  let relay: KafkaRelay | undefined;

  beforeAll(async () => {
    const runner = db.dataSource.createQueryRunner();
    await createEventsTable(runner, 'relay_log');
    await runner.release();
    store = new EventStore(db.uow, 'relay_log');
  });
  afterEach(async () => {
    await relay?.stop();
    await db.uow.query(`DELETE FROM platform.subscription_checkpoints`);
  });

  const readAll = async () => store.readAll(undefined, 10_000);

  it("publishes committed events in log order with an idempotent producer: topic = the service's, key = stream, type in a header, value = the event", async () => {
    const producer = new RecordingProducer();
    relay = new KafkaRelay({ uow: db.uow, source: store, kafka: producer.kafka, idlePollMs: 100, logger: quiet });
    await relay.start();
    await store.append('cus_1', 'no_stream', [{ type: 'customer.created', data: { n: 1 } }]);
    await expect(
      db.uow.run(async () => {
        await store.append('cus_2', 'no_stream', [{ type: 'customer.created', data: {} }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await store.append('cus_1', 1, [{ type: 'customer.updated', data: { n: 2 } }]);
    await store.append('cus_3', 'no_stream', [{ type: 'customer.created', data: { n: 3 } }]);

    let all: RecordedEvent[] = [];
    await eventually(async () => {
      // Re-read: the log shows an event once no older transaction anywhere may still commit before it.
      all = await readAll();
      // All three committed events, not an early empty read that an empty producer would match.
      expect(all).toHaveLength(3);
      expect(producer.published()).toEqual(ids(all));
    });
    expect(producer.config).toMatchObject({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    // An idempotent producer keeps kafkajs' unlimited retries, which its guarantees need (ADR 0012).
    expect(producer.config).not.toHaveProperty('retry.retries');
    expect(new Set(producer.attempts.map((a) => a.record.topic))).toEqual(new Set(['mm.relay_log.events']));
    expect(producer.attempts.map((a) => a.record)).toEqual(
      all.map((event) => {
        const { topic, ...message } = toKafkaMessage(event);
        return { topic, acks: -1, messages: [message] };
      }),
    );
  });

  it('creates its topic before its producer connects, with the partitions and replication factor it is given, and leaves it alone once it exists', async () => {
    const producer = new RecordingProducer();
    const options = {
      uow: db.uow,
      source: store,
      kafka: producer.kafka,
      topicPrefix: 'acme',
      topic: { numPartitions: 12, replicationFactor: 3 },
      idlePollMs: 100,
      logger: quiet,
    };
    relay = new KafkaRelay(options);
    await relay.start();
    await relay.stop();
    relay = new KafkaRelay(options);
    await relay.start();
    expect(producer.created).toEqual([
      { topic: 'acme.relay_log.events', numPartitions: 12, replicationFactor: 3, beforeConnect: true },
    ]);
  });

  it('keeps its checkpoint when a send fails and sends again from there (at-least-once)', async () => {
    const producer = new RecordingProducer();
    const appended = await store.append('cus_9', 'no_stream', [
      { type: 'customer.created', data: {} },
      { type: 'customer.updated', data: { fails: 'once' } },
      { type: 'customer.updated', data: {} },
    ]);
    let refused = false;
    producer.refuse = (record) => {
      if (refused || record.messages[0].headers?.eventId !== appended[1].eventId) return false;
      return (refused = true);
    };
    const errors: string[] = [];
    const failing = new KafkaRelay({
      uow: db.uow,
      source: store,
      kafka: producer.kafka,
      idlePollMs: 100,
      logger: { ...quiet, error: (m: string) => errors.push(m) },
    });
    relay = failing;
    await failing.start();

    await eventually(async () => {
      const [checkpoint] = await db.uow.query<{ global_position: string }>(
        `SELECT global_position::text AS global_position FROM platform.subscription_checkpoints WHERE subscription = $1`,
        [failing.name],
      );
      expect(checkpoint?.global_position).toBe(appended[2].globalPosition);
    });
    const all = ids(await readAll());
    const refusedAt = all.indexOf(appended[1].eventId);
    const failure = producer.attempts.findIndex((a) => a.failed);
    const sent = (attempts: RecordingProducer['attempts']) =>
      attempts.map((a) => String(a.record.messages[0].headers?.eventId));
    const beforeFailure = sent(producer.attempts.slice(0, failure));
    const afterFailure = sent(producer.attempts.slice(failure + 1));
    // Up to the failure: the log in order. After it: the log again in order, from the
    // checkpoint, which had not moved past the refused event.
    expect(beforeFailure).toEqual(all.slice(0, refusedAt));
    const resumedAt = all.indexOf(afterFailure[0]);
    expect(resumedAt).toBeGreaterThanOrEqual(0);
    expect(resumedAt).toBeLessThanOrEqual(refusedAt);
    expect(afterFailure).toEqual(all.slice(resumedAt));
    expect(errors).toEqual([expect.stringContaining(`customer.updated ${appended[1].eventId}: publishing failed`)]);
  });
});

describe('KafkaEventServer without a broker', () => {
  const effects: string[] = [];
  let failNext = false;
  let app: INestMicroservice;
  let server: KafkaEventServer;

  @Controller()
  class CustomerProjection {
    constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

    @EventPattern('customer.created')
    async created(@Payload() event: RecordedEvent): Promise<void> {
      await this.uow.query(`INSERT INTO kafka_effects (event_id) VALUES ($1)`, [event.eventId]);
      effects.push(event.eventId);
      if (failNext) {
        failNext = false;
        throw new Error('fails after its write');
      }
    }
  }

  /** What kafkajs hands eachMessage for an event the relay published. */
  function delivery(event: RecordedEvent, offset = '0'): Parameters<KafkaEventServer['handleMessage']>[0] {
    const { topic, key, value, headers } = toKafkaMessage(event);
    return {
      topic,
      partition: 0,
      message: {
        key: Buffer.from(key),
        value: Buffer.from(value),
        headers: { eventId: Buffer.from(headers.eventId), type: Buffer.from(headers.type) },
        offset,
        timestamp: '0',
        attributes: 0,
      },
      heartbeat: async () => undefined,
      pause: () => () => undefined,
    };
  }

  const event = (eventId: string): RecordedEvent => ({
    eventId,
    source: 'accounts',
    globalPosition: '1',
    transactionId: '1',
    streamId: `cus_${eventId}`,
    streamVersion: 1,
    type: 'customer.created',
    data: {},
    metadata: {},
    recordedAt: new Date(0).toISOString(),
  });

  const committed = async (eventId: string) => {
    const [row] = await db.uow.query<{ effects: number; processed: number }>(
      `SELECT (SELECT count(*)::int FROM kafka_effects WHERE event_id = $1) AS effects,
              (SELECT count(*)::int FROM platform.processed_events WHERE consumer_group = 'customers-view' AND event_id = $1) AS processed`,
      [eventId],
    );
    return row;
  };

  beforeAll(async () => {
    await db.uow.query(`CREATE TABLE kafka_effects (event_id text NOT NULL)`);
    @Module({ controllers: [CustomerProjection], providers: [{ provide: UnitOfWork, useValue: db.uow }] })
    class CustomersModule {}
    server = new KafkaEventServer({
      uow: db.uow,
      group: 'customers-view',
      sources: ['accounts'],
      brokers: ['127.0.0.1:9'],
      clientId: 'customers',
    });
    app = await NestFactory.createMicroservice<MicroserviceOptions>(CustomersModule, {
      strategy: server,
      logger: false,
      abortOnError: false,
    });
    await app.init(); // registers the handlers; listen() would connect to the broker
  });
  afterAll(() => app.close());

  it('gives a redelivered message no second effect', async () => {
    await server.handleMessage(delivery(event('evt_a')));
    await server.handleMessage(delivery(event('evt_a'), '1'));
    expect(effects.filter((id) => id === 'evt_a')).toHaveLength(1);
    expect(await committed('evt_a')).toEqual({ effects: 1, processed: 1 });
  });

  it('leaves no trace of a failed attempt, so the redelivery runs the handler again', async () => {
    failNext = true;
    await expect(server.handleMessage(delivery(event('evt_b')))).rejects.toBeDefined();
    expect(await committed('evt_b')).toEqual({ effects: 0, processed: 0 });
    await server.handleMessage(delivery(event('evt_b')));
    expect(await committed('evt_b')).toEqual({ effects: 1, processed: 1 });
  });

  it('dispatches by the type header and passes over the types no handler of the group wants', async () => {
    const updated = { ...event('evt_d'), type: 'customer.updated' };
    await expect(server.handleMessage(delivery(updated))).resolves.toBeUndefined();
    expect(await committed('evt_d')).toEqual({ effects: 0, processed: 0 });
    expect(server.topics).toEqual(['mm.accounts.events']);
  });

  it('skips a message that is not a recorded event instead of blocking its partition', async () => {
    const message = delivery(event('evt_c'));
    message.message.value = Buffer.from('{"hello":"world"}');
    await expect(server.handleMessage(message)).resolves.toBeUndefined();
    expect(effects).not.toContain('evt_c');
  });
});
