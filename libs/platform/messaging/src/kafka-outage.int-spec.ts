// A relay while its Kafka broker is away (issue 42 item 10, ADR 0060), on a
// broker of this file's own that it takes away (the project's mock behind the
// stock-broker proxy; the run's broker serves the other files meanwhile). Its
// idempotent producer keeps kafkajs' unlimited retries, so a send waits on the
// broker; a relay that stops meanwhile gives the send up after a moment, and
// the event goes out again from its checkpoint, whoever relays next.
import { Kafka, logLevel, type logCreator } from 'kafkajs';
import { createEventsTable, EventStore } from '@mm/platform/event-store';
import { createTestDatabase, OutageBroker, outageBrokerUnavailable, type TestDatabase } from '@mm/platform/testing';
import { KafkaRelay } from './kafka-relay';
import { eventually } from './transport.contract';

const unavailable = outageBrokerUnavailable();
if (unavailable) process.stderr.write(`kafka-outage.int-spec: skipped: no broker to take away (${unavailable})\n`);
const itWithBroker = unavailable ? it.skip : it;
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe(
  unavailable
    ? 'a Kafka relay whose broker goes away, skipped: no broker to take away'
    : 'a Kafka relay whose broker goes away',
  () => {
    let broker: OutageBroker;
    let db: TestDatabase;

    beforeAll(async () => {
      if (unavailable) return;
      broker = await OutageBroker.start();
      db = await createTestDatabase();
    }, 60_000);
    afterAll(async () => {
      await db?.close();
      await broker?.stop();
    });

    itWithBroker(
      'stops within seconds with a send under way, and its successor sends that event once the broker is back',
      async () => {
        const runner = db.dataSource.createQueryRunner();
        await createEventsTable(runner, 'outage_log');
        await runner.release();
        const store = new EventStore(db.uow, 'outage_log');
        // A connection refused, as the client logs it: the send is under way, waiting on the broker.
        let refused!: () => void;
        const sendRefused = new Promise<void>((resolve) => (refused = resolve));
        const watching: logCreator = () => (entry) => {
          if (/ECONNREFUSED/.test(entry.log.message)) refused();
        };
        const reported: string[] = [];
        const reachability = {
          unreachable: (reason: string) => void reported.push(`unreachable: ${reason}`),
          reached: () => undefined,
          ongoing: () => false,
        };
        const relay = new KafkaRelay({
          uow: db.uow,
          source: store,
          kafka: new Kafka({
            brokers: [broker.address],
            clientId: 'mm-outage',
            logLevel: logLevel.ERROR,
            logCreator: watching,
          }),
          topicPrefix: 'mm-outage',
          idlePollMs: 100,
          logger: quiet,
          reachability,
        });
        await relay.start();
        const [first] = await db.uow.run(() => store.append('s-1', 'no_stream', [{ type: 'outage.before', data: {} }]));
        const relayed = () =>
          db.uow.query<{ global_position: string }>(
            `SELECT global_position FROM platform.subscription_checkpoints WHERE subscription = $1`,
            [relay.name],
          );
        await eventually(async () => expect((await relayed())[0]?.global_position).toBe(first.globalPosition));

        await broker.suspend();
        const [during] = await db.uow.run(() => store.append('s-1', 1, [{ type: 'outage.during', data: {} }]));
        await sendRefused;
        const stopping = Date.now();
        await relay.stop();
        // Without giving the send up, the stop waits until the client stops reconnecting (15 s and more).
        expect(Date.now() - stopping).toBeLessThan(8_000);
        expect((await relayed())[0].global_position).toBe(first.globalPosition);

        // Back: a new relay sends the event from the checkpoint, and the broker answers it.
        await broker.resume();
        const next = new KafkaRelay({
          uow: db.uow,
          source: store,
          kafka: new Kafka({ brokers: [broker.address], clientId: 'mm-outage', logLevel: logLevel.NOTHING }),
          topicPrefix: 'mm-outage',
          idlePollMs: 100,
          logger: quiet,
        });
        await next.start();
        try {
          await eventually(
            async () => expect((await relayed())[0].global_position).toBe(during.globalPosition),
            30_000,
          );
        } finally {
          await next.stop();
        }
        // Given up by a stopping relay, the send was no error worth a line, and no report of the broker either.
        expect(reported).toEqual([]);
      },
      90_000,
    );
  },
);
