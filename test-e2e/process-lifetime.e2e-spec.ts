// Issue 17: nothing a test starts may outlive it. A distributed start that the
// test gives up on (its hook timed out), that fails, or whose test process is
// killed outright must leave no gateway or service process running.
import { readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cloneTemplateDatabase, kafkaTestPrefix, removeKafkaNames } from '@mm/platform/testing';
import { brokerList, startDistributedProcesses, stopLeftovers } from './support/distributed-processes';
import { platformSettings } from './support/settings';
import { eventually } from './support/test-platform';

const ROOT = join(__dirname, '..');

/** The processes of a process group that are still alive (zombies count as gone). */
function members(group: number): number[] {
  const alive: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === group && state !== 'Z') alive.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return alive;
}

/** Processes that run with this database (their environment names it), with their command lines. */
function runningOn(databaseUrl: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'utf8').includes(databaseUrl)) continue;
      found.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The gateway and services of a start:distributed whose group is `group`, once they are running. */
const servicesStarted = (group: number) =>
  eventually(async () => (members(group).length >= 4 ? true : undefined), 60_000);

const gone = (group: number) => eventually(async () => (members(group).length === 0 ? true : undefined), 30_000);

describe('processes a test starts', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await cloneTemplateDatabase();
  });

  it('all stop with a start the file gave up on, when the file ends', async () => {
    const starting = startDistributedProcesses(platformSettings(databaseUrl));
    const outcome = starting.then(
      () => 'started',
      (error: Error) => error.message,
    );
    // The start is under way: start:distributed has launched its services.
    const group = await eventually(
      async () => runningOn(databaseUrl).find((p) => p.cmdline.includes('start-distributed.ts'))?.pid,
      60_000,
    );
    await servicesStarted(group);
    // The file ends without the start having resolved (its beforeAll timed out): the environment stops what it
    // left, and deletes the Kafka names of what the file started.
    for (const { prefix, brokers } of await stopLeftovers()) await removeKafkaNames(brokers, prefix);
    await gone(group);
    // A start that is stopped never reports a platform.
    expect(await outcome).not.toBe('started');
  }, 120_000);

  it('all stop when the test process is killed outright', async () => {
    // On Kafka, names of this test's own: the killed process cannot remove them, so this one does.
    const brokers = brokerList(process.env.KAFKA_BROKERS);
    const prefix = kafkaTestPrefix('killed');
    const test = spawn(process.execPath, ['-r', './tools/register.js', 'test-e2e/support/tied-start.fixture.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...platformSettings(databaseUrl),
        PORT: '0',
        ...(brokers.length > 0 ? { MM_KAFKA_TOPIC_PREFIX: prefix } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    test.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const group = await eventually(
      async () => (/^\d+\n/.test(printed) ? Number(printed.split('\n')[0]) : undefined),
      30_000,
    );
    await servicesStarted(group);
    test.kill('SIGKILL');
    await gone(group);
    if (brokers.length > 0) await removeKafkaNames(brokers, prefix);
  }, 120_000);

  it('all stop when the start fails', async () => {
    // The services start; the gateway cannot listen on an address this machine does not have, and
    // start:distributed gives up.
    await expect(startDistributedProcesses(platformSettings(databaseUrl, { HOST: '192.0.2.1' }))).rejects.toThrow(
      /start:distributed failed/,
    );
    // Nothing of the failed start is left, with nothing else to stop it.
    expect(runningOn(databaseUrl)).toEqual([]);
  }, 120_000);
});
