// Distributed mode's Kafka settings (ADR 0012): the brokers, topic prefix and
// the settings of the topics a service creates from the configuration, the
// kafkajs clients logging through the platform's pino logger (a broker that
// cannot be reached as one outage: kafka-outages.ts in the messaging library),
// and the consumer timings, all within what a stock broker accepts.
import { Kafka, logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';
import type { PlatformConfig } from '@mm/platform/config';
import {
  saysUnreachable,
  type KafkaEventServerOptions,
  type KafkaReachability,
  type KafkaTopicSettings,
} from '@mm/platform/messaging';

export interface KafkaSettings {
  brokers: string[];
  topicPrefix: string;
  /** The partitions and replication factor of the topics a service creates. */
  topic: KafkaTopicSettings;
  /** The consumers' settings. */
  consumer: NonNullable<KafkaEventServerOptions['kafka']>;
}

/** The broker list and topic prefix, or undefined without KAFKA_BROKERS (the PostgreSQL log transport). */
export function kafkaSettings(config: PlatformConfig): KafkaSettings | undefined {
  const brokers = (config.KAFKA_BROKERS ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
  if (brokers.length === 0) return undefined;
  const sessionTimeout = config.MM_KAFKA_SESSION_TIMEOUT_MS;
  return {
    brokers,
    topicPrefix: config.MM_KAFKA_TOPIC_PREFIX,
    topic: {
      numPartitions: config.MM_KAFKA_TOPIC_PARTITIONS,
      replicationFactor: config.MM_KAFKA_TOPIC_REPLICATION_FACTOR,
    },
    // A crashed member is noticed after the session timeout (6 s to 5 min, the configuration's
    // range); one that stops leaves its group at once. A heartbeat a second is well under a third
    // of the least session timeout, so a running member is never taken for dead, and it hears of a
    // rebalance within a second. A rebalance waits at most a session for the members to rejoin.
    // A fetch waits at most MM_KAFKA_MAX_WAIT_MS (200 ms by default) for new events, so an event reaches
    // its consumers in well under a second even on a broker that answers an empty fetch only when the wait
    // is over (as librdkafka's mock cluster does; the tests' proxy in front of it answers as a broker does).
    consumer: {
      client: { logLevel: logLevel.WARN },
      consumer: {
        sessionTimeout,
        rebalanceTimeout: sessionTimeout,
        heartbeatInterval: 1_000,
        maxWaitTimeInMs: config.MM_KAFKA_MAX_WAIT_MS,
      },
    },
  };
}

/** The consumer's settings, its kafkajs client logging to the platform's log and reporting to `reachability`. */
export function kafkaConsumerSettings(
  settings: KafkaSettings,
  logger: Logger,
  reachability: KafkaReachability,
): KafkaSettings['consumer'] {
  return { ...settings.consumer, client: { ...settings.consumer.client, logCreator: kafkaLog(logger, reachability) } };
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * kafkajs' warnings and errors in the platform's log (its chatter stays out). It logs every error
 * answer as an error; a CreateTopics one is a topic another service created a moment earlier
 * (TOPIC_ALREADY_EXISTS) or a failure ensureTopics reports itself, so it is only debug here. A broker
 * it cannot reach is an outage, which `reachability` says once (a warning when it begins, a line when
 * it ends); its every reconnect, and whatever else kafkajs says while the outage lasts (its consumer's
 * crashes and restarts, its producer's failed sends), is debug: the same story, told once.
 */
export function kafkaLog(logger: Logger, reachability?: KafkaReachability): logCreator {
  return () =>
    ({ level, label, log }: LogEntry) => {
      const { message, ...fields } = log;
      let method = LEVELS[level] ?? 'info';
      if (level === logLevel.ERROR && message.startsWith('Response CreateTopics')) method = 'debug';
      else if (reachability && level <= logLevel.WARN) {
        if (
          saysUnreachable(
            `${message}\n${typeof fields.stack === 'string' ? fields.stack : ''}\n${typeof fields.error === 'string' ? fields.error : ''}`,
          )
        ) {
          reachability.unreachable(message);
        }
        if (reachability.ongoing()) method = 'debug';
      }
      logger[method]({ context: 'kafka', kafka: label, ...fields }, message);
    };
}

/** A kafkajs client logging to the platform's log, reporting to `reachability`. */
export function kafkaClient(
  settings: KafkaSettings,
  clientId: string,
  logger: Logger,
  reachability?: KafkaReachability,
): Kafka {
  return new Kafka({
    clientId,
    brokers: settings.brokers,
    logLevel: logLevel.WARN,
    logCreator: kafkaLog(logger, reachability),
  });
}
