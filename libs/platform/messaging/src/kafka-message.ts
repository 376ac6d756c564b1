// How a RecordedEvent travels on Kafka (ADR 0012): one topic per producing
// service, `<prefix>.<schema>.events` (prefix `mm` unless MM_KAFKA_TOPIC_PREFIX
// says otherwise, so several installations can share a cluster), keyed by stream id, so every event of a stream
// lands on one partition in log order whatever its type; the type rides in a
// header, which the consumer dispatches on. The value is the whole event as JSON.
// The W3C trace context of the command that appended it rides in headers too
// (traceparent, tracestate), where Kafka tooling and other consumers expect it.
import type { RecordedEvent } from '@mm/platform/event-store';

export interface KafkaEventMessage {
  topic: string;
  key: string;
  value: string;
  headers: { eventId: string; type: string; traceparent?: string; tracestate?: string };
}

const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** The prefix of every topic (and consumer group) unless configured otherwise. */
export const DEFAULT_TOPIC_PREFIX = 'mm';

/** The topic a service's events go to, named after its events schema. */
export function eventsTopic(schema: string, prefix = DEFAULT_TOPIC_PREFIX): string {
  const topic = `${prefix}.${schema}.events`;
  if (!TOPIC_NAME.test(topic)) throw new Error(`schema ${JSON.stringify(schema)} gives no valid Kafka topic name`);
  return topic;
}

export function toKafkaMessage(event: RecordedEvent, prefix = DEFAULT_TOPIC_PREFIX): KafkaEventMessage {
  const headers: KafkaEventMessage['headers'] = { eventId: event.eventId, type: event.type };
  const metadata = (event.metadata ?? {}) as Record<string, unknown>;
  for (const name of TRACE_HEADERS) {
    const value = metadata[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return { topic: eventsTopic(event.source, prefix), key: event.streamId, value: JSON.stringify(event), headers };
}

/** The trace context a consumed message carries in its headers, if any. */
export function traceHeaders(headers: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  for (const name of TRACE_HEADERS) {
    const value = headers?.[name];
    if (typeof value === 'string' || Buffer.isBuffer(value)) carrier[name] = value.toString();
  }
  return carrier.traceparent ? carrier : undefined;
}

/** Whether a consumed message value is a RecordedEvent, which handleOnce needs its id from. */
export function isRecordedEvent(value: unknown): value is RecordedEvent {
  const v = value as Partial<RecordedEvent> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.eventId === 'string' &&
    v.eventId.length > 0 &&
    typeof v.type === 'string' &&
    typeof v.streamId === 'string' &&
    typeof v.streamVersion === 'number'
  );
}
