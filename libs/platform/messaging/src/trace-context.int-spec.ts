// ARCHITECTURE: trace context travels in event metadata. A command traced
// while it appends, and the handler of its event on the PostgreSQL log
// transport, share one trace; the handler's span is a child of the command's.
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createEventsTable, EventStore, type RecordedEvent } from '@mm/platform/event-store';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { KafkaEventServer } from './kafka-event.server';
import { toKafkaMessage } from './kafka-message';
import { PgLogTransport } from './pg-log.transport';
import { eventually } from './transport.contract';

const seen: Array<{ event: RecordedEvent; traceId?: string }> = [];

@Controller()
class TracedProjection {
  @EventPattern('traced.happened')
  onHappened(@Payload() event: RecordedEvent) {
    seen.push({ event, traceId: trace.getActiveSpan()?.spanContext().traceId });
  }
}

@Module({ controllers: [TracedProjection] })
class TracedModule {}

describe('trace context across the event log', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let db: TestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    provider.register();
    db = await createTestDatabase();
    const runner = db.dataSource.createQueryRunner();
    await createEventsTable(runner, 'traced_log');
    await runner.release();
    store = new EventStore(db.uow, 'traced_log');
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    await db.close();
  });

  it("continues the appending command's trace in the handler", async () => {
    const app = await NestFactory.createMicroservice<MicroserviceOptions>(TracedModule, {
      strategy: new PgLogTransport({ uow: db.uow, group: 'traced', sources: [store], idlePollMs: 50 }),
      logger: false,
    });
    await app.listen();
    try {
      const tracer = trace.getTracer('test');
      const command = await tracer.startActiveSpan('create order', async (span) => {
        await db.uow.run(() => store.append('order-1', 'no_stream', [{ type: 'traced.happened', data: {} }]));
        span.end();
        return span.spanContext();
      });
      const [delivered] = await (async () => {
        await eventually(() => expect(seen).toHaveLength(1), 30_000);
        return seen;
      })();
      expect(delivered.event.metadata.traceparent).toMatch(
        new RegExp(`^00-${command.traceId}-${command.spanId}-0[01]$`),
      );
      expect(delivered.traceId).toBe(command.traceId);
      const consumer = exporter.getFinishedSpans().find((s) => s.name === 'traced.happened process');
      expect(consumer?.spanContext().traceId).toBe(command.traceId);
      expect(consumer?.parentSpanContext?.spanId).toBe(command.spanId);
    } finally {
      await app.close();
    }
  });

  it('continues the trace on the Kafka consumer too (fed the relay wire format, no broker)', async () => {
    const server = new KafkaEventServer({
      uow: db.uow,
      group: 'traced-kafka',
      sources: [store],
      brokers: ['127.0.0.1:9'],
      clientId: 'traced',
    });
    const app = await NestFactory.createMicroservice<MicroserviceOptions>(TracedModule, {
      strategy: server,
      logger: false,
      abortOnError: false,
    });
    await app.init(); // registers the handlers; listen() would connect to the broker
    try {
      seen.length = 0;
      const tracer = trace.getTracer('test');
      const [appended, command] = await tracer.startActiveSpan('create order', async (span) => {
        const events = await db.uow.run(() =>
          store.append('order-3', 'no_stream', [{ type: 'traced.happened', data: {} }]),
        );
        span.end();
        return [events[0], span.spanContext()] as const;
      });
      const { topic, key, value, headers } = toKafkaMessage(appended);
      await server.handleMessage({
        topic,
        partition: 0,
        message: {
          key: Buffer.from(key),
          value: Buffer.from(value),
          headers: { eventId: Buffer.from(headers.eventId), type: Buffer.from(headers.type) },
          offset: '0',
          timestamp: '0',
          attributes: 0,
        },
        heartbeat: async () => undefined,
        pause: () => () => undefined,
      });
      expect(seen.map((s) => s.traceId)).toEqual([command.traceId]);

      // A message whose headers carry the trace continues it even when the event does not.
      seen.length = 0;
      const other = tracer.startSpan('another command');
      other.end();
      const carrier: Record<string, string> = {};
      propagation.inject(trace.setSpan(context.active(), other), carrier);
      const [bare] = await db.uow.run(() =>
        store.append('order-4', 'no_stream', [{ type: 'traced.happened', data: {} }]),
      );
      const plain = toKafkaMessage({ ...bare, metadata: {} });
      await server.handleMessage({
        topic: plain.topic,
        partition: 0,
        message: {
          key: Buffer.from(plain.key),
          value: Buffer.from(plain.value),
          headers: {
            eventId: Buffer.from(bare.eventId),
            type: Buffer.from(bare.type),
            traceparent: Buffer.from(carrier.traceparent),
          },
          offset: '1',
          timestamp: '0',
          attributes: 0,
        },
        heartbeat: async () => undefined,
        pause: () => () => undefined,
      });
      expect(seen.map((s) => s.traceId)).toEqual([other.spanContext().traceId]);
    } finally {
      await app.close();
    }
  });

  it('adds nothing to an event appended outside any trace', async () => {
    const [event] = await db.uow.run(() =>
      store.append('order-2', 'no_stream', [{ type: 'untraced.happened', data: {} }]),
    );
    expect(event.metadata.traceparent).toBeUndefined();
  });
});
