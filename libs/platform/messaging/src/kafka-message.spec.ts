import type { RecordedEvent } from '@mm/platform/event-store';
import { isRecordedEvent, toKafkaMessage } from './kafka-message';

const event: RecordedEvent = {
  eventId: 'evt_01hx',
  source: 'accounts',
  globalPosition: '42',
  transactionId: '1001',
  streamId: 'cus_01hx',
  streamVersion: 3,
  type: 'customer.created',
  data: { firstName: 'Ada' },
  metadata: { projectId: 'prj_1' },
  recordedAt: '2024-01-01T00:00:00.000Z',
};

describe('the Kafka form of a recorded event', () => {
  it('goes to the topic named after its type, keyed by its stream, carrying the whole event', () => {
    const message = toKafkaMessage(event);
    expect(message).toEqual({
      topic: 'customer.created',
      key: 'cus_01hx',
      value: JSON.stringify(event),
      headers: { eventId: 'evt_01hx', type: 'customer.created' },
    });
    expect(JSON.parse(message.value)).toEqual(event);
  });

  it.each([
    ['a space', 'customer created'],
    ['a slash', 'customer/created'],
    ['nothing', ''],
    ['only dots', '..'],
    ['250 characters', 'x'.repeat(250)],
  ])('refuses a type with %s, which is no Kafka topic name', (_, type) => {
    expect(() => toKafkaMessage({ ...event, type })).toThrow(/not a valid Kafka topic name/);
  });

  it('is recognised when consumed, and anything without an event id is not', () => {
    expect(isRecordedEvent(JSON.parse(JSON.stringify(event)))).toBe(true);
    expect(isRecordedEvent({ ...event, eventId: '' })).toBe(false);
    expect(isRecordedEvent({ ...event, streamVersion: '3' })).toBe(false);
    expect(isRecordedEvent('customer.created')).toBe(false);
    expect(isRecordedEvent(null)).toBe(false);
  });
});
