// Distributed-mode outbox relay (ARCHITECTURE: the events table is the outbox):
// publishes one service's committed events in log order to its topic
// (`mm.<schema>.events`, keyed by stream id: ADR 0012), each send awaited
// before the next. The send runs inside the relay subscription's
// transaction, so if it fails the checkpoint stays and the events are sent
// again later: at-least-once, and consumers deduplicate by event id (handleOnce).
// It creates its topic before the first send (kafka-topics.ts); the broker's
// auto-creation is never asked for.
import { Logger, type LoggerService, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { UnitOfWork } from '@mm/platform/database';
import { Subscription, type EventStore, type RecordedEvent } from '@mm/platform/event-store';
import { EventsNotifyListener, listenConnectionConfig } from './events-notify.listener';
import { eventsTopic, toKafkaMessage } from './kafka-message';
import { ensureTopics, type KafkaTopicSettings, type TopicsClient } from './kafka-topics';
import { logSubscriptionErrors } from './subscription-errors';

export interface KafkaRelayOptions {
  uow: UnitOfWork;
  source: EventStore;
  kafka: Pick<Kafka, 'producer'> & TopicsClient;
  /** The topics' prefix: `<prefix>.<schema>.events`; `mm` by default. */
  topicPrefix?: string;
  /** Its topic's partitions and replication factor, should the relay create it. */
  topic?: KafkaTopicSettings;
  idlePollMs?: number;
  batchSize?: number;
  logger?: LoggerService;
}

export class KafkaRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The relay's subscription (checkpoint) name. */
  readonly name: string;
  private readonly logger: LoggerService;
  private producer?: Producer;
  private subscription?: Subscription;
  private listener?: EventsNotifyListener;

  constructor(private readonly options: KafkaRelayOptions) {
    this.name = `kafka-relay:${options.source.schema}`;
    this.logger = options.logger ?? new Logger(KafkaRelay.name);
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    const { uow, source, batchSize, idlePollMs, kafka, topic } = this.options;
    await ensureTopics(kafka, [eventsTopic(source.schema, this.options.topicPrefix)], { ...topic, logger: this.logger });
    const producer = kafka.producer({
      // Its topic exists now: nothing it does may have the broker create one with the broker's defaults.
      allowAutoTopicCreation: false,
      idempotent: true,
      maxInFlightRequests: 1,
      // The send holds the relay's transaction open, and an open transaction holds back
      // every log reader of the PostgreSQL cluster (readAll's commit-safe gate): give up
      // after a few retries and let the next poll try again, not kafkajs' retry-for-ever.
      retry: { retries: 5 },
      // kafkajs 2's default (Java-compatible murmur2), named so it does not warn that it changed.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const subscription = new Subscription(uow, this.name, [source], (event) => this.publish(producer, event), {
      batchSize,
      idlePollMs,
      onError: logSubscriptionErrors(this.logger, this.name, 'publishing failed; it is sent again from the checkpoint'),
    });
    const listener = new EventsNotifyListener(listenConnectionConfig(uow.dataSource), [source.schema], () => subscription.wake(), this.logger);
    try {
      await listener.start();
    } catch (error) {
      await producer.disconnect();
      throw error;
    }
    subscription.start();
    this.producer = producer;
    this.subscription = subscription;
    this.listener = listener;
  }

  async stop(): Promise<void> {
    const { producer, subscription, listener } = this;
    this.producer = this.subscription = this.listener = undefined;
    await subscription?.stop();
    await listener?.stop();
    await producer?.disconnect();
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  private async publish(producer: Producer, event: RecordedEvent): Promise<void> {
    const { topic, ...message } = toKafkaMessage(event, this.options.topicPrefix);
    await producer.send({ topic, acks: -1, messages: [message] });
  }
}
