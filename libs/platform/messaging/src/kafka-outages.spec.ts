// A broker outage as the process's log and /metrics tell it (issue 42 item 10):
// one warning when it begins, one line with its duration when it ends.
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { Registry } from 'prom-client';
import { KafkaOutages, saysUnreachable, unreachableReason } from './kafka-outages';

describe('KafkaOutages', () => {
  let clock: number;
  let lines: Array<{ level: 'warn' | 'info'; fields: Record<string, unknown>; message: string }>;
  let registry: Registry;
  let outages: KafkaOutages;

  beforeEach(() => {
    jest.useFakeTimers();
    clock = 1_000_000;
    lines = [];
    registry = new Registry();
    const log = {
      warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'warn', fields, message }),
      info: (fields: Record<string, unknown>, message: string) => lines.push({ level: 'info', fields, message }),
    };
    outages = new KafkaOutages(log, registry, 2_000, () => clock);
  });
  afterEach(() => jest.useRealTimers());

  const metric = async (name: string) =>
    (await registry.getSingleMetricAsString(name)).split('\n').filter((l) => !l.startsWith('#'));

  it('says an outage once when it begins and once, with its duration, when every client that failed is answered again', async () => {
    const relay = outages.client('relay');
    const consumer = outages.client('consumer');
    consumer.unreachable('connect ECONNREFUSED 127.0.0.1:9092');
    relay.unreachable('connect ECONNREFUSED 127.0.0.1:9092');
    clock += 5_000;
    consumer.unreachable('connect ECONNREFUSED 127.0.0.1:9092');
    expect(lines.map((l) => [l.level, l.fields.kafkaOutage])).toEqual([['warn', 'began']]);
    expect(lines[0].message).toMatch(/unreachable \(connect ECONNREFUSED 127\.0\.0\.1:9092\)/);
    expect(consumer.ongoing()).toBe(true);
    expect(await metric('mm_kafka_broker_unreachable_seconds')).toContain('mm_kafka_broker_unreachable_seconds 5');

    clock += 40_000;
    consumer.reached();
    jest.advanceTimersByTime(5_000);
    // The relay has not been answered yet: the outage goes on.
    expect(lines).toHaveLength(1);
    clock += 2_500;
    relay.reached();
    expect(lines).toHaveLength(1);
    jest.advanceTimersByTime(2_000);
    expect(lines.map((l) => [l.level, l.fields.kafkaOutage, l.fields.outageSeconds])).toEqual([
      ['warn', 'began', undefined],
      ['info', 'ended', 47.5],
    ]);
    expect(lines[1].message).toBe('the Kafka broker answers again, after an outage of 47.5 s');
    expect(relay.ongoing()).toBe(false);
    expect(await metric('mm_kafka_outage_seconds')).toEqual(
      expect.arrayContaining(['mm_kafka_outage_seconds_count 1', 'mm_kafka_outage_seconds_sum 47.5']),
    );
    expect(await metric('mm_kafka_broker_unreachable_seconds')).toContain('mm_kafka_broker_unreachable_seconds 0');
  });

  it('continues the outage when a failure is told just after the answers that would end it (a retried send reports its failed try late)', () => {
    const relay = outages.client('relay');
    relay.unreachable('Connection error');
    clock += 10_000;
    relay.reached();
    clock += 5;
    relay.unreachable('Connection error');
    jest.advanceTimersByTime(3_000);
    expect(lines.map((l) => l.fields.kafkaOutage)).toEqual(['began']);
    clock += 1_000;
    relay.reached();
    jest.advanceTimersByTime(2_000);
    expect(lines.map((l) => [l.fields.kafkaOutage, l.fields.outageSeconds])).toEqual([
      ['began', undefined],
      ['ended', 11.005],
    ]);
  });

  it('is not ended by a client that never failed, and answers cost nothing when nothing failed', () => {
    const relay = outages.client('relay');
    const consumer = outages.client('consumer');
    for (let i = 0; i < 3; i++) relay.reached();
    consumer.unreachable('Connection timeout');
    relay.reached();
    jest.advanceTimersByTime(10_000);
    expect(lines.map((l) => l.fields.kafkaOutage)).toEqual(['began']);
  });
});

describe('what says the broker could not be reached', () => {
  it("knows kafkajs' connection failures, through the errors that wrap them, from a refusal by a broker that answered", () => {
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    expect(unreachableReason(refused)).toBe('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    expect(
      unreachableReason(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 30_000 })),
    ).toMatch(/ECONNREFUSED/);
    expect(
      unreachableReason(
        new KafkaJSNonRetriableError(new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 300 })),
      ),
    ).toMatch(/ECONNREFUSED/);
    expect(
      unreachableReason(new KafkaJSProtocolError('This server does not host this topic-partition')),
    ).toBeUndefined();
    expect(unreachableReason(new Error('relation "gateway.events" does not exist'))).toBeUndefined();

    expect(
      saysUnreachable(
        'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:9092',
      ),
    ).toBe(true);
    expect(
      saysUnreachable('Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092'),
    ).toBe(true);
    expect(saysUnreachable('Connection timeout')).toBe(true);
    expect(saysUnreachable('The group is rebalancing, re-joining')).toBe(false);
    expect(saysUnreachable('Response CreateTopics(key: 19, version: 3)')).toBe(false);
  });
});
