// A consumer in a process of its own, for kafka.transport.int-spec.ts: it
// handles crash.happened events into crash_effects through KafkaEventServer
// and kills itself (SIGKILL) as soon as the transaction of an event marked
// `crash` has committed: handled, and its offset never committed to Kafka.
//   node -r tools/register.js kafka-crash.fixture.ts <database url> <brokers> <group> <schema> <topic prefix>
import 'reflect-metadata';
import { Controller, Inject, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  EventPattern,
  Payload,
  type KafkaContext,
  type MicroserviceOptions,
  type ReadPacket,
} from '@nestjs/microservices';
import { logLevel } from 'kafkajs';
import { createDataSource, UnitOfWork } from '@mm/platform/database';
import type { RecordedEvent } from '@mm/platform/event-store';
import { KafkaEventServer } from './kafka-event.server';

const [url, brokers, group, schema, topicPrefix] = process.argv.slice(2);

class CrashingServer extends KafkaEventServer {
  override async handleEvent(topic: string, packet: ReadPacket, context: KafkaContext): Promise<void> {
    await super.handleEvent(topic, packet, context);
    if ((packet.data as RecordedEvent<string, { crash?: boolean }>).data.crash) process.kill(process.pid, 'SIGKILL');
  }
}

async function main(): Promise<void> {
  const dataSource = createDataSource({ url, migrations: [], poolSize: 2 });
  await dataSource.initialize();
  const uow = new UnitOfWork(dataSource);

  @Controller()
  class CrashingProjection {
    constructor(@Inject(UnitOfWork) private readonly uow: UnitOfWork) {}

    @EventPattern('crash.happened')
    async on(@Payload() event: RecordedEvent): Promise<void> {
      await this.uow.query(`INSERT INTO crash_effects (server, event_id) VALUES ('crashing', $1)`, [event.eventId]);
    }
  }
  @Module({ controllers: [CrashingProjection], providers: [{ provide: UnitOfWork, useValue: uow }] })
  class CrashingModule {}

  const app = await NestFactory.createMicroservice<MicroserviceOptions>(CrashingModule, {
    strategy: new CrashingServer({
      uow,
      group,
      topicPrefix,
      sources: [schema],
      brokers: brokers.split(','),
      clientId: 'mm-crashing',
      // Short, so the group hands the dead member's partitions on soon after the kill.
      kafka: {
        client: { logLevel: logLevel.NOTHING },
        consumer: { sessionTimeout: 6_000, rebalanceTimeout: 6_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 },
      },
    }),
    logger: false,
  });
  await app.listen();
}

main().catch((error) => {
  process.stderr.write(`kafka-crash.fixture: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
