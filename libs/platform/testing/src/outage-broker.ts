// A Kafka broker that a test may take away and bring back (issue 42: a broker
// outage as the services log and measure it, ADR 0060): the project's mock
// behind the stock-broker proxy, of the test's own, in a process of its own
// (tools/kafka-mock/outage-broker.ts) that this drives over its stdin. Taking
// the run's broker away would disturb every other test file using it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { ROOT } from './container-engine';

/** Why there can be no such broker here (the mock cannot be built: no C compiler or librdkafka-dev), or undefined. */
export function outageBrokerUnavailable(): string | undefined {
  const build = spawnSync(join(ROOT, 'tools', 'kafka-mock', 'build.sh'), { encoding: 'utf8' });
  if (build.status === 0) return undefined;
  return `tools/kafka-mock/build.sh: ${(build.stderr || String(build.error ?? build.status)).trim().split('\n')[0]}`;
}

export class OutageBroker {
  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: Interface,
    /** host:port, for KAFKA_BROKERS. */
    readonly address: string,
  ) {}

  static async start(): Promise<OutageBroker> {
    // Its stdin is a pipe from this process: it stops when this process ends, however it ends.
    const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/kafka-mock/outage-broker.ts'], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    const first = await OutageBroker.next(lines, child);
    if (!/^[\w.-]+:\d+$/.test(first)) {
      child.stdin!.end();
      throw new Error(`the outage broker did not start: ${first}`);
    }
    return new OutageBroker(child, lines, first);
  }

  private static next(lines: Interface, child: ChildProcess): Promise<string> {
    return new Promise((resolve, reject) => {
      const exited = () => reject(new Error(`the outage broker exited (${child.exitCode ?? child.signalCode})`));
      child.once('exit', exited);
      lines.once('line', (line) => {
        child.off('exit', exited);
        resolve(line.trim());
      });
    });
  }

  /** Takes the broker away (connections refused, those open closed), as a broker that stops does; resolves once it is. */
  suspend(): Promise<void> {
    return this.command('suspend');
  }

  /** Brings it back on the same address, its topics, offsets and groups as they were. */
  resume(): Promise<void> {
    return this.command('resume');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    await exited;
  }

  private async command(command: 'suspend' | 'resume'): Promise<void> {
    const answer = OutageBroker.next(this.lines, this.child);
    this.child.stdin!.write(`${command}\n`);
    const answered = await answer;
    if (answered !== command) throw new Error(`the outage broker answered ${answered} to ${command}`);
  }
}
