// ensureTopics' decisions against a stand-in client: which topics it asks to
// create, and what it does with each answer a broker can give.
// kafka.transport.int-spec.ts runs it on a broker.
import type { ITopicConfig } from 'kafkajs';
import { ensureTopics, type TopicsClient } from './kafka-topics';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** A broker's answers to CreateTopics: `refuse` names the error kafkajs would throw. */
class FakeBroker {
  readonly topics = new Set<string>();
  readonly asked: ITopicConfig[][] = [];
  readonly subscribed: string[][] = [];
  readonly logged: string[] = [];
  refuse?: () => Error;

  readonly logger = { ...quiet, log: (message: string) => this.logged.push(message) };

  readonly client: TopicsClient = {
    admin: () => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      listTopics: async () => [...this.topics],
      createTopics: async ({ topics }) => {
        this.asked.push(topics);
        if (this.refuse) throw this.refuse();
        for (const { topic } of topics) this.topics.add(topic);
        return true;
      },
      fetchTopicMetadata: async (options?: { topics: string[] }) => {
        const missing = (options?.topics ?? []).find((name) => !this.topics.has(name));
        if (missing)
          throw Object.assign(new Error('This server does not host this topic-partition'), {
            type: 'UNKNOWN_TOPIC_OR_PARTITION',
          });
        return {
          topics: (options?.topics ?? []).map((name) => ({
            name,
            partitions: [{ partitionErrorCode: 0, partitionId: 0, leader: 1, replicas: [1], isr: [1] }],
          })),
        };
      },
    }),
    // A broker without CreateTopics creates a topic when a client that allows it asks for its metadata.
    consumer: (config) => ({
      connect: async () => undefined,
      disconnect: async () => undefined,
      subscribe: async (subscription) => {
        const topics = 'topics' in subscription ? (subscription.topics as string[]) : [];
        this.subscribed.push(topics);
        if (config.allowAutoTopicCreation) for (const topic of topics) this.topics.add(topic);
      },
    }),
  };
}

/** What kafkajs throws for a CreateTopics answer with errors. */
const topicErrors = (...types: string[]) =>
  Object.assign(new Error('Topic creation errors'), {
    name: 'KafkaJSAggregateError',
    errors: types.map((type) => ({ topic: 'mm.a.events', type })),
  });

describe('ensureTopics', () => {
  it('creates only the missing topics, with the partitions and replicas it is given', async () => {
    const broker = new FakeBroker();
    broker.topics.add('mm.a.events');
    await ensureTopics(broker.client, ['mm.a.events', 'mm.b.events'], {
      numPartitions: 6,
      replicationFactor: -1,
      logger: broker.logger,
    });
    expect(broker.asked).toEqual([[{ topic: 'mm.b.events', numPartitions: 6, replicationFactor: -1 }]]);
    await ensureTopics(broker.client, ['mm.a.events', 'mm.b.events'], { logger: broker.logger });
    expect(broker.asked).toHaveLength(1);
  });

  it("uses the broker's defaults when given no settings", async () => {
    const broker = new FakeBroker();
    await ensureTopics(broker.client, ['mm.a.events'], { logger: broker.logger });
    expect(broker.asked).toEqual([[{ topic: 'mm.a.events', numPartitions: -1, replicationFactor: -1 }]]);
  });

  it('asks once for the metadata with auto-creation allowed where the broker has no CreateTopics, and says so', async () => {
    const broker = new FakeBroker();
    broker.refuse = () =>
      Object.assign(new Error('The Kafka server does not support the requested API version'), {
        name: 'KafkaJSServerDoesNotSupportApiKey',
      });
    await ensureTopics(broker.client, ['mm.a.events'], { logger: broker.logger });
    expect(broker.subscribed).toEqual([['mm.a.events']]);
    expect([...broker.topics]).toEqual(['mm.a.events']);
    expect(broker.logged).toEqual([expect.stringContaining('the Kafka broker has no CreateTopics')]);
  });

  it('fails naming the topics, the settings and the broker error when the broker refuses them', async () => {
    const broker = new FakeBroker();
    broker.refuse = () => topicErrors('INVALID_REPLICATION_FACTOR');
    await expect(
      ensureTopics(broker.client, ['mm.a.events'], { numPartitions: 6, replicationFactor: 3, logger: broker.logger }),
    ).rejects.toThrow(
      /creating the Kafka topics mm\.a\.events \(6 partitions, replication factor 3.*\) failed: Topic creation errors: mm\.a\.events INVALID_REPLICATION_FACTOR/,
    );
  });

  it('uses the topics an operator made when it may not create any, and names the missing ones', async () => {
    const broker = new FakeBroker();
    broker.topics.add('mm.a.events');
    broker.refuse = () => topicErrors('TOPIC_AUTHORIZATION_FAILED');
    await ensureTopics(broker.client, ['mm.a.events'], { logger: broker.logger });
    await expect(
      ensureTopics(broker.client, ['mm.a.events', 'mm.b.events'], { logger: broker.logger, timeoutMs: 200 }),
    ).rejects.toThrow(/not ready after 0.2 s: mm\.b\.events does not exist/);
    expect(broker.logged).toEqual([
      expect.stringContaining('not allowed to create Kafka topics (TOPIC_AUTHORIZATION_FAILED)'),
    ]);
  });
});
