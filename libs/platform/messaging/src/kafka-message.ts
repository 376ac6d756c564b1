// How a RecordedEvent travels on Kafka (ADR 0012): one topic per producing
// service, `mm.<schema>.events`, keyed by stream id, so every event of a stream
// lands on one partition in log order whatever its type; the type rides in a
// header, which the consumer dispatches on. The value is the whole event as JSON.
import type { RecordedEvent } from '@mm/platform/event-store';

export interface KafkaEventMessage {
  topic: string;
  key: string;
  value: string;
  headers: { eventId: string; type: string };
}

const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** The topic a service's events go to, named after its events schema. */
export function eventsTopic(schema: string): string {
  const topic = `mm.${schema}.events`;
  if (!TOPIC_NAME.test(topic)) throw new Error(`schema ${JSON.stringify(schema)} gives no valid Kafka topic name`);
  return topic;
}

export function toKafkaMessage(event: RecordedEvent): KafkaEventMessage {
  return {
    topic: eventsTopic(event.source),
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
