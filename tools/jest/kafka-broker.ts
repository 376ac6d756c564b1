// A Kafka broker for the test run (ADR 0012): KAFKA_BROKERS when it is set,
// else the project's librdkafka mock broker (tools/kafka-mock) on a loopback
// port, exported as KAFKA_BROKERS to the test workers. With neither, the Kafka
// suites report themselves skipped.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const dir = join(__dirname, '..', 'kafka-mock');
const binary = join(dir, 'build', 'kafka-mock');

export interface TestKafka {
  stop(): Promise<void>;
}

export async function startTestKafka(log: (line: string) => void): Promise<TestKafka | undefined> {
  if (process.env.KAFKA_BROKERS) {
    log('using Kafka at KAFKA_BROKERS');
    return undefined;
  }
  // Rebuilds only when the source is newer; fails where librdkafka-dev is missing.
  const build = spawnSync(join(dir, 'build.sh'), { encoding: 'utf8' });
  if (build.status !== 0 || !existsSync(binary)) {
    const why = (build.stderr || String(build.error ?? '')).trim().split('\n')[0] || `exit status ${build.status}`;
    log(`no Kafka broker: the Kafka suites are skipped (tools/kafka-mock/build.sh, which needs a C compiler and librdkafka-dev, failed: ${why})`);
    return undefined;
  }
  // stdin stays open while the run lasts: the broker exits when it closes, even if Jest is killed.
  const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'inherit'] });
  const brokers = await firstLine(child);
  process.env.KAFKA_BROKERS = brokers;
  log(`Kafka mock broker (librdkafka) at ${brokers} for this run`);
  return {
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(new Error('the Kafka mock broker printed no address within 10 s')), 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      lines.close();
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`the Kafka mock broker exited with ${code} before printing its address`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      lines.close();
      resolve(line.trim());
    });
  });
}
