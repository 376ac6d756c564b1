// One consumer span per handled event, continuing the trace of the command
// that appended it (its W3C traceparent travels in the event's metadata, and
// on Kafka in the message's headers as well).
// With tracing off, the OpenTelemetry API is a no-op and this is a plain call.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RecordedEvent } from '@mm/platform/event-store';

const tracer = trace.getTracer('@mm/platform/messaging');

export function inEventSpan<T>(
  event: RecordedEvent,
  group: string,
  system: 'postgresql' | 'kafka',
  fn: () => Promise<T>,
  carrier: Record<string, unknown> = event.metadata as Record<string, unknown>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  return context.with(parent, () =>
    tracer.startActiveSpan(
      `${event.type} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': system,
          'messaging.consumer.group.name': group,
          'messaging.message.id': event.eventId,
        },
      },
      async (span) => {
        try {
          return await fn();
        } catch (error) {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : String(error),
          });
          throw error;
        } finally {
          span.end();
        }
      },
    ),
  );
}
