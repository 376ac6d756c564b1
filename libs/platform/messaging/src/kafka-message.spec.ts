import type { RecordedEvent } from '@mm/platform/event-store';
import { eventsTopic, isRecordedEvent, toKafkaMessage, traceHeaders } from './kafka-message';

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
  it("goes to its service's topic, keyed by its stream, its type in a header, carrying the whole event", () => {
    const message = toKafkaMessage(event);
    expect(message).toEqual({
      topic: 'mm.accounts.events',
      key: 'cus_01hx',
      value: JSON.stringify(event),
      headers: { eventId: 'evt_01hx', type: 'customer.created' },
    });
    expect(JSON.parse(message.value)).toEqual(event);
  });

  it("carries the command's W3C trace context in headers as well as in the event", () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const message = toKafkaMessage({ ...event, metadata: { ...event.metadata, traceparent, tracestate: 'mm=1' } });
    expect(message.headers).toEqual({ eventId: 'evt_01hx', type: 'customer.created', traceparent, tracestate: 'mm=1' });
    expect(traceHeaders({ traceparent: Buffer.from(traceparent), type: Buffer.from('customer.created') })).toEqual({
      traceparent,
    });
    expect(traceHeaders({ type: 'customer.created' })).toBeUndefined();
  });

  it('names topics under the configured prefix, so installations can share a cluster', () => {
    expect(eventsTopic('accounts', 'acme-sandbox')).toBe('acme-sandbox.accounts.events');
    expect(toKafkaMessage(event, 'acme-sandbox').topic).toBe('acme-sandbox.accounts.events');
  });

  it('puts every type of a stream on one topic with one key, so the stream keeps its order', () => {
    const created = toKafkaMessage(event);
    const updated = toKafkaMessage({ ...event, type: 'customer.updated', streamVersion: 4 });
    expect([updated.topic, updated.key]).toEqual([created.topic, created.key]);
    expect(updated.headers.type).toBe('customer.updated');
  });

  it.each([
    ['a space', 'acc ounts'],
    ['a slash', 'acc/ounts'],
    ['240 characters', 'x'.repeat(240)],
  ])('refuses a schema with %s, which gives no Kafka topic name', (_, schema) => {
    expect(() => eventsTopic(schema)).toThrow(/no valid Kafka topic name/);
    expect(() => toKafkaMessage({ ...event, source: schema })).toThrow(/no valid Kafka topic name/);
  });

  it('is recognised when consumed, and anything without an event id is not', () => {
    expect(isRecordedEvent(JSON.parse(JSON.stringify(event)))).toBe(true);
    expect(isRecordedEvent({ ...event, eventId: '' })).toBe(false);
    expect(isRecordedEvent({ ...event, streamVersion: '3' })).toBe(false);
    expect(isRecordedEvent('customer.created')).toBe(false);
    expect(isRecordedEvent(null)).toBe(false);
  });
});
