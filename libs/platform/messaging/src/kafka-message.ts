// How a RecordedEvent travels on Kafka: topic = event type (Nest's Kafka server
// subscribes to a topic per @EventPattern), key = stream id (one partition per
// stream keeps its order), value = the whole event as JSON.
import type { RecordedEvent } from '@mm/platform/event-store';

export interface KafkaEventMessage {
  topic: string;
  key: string;
  value: string;
  headers: { eventId: string; type: string };
}

const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export function toKafkaMessage(event: RecordedEvent): KafkaEventMessage {
  if (!TOPIC_NAME.test(event.type) || event.type === '.' || event.type === '..') {
    throw new Error(`event type ${JSON.stringify(event.type)} is not a valid Kafka topic name`);
  }
  return {
    topic: event.type,
    key: event.streamId,
    value: JSON.stringify(event),
    headers: { eventId: event.eventId, type: event.type },
  };
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
