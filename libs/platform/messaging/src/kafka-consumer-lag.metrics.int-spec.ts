// A consumer group's lag on /metrics (docs/metrics.md), asked of a real Kafka protocol peer (the run's broker): the
// messages of each topic past the group's committed offsets, from the oldest message where it committed none; left
// out of a scrape when the broker does not answer.
import { Kafka, logLevel } from 'kafkajs';
import { Registry } from 'prom-client';
import { kafkaTestPrefix, removeKafkaNames } from '@mm/platform/testing';
import { KafkaConsumerLag } from './kafka-consumer-lag.metrics';
import { ensureTopics } from './kafka-topics';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);
if (brokers.length === 0)
  process.stderr.write('kafka-consumer-lag.metrics.int-spec: skipped: no Kafka broker (KAFKA_BROKERS)\n');
const itWithKafka = brokers.length > 0 ? it : it.skip;

const PREFIX = kafkaTestPrefix('lag');
afterAll(async () => {
  if (brokers.length > 0) await removeKafkaNames(brokers, PREFIX);
});

/** A fresh registry's scrape of the lag gauge, as its lines. */
async function scrape(kafka: Kafka, groupId: string, topics: string[]): Promise<string[]> {
  const registry = new Registry();
  const lag = new KafkaConsumerLag({ groupId, topics, kafka, registry });
  try {
    return (await registry.metrics()).split('\n').filter((line) => line.startsWith('mm_kafka_consumer_lag_messages{'));
  } finally {
    await lag.stop();
  }
}

itWithKafka(
  "counts the messages past the group's committed offsets, by topic",
  async () => {
    const kafka = new Kafka({ brokers, clientId: 'mm-lag', logLevel: logLevel.NOTHING });
    const [topic, other] = [`${PREFIX}.ledger.events`, `${PREFIX}.quotes.events`];
    const groupId = `${PREFIX}.readers`;
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    try {
      await ensureTopics(kafka, [topic, other], { numPartitions: 1 });
      await producer.connect();
      // On one partition each (a broker may give a topic more than asked).
      const messages = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `event ${i}`, partition: 0 }));
      await producer.send({ topic, messages: messages(5) });
      await producer.send({ topic: other, messages: messages(1) });

      // Nothing committed: every message is behind.
      expect(await scrape(kafka, groupId, [topic, other])).toEqual([
        `mm_kafka_consumer_lag_messages{group="${groupId}",topic="${topic}"} 5`,
        `mm_kafka_consumer_lag_messages{group="${groupId}",topic="${other}"} 1`,
      ]);
      // The group read two of the first topic's and all of the other's: a member of it commits those offsets.
      const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
      try {
        await consumer.connect();
        const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
        await consumer.subscribe({ topics: [topic, other], fromBeginning: true });
        await consumer.run({ autoCommit: false, eachMessage: async () => undefined });
        await joined;
        // Until the broker holds both (a commit made while the member's first fetches settle may be overtaken).
        const wanted = JSON.stringify([
          [topic, '2'],
          [other, '1'],
        ]);
        for (let attempt = 1; ; attempt++) {
          await consumer.commitOffsets([
            { topic, partition: 0, offset: '2' },
            { topic: other, partition: 0, offset: '1' },
          ]);
          const held = await admin.fetchOffsets({ groupId, topics: [topic, other] });
          const offsets = held.map((t) => [t.topic, t.partitions.find((p) => p.partition === 0)?.offset]);
          if (JSON.stringify(offsets) === wanted) break;
          if (attempt >= 50) throw new Error(`the broker holds ${JSON.stringify(offsets)}`);
        }
      } finally {
        await consumer.disconnect();
      }
      expect(await scrape(kafka, groupId, [topic, other])).toEqual([
        `mm_kafka_consumer_lag_messages{group="${groupId}",topic="${topic}"} 3`,
        `mm_kafka_consumer_lag_messages{group="${groupId}",topic="${other}"} 0`,
      ]);
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
  },
  60_000,
);

it('leaves the figure out when the broker does not answer', async () => {
  // A port nothing listens on: the admin client's connection is refused.
  const kafka = new Kafka({ brokers: ['127.0.0.1:1'], clientId: 'mm-lag-down', logLevel: logLevel.NOTHING });
  const started = Date.now();
  expect(await scrape(kafka, 'mm.readers', ['mm.ledger.events'])).toEqual([]);
  expect(Date.now() - started).toBeLessThan(10_000);
});
