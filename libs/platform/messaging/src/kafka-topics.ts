// Distributed mode creates its own topics (ADR 0012): no client of the
// platform lets the broker create a topic on a metadata request
// (allowAutoTopicCreation: false; many clusters refuse it anyway), so each
// relay creates the topic it publishes to, and each consumer the topics it
// subscribes to, with CreateTopics before its first send or subscription. A
// topic that exists already is left as it is. A broker without CreateTopics
// (before Kafka 0.10.1, and librdkafka's mock cluster) creates a topic when a
// client that allows it asks for the topic's metadata: that is asked once.
// Either way it waits until every partition has a leader.
import { Logger, type LoggerService } from '@nestjs/common';
import type { Admin, Consumer, ConsumerConfig } from 'kafkajs';

/** What topic creation needs of a kafkajs client (Nest's server holds one typed with its own copy of kafkajs' types). */
export interface TopicsClient {
  admin(): Pick<Admin, 'connect' | 'disconnect' | 'listTopics' | 'createTopics' | 'fetchTopicMetadata'>;
  consumer(config: ConsumerConfig): Pick<Consumer, 'connect' | 'disconnect' | 'subscribe'>;
}

/**
 * How a topic is created; unset, the broker's defaults. Its partitions must not change once it
 * carries events: a stream's key would move to another partition, and its order with it.
 */
export interface KafkaTopicSettings {
  /** Partitions of a topic created here; -1: the broker's num.partitions. */
  numPartitions?: number;
  /** Replicas of each partition; -1: the broker's default.replication.factor (Kafka 2.4 or later). */
  replicationFactor?: number;
}

export interface EnsureTopicsOptions extends KafkaTopicSettings {
  logger?: LoggerService;
  /** How long to wait for the topics' leaders; 30 s by default. */
  timeoutMs?: number;
}

const AUTHORIZATION_FAILURES = new Set(['TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);

/** Creates the topics that do not exist yet and resolves once each has a leader for every partition. */
export async function ensureTopics(
  kafka: TopicsClient,
  topics: readonly string[],
  options: EnsureTopicsOptions = {},
): Promise<void> {
  if (topics.length === 0) return;
  const logger = options.logger ?? new Logger('KafkaTopics');
  const numPartitions = options.numPartitions ?? -1;
  const replicationFactor = options.replicationFactor ?? -1;
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Only the missing ones: kafkajs logs a CreateTopics answer of TOPIC_ALREADY_EXISTS as an error.
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((topic) => !existing.has(topic));
    if (missing.length > 0) await createTopics(kafka, admin, missing, { numPartitions, replicationFactor, logger });
    await waitForLeaders(admin, topics, options.timeoutMs ?? 30_000);
  } finally {
    await admin.disconnect();
  }
}

async function createTopics(
  kafka: TopicsClient,
  admin: ReturnType<TopicsClient['admin']>,
  topics: readonly string[],
  {
    numPartitions,
    replicationFactor,
    logger,
  }: { numPartitions: number; replicationFactor: number; logger: LoggerService },
): Promise<void> {
  try {
    // Another service may create one of them at the same moment: kafkajs takes TOPIC_ALREADY_EXISTS as done.
    await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions, replicationFactor })) });
  } catch (error) {
    const failures = topicErrors(error);
    if ((error as Error).name === 'KafkaJSServerDoesNotSupportApiKey') {
      logger.log(
        `the Kafka broker has no CreateTopics: ${topics.join(', ')} are created by asking for their metadata with auto-creation allowed`,
      );
      await createByMetadata(kafka, topics);
    } else if (failures.length > 0 && failures.every((type) => AUTHORIZATION_FAILURES.has(type))) {
      // Not allowed to create topics: an operator must have, and waiting for their leaders says if not.
      logger.log(`not allowed to create Kafka topics (${failures[0]}): ${topics.join(', ')} must exist`);
    } else {
      throw new Error(
        `creating the Kafka topics ${topics.join(', ')} (${numPartitions} partitions, replication factor ${replicationFactor}; -1 is the broker's default) failed: ${describe(error)}`,
        { cause: error },
      );
    }
  }
}

/** A consumer's subscription asks for its topics' metadata; it never joins a group, so the group id is never used. */
async function createByMetadata(kafka: TopicsClient, topics: readonly string[]): Promise<void> {
  const probe = kafka.consumer({ groupId: 'mm-topic-creation', allowAutoTopicCreation: true });
  await probe.connect();
  try {
    await probe.subscribe({ topics: [...topics] });
  } finally {
    await probe.disconnect();
  }
}

async function waitForLeaders(
  admin: ReturnType<TopicsClient['admin']>,
  topics: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let waitingFor: string;
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics: [...topics] });
      const leaderless = topics.filter((topic) => {
        const partitions = found.find((t) => t.name === topic)?.partitions ?? [];
        return partitions.length === 0 || partitions.some((p) => p.leader < 0);
      });
      if (leaderless.length === 0) return;
      waitingFor = `no leader yet for ${leaderless.join(', ')}`;
    } catch (error) {
      waitingFor = describe(error);
    }
    if (Date.now() > deadline) {
      const existing = new Set(await admin.listTopics().catch(() => topics));
      const missing = topics.filter((topic) => !existing.has(topic));
      if (missing.length > 0) waitingFor = `${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist`;
      throw new Error(`the Kafka topics ${topics.join(', ')} are not ready after ${timeoutMs / 1000} s: ${waitingFor}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface TopicError {
  topic?: string;
  type?: string;
}

/** The failed topics of a CreateTopics answer (kafkajs' KafkaJSAggregateError of KafkaJSCreateTopicError). */
function failedTopics(error: unknown): TopicError[] {
  const errors = (error as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) ? (errors as TopicError[]) : [];
}

function topicErrors(error: unknown): string[] {
  return failedTopics(error).map((e) => e.type ?? 'unknown');
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const failed = failedTopics(error);
  return failed.length > 0
    ? `${message}: ${failed.map((e) => `${e.topic ?? '?'} ${e.type ?? 'unknown'}`).join(', ')}`
    : message;
}
