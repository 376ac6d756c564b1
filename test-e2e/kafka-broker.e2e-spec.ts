// Issue 42 item 10: distributed mode on a Kafka broker, as its operator lives
// with it. A platform a test starts removes the topics and consumer groups it
// made (a broker other runs share keeps whatever a run leaves); the relays'
// idempotent producers start without kafkajs warning that their settings
// invalidate its guarantees; and a broker that goes away for some seconds is
// one warning per service when it begins and one line when it ends, its
// duration on each service's /metrics, with every event appended meanwhile
// delivered once it is back. The outage runs on a broker of this file's own
// (the project's mock behind the stock-broker proxy, which a test can take
// away: tools/kafka-mock/outage-broker.ts): the run's broker serves the other
// files meanwhile.
import { randomUUID } from 'node:crypto';
import { cloneTemplateDatabase, kafkaNamesUnder, OutageBroker, outageBrokerUnavailable } from '@mm/platform/testing';
import {
  brokerList,
  removeStartedKafkaNames,
  START_TIMEOUT_MS,
  startDistributedProcesses,
  type PlatformHandle,
} from './support/distributed-processes';
import { ADMIN_TOKEN, platformSettings } from './support/settings';
import { eventually } from './support/test-platform';

jest.setTimeout(START_TIMEOUT_MS + 120_000);

const runBrokers = brokerList(process.env.KAFKA_BROKERS);
const unavailable = outageBrokerUnavailable();
if (runBrokers.length === 0)
  process.stderr.write('kafka-broker.e2e-spec: the run has no Kafka broker: its first test is skipped\n');
if (unavailable) process.stderr.write(`kafka-broker.e2e-spec: skipped: no broker to take away (${unavailable})\n`);

interface LogLine {
  service: string;
  level: number;
  msg: string;
  fields: Record<string, unknown>;
}

/** The processes' JSON log lines, each under its service's name (start:distributed prefixes them). */
function logLines(output: string): LogLine[] {
  return output.split('\n').flatMap((line) => {
    const match = /^\[([\w-]+)\] (\{.*\})$/.exec(line);
    if (!match) return [];
    const fields = JSON.parse(match[2]) as Record<string, unknown>;
    return [{ service: match[1], level: Number(fields.level), msg: String(fields.msg), fields }];
  });
}

/** Each process's address, from the banner's lines (`  accounts     http://127.0.0.1:1234   pid 42`). */
function processUrls(output: string): Map<string, string> {
  return new Map(
    [...output.matchAll(/^ {2}([\w-]+) +(http:\/\/127\.0\.0\.1:\d+) {3}pid \d+$/gm)].map((m) => [m[1], m[2]]),
  );
}

async function admin(base: string, path: string, body?: unknown): Promise<Record<string, string>> {
  const response = await fetch(`${base}/v0.13/admin${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      'idempotency-key': randomUUID(),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Record<string, string>;
}

/** A metric's value from a Prometheus text page; undefined when the page has no such sample. */
function sample(page: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(page);
  return match ? Number(match[1]) : undefined;
}

(runBrokers.length > 0 ? describe : describe.skip)("a distributed platform a test starts, on the run's broker", () => {
  it('leaves none of its topics and consumer groups there once stopped and done with', async () => {
    const prefix = `mm-leaves-nothing-${randomUUID().slice(0, 8)}`;
    const platform = await startDistributedProcesses(
      platformSettings(await cloneTemplateDatabase(), {
        KAFKA_BROKERS: runBrokers.join(','),
        MM_KAFKA_TOPIC_PREFIX: prefix,
        MM_KAFKA_SESSION_TIMEOUT_MS: '6000',
      }),
      undefined,
      ['accounts'],
    );
    // Running, it has its topics (each log it publishes or reads) and its consumer group.
    const running = await kafkaNamesUnder(runBrokers, prefix);
    expect(running.topics).toEqual(expect.arrayContaining([`${prefix}.accounts.events`, `${prefix}.gateway.events`]));
    expect(running.groups).toEqual([`${prefix}.accounts`]);
    await platform.stop();
    // As the file's end does (a platform's names outlive its stop: others on its database share them).
    await removeStartedKafkaNames();
    expect(await kafkaNamesUnder(runBrokers, prefix)).toEqual({ topics: [], groups: [] });
  });
});

(unavailable ? describe.skip : describe)('a Kafka broker taken away for some seconds and brought back', () => {
  const SERVICES = ['accounts', 'cash-in'];
  let broker: OutageBroker | undefined;
  let platform: PlatformHandle | undefined;

  beforeAll(async () => {
    broker = await OutageBroker.start();
    platform = await startDistributedProcesses(
      platformSettings(await cloneTemplateDatabase(), {
        KAFKA_BROKERS: broker.address,
        MM_KAFKA_SESSION_TIMEOUT_MS: '6000',
        MM_LOG_LEVEL: 'info',
      }),
      undefined,
      SERVICES,
    );
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    // The broker comes back first, should a test have left it away: the platform's names are deleted on it
    // before it goes for good.
    await broker?.resume();
    await platform?.stop();
    await removeStartedKafkaNames();
    await broker?.stop();
  });

  it("starts without kafkajs' warning that the relays' producers limit their retries, nor any other", () => {
    const output = platform!.output!();
    expect(output).not.toMatch(/limiting retries for the idempotent producer/i);
    expect(logLines(output).filter((line) => line.level >= 40)).toEqual([]);
  });

  it('is one warning per service when it goes, one line with its duration when it is back, the duration on /metrics, and nothing lost', async () => {
    const base = platform!.url;
    const urls = processUrls(platform!.output!());
    const processes = ['gateway', ...SERVICES];
    expect([...urls.keys()].sort()).toEqual([...processes].sort());
    const before = platform!.output!().length;
    const during = () => logLines(platform!.output!().slice(before));
    const saidBy = (kind: 'began' | 'ended') =>
      new Set(
        during()
          .filter((l) => l.fields.kafkaOutage === kind)
          .map((l) => l.service),
      );

    const awayAt = Date.now();
    await broker!.suspend();
    // Events appended while the broker is away: a project and a key pair, in the gateway's log, which the
    // accounts and cash-in services consume (they learn API keys from it). The gateway's relay meets the
    // outage when it sends them; the consumers meet it at their next fetch.
    const project = await admin(base, '/projects', { name: 'made during a Kafka outage' });
    const { apiKey } = await admin(base, `/projects/${project.id}/api-keys`);
    await eventually(async () => (saidBy('began').size === processes.length ? true : undefined), 60_000);
    // The outage's length is the test's stimulus: long enough for every client's reconnects to fail a few
    // times (today each logged an error), not a wait for anything.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, awayAt + 6_000 - Date.now())));
    await broker!.resume();
    const backAt = Date.now();
    await eventually(async () => (saidBy('ended').size === processes.length ? true : undefined), 90_000);

    // Nothing lost: the key pair made during the outage reached each consumer, once.
    const [created] = await platform!.dataSource.query<{ event_id: string }>(
      `SELECT event_id FROM gateway.events WHERE type = 'apiKey.created' AND data->>'apiKey' = $1`,
      [apiKey],
    );
    await eventually(async () => {
      const rows = await platform!.dataSource.query<{ consumer_group: string }>(
        `SELECT consumer_group FROM platform.processed_events WHERE event_id = $1`,
        [created.event_id],
      );
      return rows.length === SERVICES.length ? rows : undefined;
    }, 60_000);

    const lines = during();
    for (const service of processes) {
      const own = lines.filter((line) => line.service === service);
      // One warning, when it began; no error; one line (info) when it ended, with the outage's duration.
      expect({ service, warnings: own.filter((l) => l.level >= 40).map((l) => l.fields.kafkaOutage ?? l.msg) }).toEqual(
        { service, warnings: ['began'] },
      );
      const ended = own.filter((l) => l.fields.kafkaOutage === 'ended');
      expect(ended).toHaveLength(1);
      expect(ended[0].level).toBe(30);
      const seconds = Number(ended[0].fields.outageSeconds);
      expect(ended[0].msg).toContain(`after an outage of ${seconds.toFixed(1)} s`);
      // Within the time the broker was away and the time since: it began after the broker went, ended after it came back.
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual((Date.now() - awayAt) / 1000);
      expect(seconds).toBeGreaterThanOrEqual((backAt - awayAt) / 1000 - 5);

      // The same outage on the service's own /metrics: one, of that duration; and nothing unreachable now.
      const metrics = await (await fetch(`${urls.get(service)}/metrics`)).text();
      expect(sample(metrics, 'mm_kafka_outage_seconds_count')).toBe(1);
      expect(sample(metrics, 'mm_kafka_outage_seconds_sum')).toBeCloseTo(seconds, 3);
      expect(sample(metrics, 'mm_kafka_broker_unreachable_seconds')).toBe(0);
    }
  });
});
