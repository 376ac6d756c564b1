// The transport contract on a real Kafka: the relay publishes the log, and
// KafkaEventServer consumes it. Needs KAFKA_BROKERS=host:port[,host:port].
import { Kafka, logLevel } from 'kafkajs';
import { createEventsTable, EventStore } from '@mm/platform/event-store';
import { createTestDatabase } from '@mm/platform/testing';
import { KafkaEventServer } from './kafka-event.server';
import { KafkaRelay } from './kafka-relay';
import { CONTRACT_EVENT_TYPES, transportContract } from './transport.contract';

const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean);
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

if (brokers.length === 0) {
  process.stderr.write('kafka.transport.int-spec: skipped: no Kafka broker (set KAFKA_BROKERS=host:port to run the contract on Kafka)\n');
}
const itWithKafka = brokers.length > 0 ? it : it.skip;

transportContract(brokers.length > 0 ? 'Kafka (relay + KafkaEventServer)' : 'Kafka, skipped: no Kafka broker', async () => {
  const db = await createTestDatabase();
  const runner = db.dataSource.createQueryRunner();
  await createEventsTable(runner, 'contract_kafka');
  await runner.release();
  const store = new EventStore(db.uow, 'contract_kafka');
  const kafka = new Kafka({ brokers, clientId: 'mm-contract', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Several partitions, so per-stream order rests on the stream key, not on a single partition.
    await admin.createTopics({ topics: CONTRACT_EVENT_TYPES.map((topic) => ({ topic, numPartitions: 3 })), waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  const relay = new KafkaRelay({ uow: db.uow, source: store, kafka, idlePollMs: 100, logger: quiet });
  await relay.start();
  return {
    uow: db.uow,
    append: (streamId, events) => db.uow.run(() => store.append(streamId, 'any', events)),
    createServer: (group) =>
      new KafkaEventServer({
        uow: db.uow,
        group,
        brokers,
        clientId: 'mm-contract',
        kafka: { client: { logLevel: logLevel.NOTHING }, consumer: { sessionTimeout: 10_000, rebalanceTimeout: 10_000 } },
      }),
    close: async () => {
      await relay.stop();
      await db.close();
    },
  };
}, itWithKafka);
