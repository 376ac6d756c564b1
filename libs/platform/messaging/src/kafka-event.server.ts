// Distributed-mode consumer: Nest's Kafka server, subscribed to the topics of
// the services the group consumes (one topic per service, ADR 0012) and
// dispatching each message by its type header to the @EventPattern handler of
// that type. Each handler call is wrapped in handleOnce, so a message Kafka
// delivers again (retry, rebalance, a crash before the offset commit) has
// exactly one effect per consumer group; the handler's uow.query(...) calls
// join handleOnce's transaction. It creates the topics it subscribes to, where
// missing, before subscribing (kafka-topics.ts); its clients never ask the
// broker to create one. A consumer that cannot join its group (a session
// timeout the broker refuses) fails the server's start, not silently later;
// one that kafkajs stops for good once started is started again here.
import { ServerKafka, type KafkaContext, type KafkaOptions, type ReadPacket } from '@nestjs/microservices';
import { Partitioners, type Consumer } from 'kafkajs';
import type { UnitOfWork } from '@mm/platform/database';
import { inEventSpan } from './event-span';
import { handleOnce } from './handle-once';
import { DEFAULT_TOPIC_PREFIX, eventsTopic, isRecordedEvent, traceHeaders } from './kafka-message';
import type { KafkaReachability } from './kafka-outages';
import { ensureTopics, type KafkaTopicSettings } from './kafka-topics';

type NestKafkaOptions = NonNullable<KafkaOptions['options']>;

/** The first wait before a stopped consumer starts again, doubled at each stop in a row up to the longest. */
const RESTART_FIRST_MS = 1_000;
const RESTART_LONGEST_MS = 30_000;

export interface KafkaEventServerOptions {
  uow: UnitOfWork;
  /** The key of its processed-events log; the Kafka consumer group is `<topicPrefix>.<group>`. */
  group: string;
  /** The topics' and consumer group's prefix; `mm` by default. */
  topicPrefix?: string;
  /** The services whose events the group consumes: their events schemas, or their EventStores. */
  sources: ReadonlyArray<string | { readonly schema: string }>;
  brokers: string[];
  clientId: string;
  /** Partitions and replication factor of the topics it creates. */
  topic?: KafkaTopicSettings;
  /**
   * Told whenever the broker answers the consumer, so an outage ends once it is back (kafka-outages.ts;
   * its failures reach it through the client's logger, `kafka.client.logCreator`).
   */
  reachability?: KafkaReachability;
  /** Further settings of Nest's Kafka server: client ssl/sasl, consumer, run, ... */
  kafka?: Omit<NestKafkaOptions, 'client' | 'consumer' | 'postfixId'> & {
    client?: Partial<NestKafkaOptions['client']>;
    consumer?: Partial<NestKafkaOptions['consumer']>;
  };
}

export class KafkaEventServer extends ServerKafka {
  private readonly uow: UnitOfWork;
  private readonly group: string;
  private readonly topicSettings?: KafkaTopicSettings;
  private readonly reachability?: KafkaReachability;
  readonly topics: string[];
  /** Set once the server closes: a consumer that stops then is meant to. */
  private closing = false;
  private restart?: NodeJS.Timeout;

  constructor(options: KafkaEventServerOptions) {
    const kafka = options.kafka ?? {};
    const prefix = options.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
    super({
      ...kafka,
      client: { ...kafka.client, brokers: options.brokers, clientId: options.clientId },
      consumer: { ...kafka.consumer, groupId: `${prefix}.${options.group}`, allowAutoTopicCreation: false },
      // Nest's server makes a producer too (for replies, which events have none); kafkajs 2's
      // default partitioner is named so it does not warn that it changed.
      producer: {
        createPartitioner: Partitioners.DefaultPartitioner,
        ...kafka.producer,
        allowAutoTopicCreation: false,
      },
      // A new group starts from the oldest retained event, not from "now".
      subscribe: { fromBeginning: true, ...kafka.subscribe },
      // Nest appends "-server" to the client and group ids by default.
      postfixId: '',
    });
    this.uow = options.uow;
    this.group = options.group;
    this.topicSettings = options.topic;
    this.reachability = options.reachability;
    this.topics = [...new Set(options.sources.map((s) => eventsTopic(typeof s === 'string' ? s : s.schema, prefix)))];
  }

  /** Nest would subscribe to a topic per pattern; the patterns here are event types, inside the services' topics. */
  override async bindEvents(consumer: Consumer): Promise<void> {
    if (this.topics.length === 0) return;
    const { reachability } = this;
    if (reachability) consumer.on(consumer.events.REQUEST, () => reachability.reached());
    await ensureTopics(this.client!, this.topics, { ...this.topicSettings, logger: this.logger });
    await consumer.subscribe({ ...this.options.subscribe, topics: this.topics });
    // kafkajs' run() resolves even when joining the group failed for good (a crash it will not
    // restart from, such as INVALID_SESSION_TIMEOUT): such a server would start and never consume.
    let crash: Error | undefined;
    const stopListening = consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) crash = payload.error;
    });
    try {
      await this.runConsumer(consumer);
    } finally {
      stopListening();
    }
    if (crash)
      throw new Error(`the Kafka consumer of group ${this.groupId} could not join it: ${crash.message}`, {
        cause: crash,
      });
    this.restartWhenStopped(consumer);
  }

  override async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restart);
    await super.close();
  }

  private runConsumer(consumer: Consumer): Promise<void> {
    return consumer.run({ ...this.options.run, eachMessage: (payload) => this.handleMessage(payload) });
  }

  /**
   * kafkajs restarts a crashed consumer only after an error it judges retriable. After any other (a protocol
   * error in a rebalance it does not handle, say) the consumer stays stopped while the process goes on
   * answering: its partitions go to the group's other members, and to none when every member met the same
   * error, the group's events then waiting for good. The consumer starts again here, after a wait that grows
   * while it keeps stopping; its uncommitted events come again, once each (handleOnce).
   */
  private restartWhenStopped(consumer: Consumer): void {
    let wait = RESTART_FIRST_MS;
    consumer.on(consumer.events.GROUP_JOIN, () => (wait = RESTART_FIRST_MS));
    const startAgain = async () => {
      if (this.closing) return;
      try {
        await consumer.connect();
        // A start that fails crashes again, which comes back here.
        await this.runConsumer(consumer);
      } catch (error) {
        later(`could not start again (${(error as Error).message})`);
      }
    };
    const later = (why: string) => {
      if (this.closing) return;
      this.logger.error(`the Kafka consumer of group ${this.groupId} ${why}; starting it again in ${wait} ms`);
      this.restart = setTimeout(() => void startAgain(), wait);
      wait = Math.min(wait * 2, RESTART_LONGEST_MS);
    };
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) later(`stopped for good on ${payload.error.name}: ${payload.error.message}`);
    });
  }

  override async handleEvent(topic: string, packet: ReadPacket, context: KafkaContext): Promise<void> {
    const headers = context.getMessage().headers;
    const type: unknown = headers?.type;
    // Most of a service's event types are not this group's business: pass them over.
    if (typeof type !== 'string' || !this.getHandlerByPattern(type)) return;
    const event: unknown = packet.data;
    if (!isRecordedEvent(event) || event.type !== type) {
      // It cannot become valid by retrying, and blocking the partition would stop every event behind it.
      this.logger.error(
        `${topic}: message at partition ${context.getPartition()} offset ${context.getMessage().offset} is not a recorded ${type} event; skipped`,
      );
      return;
    }
    await inEventSpan(
      event,
      this.group,
      'kafka',
      () => handleOnce(this.uow, this.group, event, () => super.handleEvent(type, packet, context)),
      traceHeaders(headers) ?? event.metadata,
    );
  }
}
