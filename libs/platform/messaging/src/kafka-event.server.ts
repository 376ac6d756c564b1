// Distributed-mode consumer: Nest's Kafka server, subscribed to the topics of
// the services the group consumes (one topic per service, ADR 0012) and
// dispatching each message by its type header to the @EventPattern handler of
// that type. Each handler call is wrapped in handleOnce, so a message Kafka
// delivers again (retry, rebalance, a crash before the offset commit) has
// exactly one effect per consumer group; the handler's uow.query(...) calls
// join handleOnce's transaction. It creates the topics it subscribes to, where
// missing, before subscribing (kafka-topics.ts); its clients never ask the
// broker to create one. A consumer that cannot join its group (a session
// timeout the broker refuses) fails the server's start, not silently later.
import { ServerKafka, type KafkaContext, type KafkaOptions, type ReadPacket } from '@nestjs/microservices';
import { Partitioners, type Consumer } from 'kafkajs';
import type { UnitOfWork } from '@mm/platform/database';
import { inEventSpan } from './event-span';
import { handleOnce } from './handle-once';
import { DEFAULT_TOPIC_PREFIX, eventsTopic, isRecordedEvent, traceHeaders } from './kafka-message';
import type { KafkaReachability } from './kafka-outages';
import { ensureTopics, type KafkaTopicSettings } from './kafka-topics';

type NestKafkaOptions = NonNullable<KafkaOptions['options']>;

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
      await consumer.run({ ...this.options.run, eachMessage: (payload) => this.handleMessage(payload) });
    } finally {
      stopListening();
    }
    if (crash)
      throw new Error(`the Kafka consumer of group ${this.groupId} could not join it: ${crash.message}`, {
        cause: crash,
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
