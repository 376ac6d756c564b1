// The transport contract on a real Kafka: the relay publishes the log, and
// KafkaEventServer consumes it. KAFKA_BROKERS=host:port[,host:port] names the
// broker; the Jest global setup sets it to the project's librdkafka mock broker
// (tools/kafka-mock), behind the stock-broker proxy, when it is unset and the
// mock is built. Either way nothing here relies on the broker creating topics
// or on a session timeout a stock broker refuses, and every topic and consumer
// group is this run's own (a prefix of its own), as on a broker other runs
// share, and is deleted when the file ends (issue 42).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Controller, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  EventPattern,
  Payload,
  type KafkaContext,
  type MicroserviceOptions,
  type ReadPacket,
} from '@nestjs/microservices';
import { Kafka, logLevel } from 'kafkajs';
import { UnitOfWork } from '@mm/platform/database';
import { createEventsTable, EventStore, type RecordedEvent } from '@mm/platform/event-store';
import {
  createTestDatabase,
  kafkaNamesUnder,
  kafkaTestPrefix,
  removeKafkaNames,
  type TestDatabase,
} from '@mm/platform/testing';
import { KafkaEventServer, type KafkaEventServerOptions } from './kafka-event.server';
import { KafkaRelay } from './kafka-relay';
import { ensureTopics } from './kafka-topics';
import { eventually, transportContract } from './transport.contract';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
// Kafka's least session timeout (6 s) with a heartbeat well under a third of it, so a
// rebalance is noticed quickly, and short fetch waits: the mock broker answers an empty
// fetch only after the whole wait.
const consumerSettings: KafkaEventServerOptions['kafka'] = {
  client: { logLevel: logLevel.NOTHING },
  consumer: { sessionTimeout: 6_000, rebalanceTimeout: 6_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 },
};

if (brokers.length === 0) {
  process.stderr.write(
    'kafka.transport.int-spec: skipped: no Kafka broker (set KAFKA_BROKERS=host:port, or build tools/kafka-mock)\n',
  );
}
const itWithKafka = brokers.length > 0 ? it : it.skip;

/** A name of this run's own: on a long-lived broker, an older run's events must not reach this run's consumers. */
const ofThisRun = (name: string) =>
  `${name}_${Array.from(randomBytes(8), (b) => String.fromCharCode(97 + (b % 26))).join('')}`;
/** The prefix of every topic and consumer group of this file: what it leaves on the broker is what starts with it. */
const PREFIX = kafkaTestPrefix('contract');
// Whatever happens below: the last test checks the deletion, this makes sure of it should that test not run.
afterAll(async () => {
  if (brokers.length > 0) await removeKafkaNames(brokers, PREFIX);
});

/** A service's events table and its relay to Kafka, which creates its topic with several partitions. */
async function relayedLog(db: TestDatabase, schema: string): Promise<{ store: EventStore; relay: KafkaRelay }> {
  const runner = db.dataSource.createQueryRunner();
  await createEventsTable(runner, schema);
  await runner.release();
  const store = new EventStore(db.uow, schema);
  const kafka = new Kafka({ brokers, clientId: 'mm-contract', logLevel: logLevel.NOTHING });
  // Several partitions, so per-stream order rests on the stream key, not on a single partition
  // (the mock broker gives every topic 4, whatever is asked).
  const relay = new KafkaRelay({
    uow: db.uow,
    source: store,
    kafka,
    topicPrefix: PREFIX,
    topic: { numPartitions: 3 },
    idlePollMs: 100,
    logger: quiet,
  });
  await relay.start();
  return { store, relay };
}

transportContract(
  brokers.length > 0 ? 'Kafka (relay + KafkaEventServer)' : 'Kafka, skipped: no Kafka broker',
  async () => {
    const db = await createTestDatabase();
    const { store, relay } = await relayedLog(db, ofThisRun('contract_kafka'));
    return {
      uow: db.uow,
      append: (streamId, events) => db.uow.run(() => store.append(streamId, 'any', events)),
      createServer: (group) =>
        new KafkaEventServer({
          uow: db.uow,
          group,
          topicPrefix: PREFIX,
          sources: [store],
          brokers,
          clientId: 'mm-contract',
          kafka: consumerSettings,
        }),
      close: async () => {
        await relay.stop();
        await db.close();
      },
    };
  },
  itWithKafka,
);

describe(brokers.length > 0 ? 'Kafka: a consumer crash' : 'Kafka: a consumer crash, skipped: no Kafka broker', () => {
  const TIMEOUT = 120_000;
  let db: TestDatabase;
  let store: EventStore;
  let relay: KafkaRelay;
  let crashing: ChildProcess | undefined;

  beforeAll(async () => {
    if (brokers.length === 0) return;
    db = await createTestDatabase();
    // A topic of its own per run: on a long-lived broker, an older run's crash marker must not kill this run's consumer.
    ({ store, relay } = await relayedLog(db, ofThisRun('crash_kafka')));
    await db.uow.query(`CREATE TABLE crash_effects (server text NOT NULL, event_id text NOT NULL)`);
  }, TIMEOUT);
  afterAll(async () => {
    // A consumer that never met its crash must not outlive the test.
    if (crashing?.exitCode === null && crashing.signalCode === null) crashing.kill('SIGKILL');
    await relay?.stop();
    await db?.close();
  }, TIMEOUT);

  itWithKafka(
    'redelivers what a consumer handled but had not acknowledged when it died; the effect lands once',
    async () => {
      const group = 'crash-group';
      // A consumer in a process of its own that SIGKILLs itself right after the event marked `crash` is committed to the database.
      crashing = spawn(
        process.execPath,
        [
          '-r',
          join(__dirname, '../../../../tools/register.js'),
          join(__dirname, 'kafka-crash.fixture.ts'),
          db.url,
          brokers.join(','),
          group,
          store.schema,
          PREFIX,
        ],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      const died = new Promise<NodeJS.Signals | null>((resolve) =>
        crashing?.once('exit', (_code, signal) => resolve(signal)),
      );
      const appended = await db.uow.run(() =>
        store.append('crash-1', 'no_stream', [
          { type: 'crash.happened', data: {} },
          { type: 'crash.happened', data: { crash: true } },
          { type: 'crash.happened', data: {} },
        ]),
      );
      expect(await died).toBe('SIGKILL');
      const [, fatal] = appended;
      expect(await db.uow.query(`SELECT server, event_id FROM crash_effects`)).toContainEqual({
        server: 'crashing',
        event_id: fatal.eventId,
      });

      const delivered: string[] = [];
      class WatchedServer extends KafkaEventServer {
        override async handleEvent(topic: string, packet: ReadPacket, context: KafkaContext): Promise<void> {
          delivered.push((packet.data as RecordedEvent).eventId);
          return super.handleEvent(topic, packet, context);
        }
      }
      @Controller()
      class NextProjection {
        constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

        @EventPattern('crash.happened')
        async on(@Payload() event: RecordedEvent): Promise<void> {
          await this.uow.query(`INSERT INTO crash_effects (server, event_id) VALUES ('next', $1)`, [event.eventId]);
        }
      }
      @Module({ controllers: [NextProjection], providers: [{ provide: UnitOfWork, useValue: db.uow }] })
      class NextModule {}
      const next = await NestFactory.createMicroservice<MicroserviceOptions>(NextModule, {
        strategy: new WatchedServer({
          uow: db.uow,
          group,
          topicPrefix: PREFIX,
          sources: [store],
          brokers,
          clientId: 'mm-contract',
          kafka: consumerSettings,
        }),
        logger: false,
        abortOnError: false,
      });
      await next.listen();
      try {
        const [later] = await db.uow.run(() => store.append('crash-1', 3, [{ type: 'crash.happened', data: {} }]));
        await eventually(() => expect(delivered).toContain(later.eventId));

        // Kafka gave the next consumer the event again: its offset had not been committed.
        expect(delivered).toContain(fatal.eventId);
        // Seen by the server before its handler committed: wait for the effect itself.
        const effects = () =>
          db.uow.query<{ server: string; event_id: string }>(`SELECT server, event_id FROM crash_effects`);
        await eventually(async () =>
          expect(await effects()).toContainEqual({ server: 'next', event_id: later.eventId }),
        );
        expect((await effects()).map((r) => r.event_id).sort()).toEqual(
          [...appended, later].map((e) => e.eventId).sort(),
        );
      } finally {
        await next.close();
      }
    },
    TIMEOUT,
  );
});

describe(
  brokers.length > 0
    ? 'Kafka: a consumer kafkajs stops for good'
    : 'Kafka: a consumer kafkajs stops for good, skipped: no Kafka broker',
  () => {
    itWithKafka(
      'starts again, and the event whose handling it stopped on is handled, once',
      async () => {
        const db = await createTestDatabase();
        const { store, relay } = await relayedLog(db, ofThisRun('stopped_kafka'));
        await db.uow.query(`CREATE TABLE stopped_effects (event_id text NOT NULL)`);
        // Its handler fails past the client's retries; kafkajs' own say on restarting (restartOnFailure) is
        // no, as it is after the errors it does not restart from (a protocol error in a rebalance it does not
        // handle), which cannot be provoked at will.
        let failures = 3;
        const stops: string[] = [];
        @Controller()
        class FlakyProjection {
          constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

          @EventPattern('flaky.happened')
          async on(@Payload() event: RecordedEvent): Promise<void> {
            if (failures-- > 0) throw new Error('the database went away');
            await this.uow.query(`INSERT INTO stopped_effects (event_id) VALUES ($1)`, [event.eventId]);
          }
        }
        @Module({ controllers: [FlakyProjection], providers: [{ provide: UnitOfWork, useValue: db.uow }] })
        class FlakyModule {}
        class WatchedServer extends KafkaEventServer {
          watchStops(): void {
            this.consumer!.on(this.consumer!.events.CRASH, ({ payload }) => void stops.push(String(payload.restart)));
          }
        }
        const server = new WatchedServer({
          uow: db.uow,
          group: ofThisRun('stopped'),
          topicPrefix: PREFIX,
          sources: [store],
          brokers,
          clientId: 'mm-contract',
          kafka: {
            ...consumerSettings,
            consumer: {
              ...consumerSettings?.consumer,
              retry: { retries: 1, initialRetryTime: 100, restartOnFailure: () => Promise.resolve(false) },
            },
          },
        });
        const app = await NestFactory.createMicroservice<MicroserviceOptions>(FlakyModule, {
          strategy: server,
          logger: false,
          abortOnError: false,
        });
        await app.listen();
        server.watchStops();
        try {
          const [first] = await db.uow.run(() =>
            store.append('flaky-1', 'no_stream', [{ type: 'flaky.happened', data: {} }]),
          );
          const effects = async () =>
            (await db.uow.query<{ event_id: string }>(`SELECT event_id FROM stopped_effects`)).map((r) => r.event_id);
          await eventually(async () => expect(await effects()).toEqual([first.eventId]), 30_000);
          // kafkajs stopped it for good at least once on the way.
          expect(stops).toContain('false');
          // And it goes on consuming.
          const [second] = await db.uow.run(() => store.append('flaky-1', 1, [{ type: 'flaky.happened', data: {} }]));
          await eventually(async () => expect(await effects()).toEqual([first.eventId, second.eventId]), 30_000);
        } finally {
          await app.close();
          await relay.stop();
          await db.close();
        }
      },
      90_000,
    );
  },
);

describe(
  brokers.length > 0
    ? 'Kafka: a consumer the broker will not let join'
    : 'Kafka: a consumer the broker will not let join, skipped: no Kafka broker',
  () => {
    itWithKafka(
      'fails its start, instead of starting and never consuming (a 3 s session, which a stock broker refuses)',
      async () => {
        const db = await createTestDatabase();
        @Module({})
        class NoHandlers {}
        const app = await NestFactory.createMicroservice<MicroserviceOptions>(NoHandlers, {
          strategy: new KafkaEventServer({
            uow: db.uow,
            group: ofThisRun('refused'),
            topicPrefix: PREFIX,
            sources: [ofThisRun('refused_log')],
            brokers,
            clientId: 'mm-contract',
            kafka: {
              ...consumerSettings,
              consumer: { ...consumerSettings?.consumer, sessionTimeout: 3_000, rebalanceTimeout: 3_000 },
            },
          }),
          logger: false,
          abortOnError: false,
        });
        try {
          await expect(app.listen()).rejects.toThrow(
            /could not join it: The session timeout is not within the range allowed by the broker/,
          );
        } finally {
          await app.close();
          await db.close();
        }
      },
    );
  },
);

describe(
  brokers.length > 0
    ? 'Kafka: the topics a service creates'
    : 'Kafka: the topics a service creates, skipped: no Kafka broker',
  () => {
    itWithKafka(
      'are created where missing, ready to use, and a setting the broker refuses fails with its reason',
      async () => {
        const kafka = new Kafka({ brokers, clientId: 'mm-contract', logLevel: logLevel.NOTHING });
        const [topic, refused] = [
          `${PREFIX}.${ofThisRun('created')}.events`,
          `${PREFIX}.${ofThisRun('refused')}.events`,
        ];
        await ensureTopics(kafka, [topic], { numPartitions: 2, logger: quiet });
        // Again: it exists, and is left as it is.
        await ensureTopics(kafka, [topic], { numPartitions: 2, logger: quiet });
        const admin = kafka.admin();
        await admin.connect();
        try {
          const [{ partitions }] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
          expect(partitions.length).toBeGreaterThan(0);
          expect(partitions.every((p) => p.leader >= 0)).toBe(true);
          await expect(ensureTopics(kafka, [refused], { replicationFactor: 32_767, logger: quiet })).rejects.toThrow(
            new RegExp(`creating the Kafka topics ${refused.replaceAll('.', '\\.')} .*INVALID_REPLICATION_FACTOR`),
          );
          expect(await admin.listTopics()).not.toContain(refused);
        } finally {
          await admin.disconnect();
        }
      },
    );
  },
);

// Last in the file, once every consumer and relay above has stopped.
describe(
  brokers.length > 0
    ? 'Kafka: what the tests made on the broker'
    : 'Kafka: what the tests made on the broker, skipped: no Kafka broker',
  () => {
    itWithKafka('is deleted when they end: no topic and no consumer group of theirs is left', async () => {
      const made = await kafkaNamesUnder(brokers, PREFIX);
      // They made both: the check below would pass by finding nothing to look at otherwise.
      expect(made.topics.length).toBeGreaterThan(0);
      expect(made.groups.length).toBeGreaterThan(0);
      await removeKafkaNames(brokers, PREFIX);
      expect(await kafkaNamesUnder(brokers, PREFIX)).toEqual({ topics: [], groups: [] });
    });
  },
);
