// A Kafka broker for the test run (ADR 0012): KAFKA_BROKERS when it is set,
// else the project's librdkafka mock broker (tools/kafka-mock) on a loopback
// port behind the stock-broker proxy (tools/kafka-mock/stock-broker-proxy.ts),
// which holds every client to a stock broker's rules the mock does not
// enforce; the proxy's address is exported as KAFKA_BROKERS to the test
// workers. With neither, the Kafka suites report themselves skipped. On the
// run's own broker, whatever topic or consumer group is left when the run ends
// is a test that did not delete what it made (issue 42): global teardown says so.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';
import { startStockBrokerProxy } from '../kafka-mock/stock-broker-proxy';

const dir = join(__dirname, '..', 'kafka-mock');

/**
 * Which build of the mock: `patched`, the system's librdkafka release built from source with the project's
 * patches (tools/kafka-mock/build.sh: a fetch's offset looked up from the end of the log, a group member's
 * repeated request answered where the release aborts the broker, and each new group member given an id of its
 * own where the release reuses a freed member's), what the test suite and the fault run use wherever it can be
 * built; `system`, on the system's librdkafka as released, where it cannot (no network for
 * the source).
 */
export type MockBuild = 'system' | 'patched';

const binaryOf = (build: MockBuild) => join(dir, 'build', build === 'patched' ? 'kafka-mock-patched' : 'kafka-mock');

export interface TestKafka {
  /** Every topic and consumer group on the run's own broker. */
  contents?(): Promise<{ topics: string[]; groups: string[] }>;
  stop(): Promise<void>;
}

export interface MockBroker extends TestKafka {
  /** host:port of the mock itself. */
  address: string;
  build: MockBuild;
  /** Its process, for a test that stops and continues it (SIGSTOP, SIGCONT). */
  pid: number;
  /** Resolves once the mock keeps every message of the topic (it lifts each new topic's limits within moments). */
  retained(topic: string): Promise<void>;
}

export async function startTestKafka(log: (line: string) => void): Promise<TestKafka | undefined> {
  if (process.env.KAFKA_BROKERS) {
    log('using Kafka at KAFKA_BROKERS');
    return undefined;
  }
  const mock = await startMockBroker(log, preferredBuild(log));
  if (!mock) return undefined;
  try {
    const proxy = await startStockBrokerProxy({ upstream: mock.address, log: (line) => log(line) });
    process.env.KAFKA_BROKERS = proxy.address;
    log(
      `Kafka mock broker (librdkafka, ${mock.build === 'patched' ? 'patched' : "the system's"}) at ${proxy.address} for this run, behind the stock-broker proxy`,
    );
    return {
      contents: async () => {
        const admin = new Kafka({
          clientId: 'mm-test-run',
          brokers: [proxy.address],
          logLevel: logLevel.NOTHING,
        }).admin();
        await admin.connect();
        try {
          const [topics, { groups }] = await Promise.all([admin.listTopics(), admin.listGroups()]);
          return { topics: topics.sort(), groups: groups.map((g) => g.groupId).sort() };
        } finally {
          await admin.disconnect();
        }
      },
      stop: async () => {
        await proxy.close();
        await mock.stop();
      },
    };
  } catch (error) {
    await mock.stop();
    throw error;
  }
}

/** The patched build where it can be made (.ci/run makes it beside the install), else the system's, saying why. */
export function preferredBuild(log: (line: string) => void): MockBuild {
  const why = buildMockBroker('patched');
  if (!why) return 'patched';
  log(`the patched mock broker cannot be built, the run goes on over the system's (${why})`);
  return 'system';
}

/** Builds the mock broker where needed (only when its source is newer); why it cannot be, or undefined. */
export function buildMockBroker(build: MockBuild = 'system'): string | undefined {
  const built = spawnSync(join(dir, 'build.sh'), build === 'patched' ? ['patched'] : [], { encoding: 'utf8' });
  if (built.status === 0 && existsSync(binaryOf(build))) return undefined;
  const why = (built.stderr || String(built.error ?? '')).trim().split('\n')[0] || `exit status ${built.status}`;
  const needs =
    build === 'patched' ? 'a C compiler, make and the librdkafka source' : 'a C compiler and librdkafka-dev';
  return `tools/kafka-mock/build.sh${build === 'patched' ? ' patched' : ''}, which needs ${needs}, failed: ${why}`;
}

/** The librdkafka mock broker alone, or undefined (logged) where it cannot be built. */
export async function startMockBroker(
  log: (line: string) => void,
  build: MockBuild = 'system',
): Promise<MockBroker | undefined> {
  const unbuildable = buildMockBroker(build);
  if (unbuildable) {
    log(`no Kafka broker: the Kafka suites are skipped (${unbuildable})`);
    return undefined;
  }
  // stdin stays open while the run lasts: the broker exits when it closes, even if Jest is killed.
  const child = spawn(binaryOf(build), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const address = await firstLine(child, lines);
  // A broker that dies mid-run fails every Kafka suite after it with timeouts that do not say why: say it here.
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const line = `the Kafka mock broker exited during the run (${signal ? `signal ${signal}` : `exit code ${code}`}); every Kafka suite after this fails`;
    log(line);
    process.stderr.write(`\n[test] ${line}\n`);
  });
  // After its address, the mock prints `retained <topic>` for each topic once it keeps all of its messages.
  const retained = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  lines.on('line', (line) => {
    const topic = /^retained (.+)$/.exec(line)?.[1];
    if (topic === undefined) return;
    retained.add(topic);
    for (const resolve of waiting.get(topic) ?? []) resolve();
    waiting.delete(topic);
  });
  return {
    address,
    build,
    pid: child.pid!,
    retained: (topic) =>
      retained.has(topic)
        ? Promise.resolve()
        : new Promise((resolve) => waiting.set(topic, [...(waiting.get(topic) ?? []), resolve])),
    stop: async () => {
      // Gone already (exited, or killed by a signal, which leaves exitCode null): no 'exit' is coming.
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function firstLine(child: ChildProcess, lines: ReturnType<typeof createInterface>): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('the Kafka mock broker printed no address within 10 s')), 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) =>
      fail(new Error(`the Kafka mock broker exited with ${code} before printing its address`)),
    );
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      resolve(line.trim());
    });
  });
}
