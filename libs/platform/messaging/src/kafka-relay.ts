// Distributed-mode outbox relay (ARCHITECTURE: the events table is the outbox):
// publishes one service's committed events in log order to its topic
// (`mm.<schema>.events`, keyed by stream id: ADR 0012), each send awaited
// before the next. The send runs inside the relay subscription's
// transaction, so if it fails the checkpoint stays and the events are sent
// again later: at-least-once, and consumers deduplicate by event id (handleOnce).
// It creates its topic before the first send (kafka-topics.ts); the broker's
// auto-creation is never asked for. Its producer is idempotent with what that
// needs (acks -1, one request in flight, kafkajs' unlimited retries: ADR 0012),
// so a send retried inside the producer is written once and in order. A broker
// that cannot be reached is an outage (kafka-outages.ts), not an error per try.
import { Logger, type LoggerService, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { UnitOfWork } from '@mm/platform/database';
import { Subscription, type EventStore, type RecordedEvent } from '@mm/platform/event-store';
import { EventsNotifyListener, listenConnectionConfig } from './events-notify.listener';
import { eventsTopic, toKafkaMessage } from './kafka-message';
import { unreachableReason, type KafkaReachability } from './kafka-outages';
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
  /** Where its producer reports the broker unreachable, and answering again: the process's KafkaOutages. */
  reachability?: KafkaReachability;
}

/** A send given up because the relay is stopping: the events go out again from the checkpoint, and nothing is logged. */
class RelayStopped extends Error {}

/** How long a stopping relay waits for a send under way (one to a broker that answers takes milliseconds). */
const SEND_GRACE_MS = 3_000;

export class KafkaRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The relay's subscription (checkpoint) name. */
  readonly name: string;
  private readonly logger: LoggerService;
  private producer?: Producer;
  private subscription?: Subscription;
  private listener?: EventsNotifyListener;
  /** Rejects the send under way when the relay stops: a send can wait out a whole outage. */
  private abort?: { stopped: Promise<never>; stop(): void };

  constructor(private readonly options: KafkaRelayOptions) {
    this.name = `kafka-relay:${options.source.schema}`;
    this.logger = options.logger ?? new Logger(KafkaRelay.name);
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    const { uow, source, batchSize, idlePollMs, kafka, topic } = this.options;
    await ensureTopics(kafka, [eventsTopic(source.schema, this.options.topicPrefix)], {
      ...topic,
      logger: this.logger,
    });
    const producer = kafka.producer({
      // Its topic exists now: nothing it does may have the broker create one with the broker's defaults.
      allowAutoTopicCreation: false,
      // What an idempotent producer's guarantees need (ADR 0012): acks -1 on every send, one request in
      // flight, and kafkajs' own retries left unlimited (its default for an idempotent producer), so a
      // retry keeps its sequence number and the broker writes the message once. A retry with a new
      // sequence (the relay sending again) could be written twice; consumers drop that by event id. A
      // broker that cannot be reached still fails the send once the client gives up reconnecting, and the
      // relay sends again from its checkpoint. The send holds the relay's transaction open, which
      // assigns no transaction id until its COMMIT (the checkpoint's update goes with it), so it holds
      // back no log reader (readAll's commit-safe gate), only its own snapshot.
      idempotent: true,
      maxInFlightRequests: 1,
      // kafkajs 2's default (Java-compatible murmur2), named so it does not warn that it changed.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    const { reachability } = this.options;
    if (reachability) producer.on(producer.events.REQUEST, () => reachability.reached());
    await producer.connect();
    let stop!: () => void;
    const stopped = new Promise<never>((_, reject) => (stop = () => reject(new RelayStopped(`${this.name} stopped`))));
    stopped.catch(() => undefined);
    this.abort = { stopped, stop };
    const logErrors = logSubscriptionErrors(
      this.logger,
      this.name,
      'publishing failed; it is sent again from the checkpoint',
    );
    const subscription = new Subscription(uow, this.name, [source], (event) => this.publish(producer, event), {
      batchSize,
      idlePollMs,
      onError: (error, event) => {
        if (error instanceof RelayStopped) return;
        const unreachable = reachability && unreachableReason(error);
        // An outage: said once for the process (kafka-outages.ts); the send is tried again at the next poll.
        if (unreachable) reachability.unreachable(unreachable);
        else logErrors?.(error, event);
      },
    });
    const listener = new EventsNotifyListener(
      listenConnectionConfig(uow.dataSource),
      [source.schema],
      () => subscription.wake(),
      this.logger,
    );
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
    const { producer, subscription, listener, abort } = this;
    this.producer = this.subscription = this.listener = this.abort = undefined;
    // A send under way has a moment to finish; one that waits on a broker gone is given up: its transaction
    // rolls back, and its events go out again from the checkpoint.
    const giveUp = setTimeout(() => abort?.stop(), SEND_GRACE_MS);
    await subscription?.stop();
    clearTimeout(giveUp);
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
    const sent = producer.send({ topic, acks: -1, messages: [message] });
    if (!this.abort) return void (await sent);
    // Given up when the relay stops; the send itself may still finish (a duplicate, which consumers drop).
    sent.catch(() => undefined);
    await Promise.race([sent, this.abort.stopped]);
  }
}
