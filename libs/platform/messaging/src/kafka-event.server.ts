// Distributed-mode consumer: Nest's Kafka server, with each event handler call
// wrapped in handleOnce so a message Kafka delivers again (retry, rebalance,
// restart before the offset commit) has exactly one effect per consumer group.
// The handler's uow.query(...) calls join handleOnce's transaction.
import { ServerKafka, type KafkaContext, type KafkaOptions, type ReadPacket } from '@nestjs/microservices';
import type { UnitOfWork } from '@mm/platform/database';
import { inEventSpan } from './event-span';
import { handleOnce } from './handle-once';
import { isRecordedEvent } from './kafka-message';

type NestKafkaOptions = NonNullable<KafkaOptions['options']>;

export interface KafkaEventServerOptions {
  uow: UnitOfWork;
  /** Consumer group, also the key of its processed-events log. */
  group: string;
  brokers: string[];
  clientId: string;
  /** Further settings of Nest's Kafka server: client ssl/sasl, consumer, run, ... */
  kafka?: Omit<NestKafkaOptions, 'client' | 'consumer' | 'postfixId'> & {
    client?: Partial<NestKafkaOptions['client']>;
    consumer?: Partial<NestKafkaOptions['consumer']>;
  };
}

export class KafkaEventServer extends ServerKafka {
  private readonly uow: UnitOfWork;
  private readonly group: string;

  constructor(options: KafkaEventServerOptions) {
    const kafka = options.kafka ?? {};
    super({
      ...kafka,
      client: { ...kafka.client, brokers: options.brokers, clientId: options.clientId },
      consumer: { ...kafka.consumer, groupId: options.group },
      // A new group starts from the oldest retained event, not from "now".
      subscribe: { fromBeginning: true, ...kafka.subscribe },
      // Nest appends "-server" to the client and group ids by default.
      postfixId: '',
    });
    this.uow = options.uow;
    this.group = options.group;
  }

  override async handleEvent(pattern: string, packet: ReadPacket, context: KafkaContext): Promise<void> {
    const event: unknown = packet.data;
    if (!isRecordedEvent(event)) {
      // It cannot become valid by retrying, and blocking the partition would stop every event behind it.
      this.logger.error(`${pattern}: message at partition ${context.getPartition()} offset ${context.getMessage().offset} is not a recorded event; skipped`);
      return;
    }
    await inEventSpan(event, this.group, 'kafka', () => handleOnce(this.uow, this.group, event, () => super.handleEvent(pattern, packet, context)));
  }
}
