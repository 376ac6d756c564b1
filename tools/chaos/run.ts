// `npm run chaos -- --seconds N --seed S [--clients C] [--rate R]`: the fault run (docs/reliability.md). Starts the
// distributed platform with two replicas of every service behind fault proxies (cluster.ts), sets up a partner
// project, then for N seconds runs partner clients (workload.ts) while the nemesis injects the faults the seed
// plans (nemesis.ts); then heals everything, lets the platform settle (the sandbox clock moved past every
// timer) and checks what the clients saw against what the API holds (checker.ts). Prints the summary Jepsen
// prints and exits 1 on any anomaly. KAFKA_BROKERS names a one-broker Kafka to run over; without it the
// project's test broker is started, in its build that finds a fetch's offset from the log's end.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopWhenParentDies } from '@mm/runtime/platform';
import type { MockBuild } from '../jest/kafka-broker';
import { startChaosCluster } from './cluster';
import { judge, quiesce, readWorld } from './checker';
import { readerLag, type ReaderLag } from './lag';
import type { Anomaly, Operation } from './history';
import { describeFault, planFaults, runNemesis, type InjectedFault } from './nemesis';
import { seededRandom } from './seeded-random';
import { runWorkload, setUpWorkload } from './workload';

export interface ChaosOptions {
  seconds: number;
  seed: number;
  clients: number;
  /** At most this many actions a second from all the clients together (Jepsen's rate); as fast as answered without. */
  rate?: number;
  kafkaBrokers?: string;
  /** The mock broker's build where there is no KAFKA_BROKERS (cluster.ts): the command line's is `patched`. */
  mockBuild?: MockBuild;
  log?: (line: string) => void;
  /** Where each process's whole output is written (`<replica>.log`, `postgres.log`); kept only in memory without. */
  logDir?: string;
  /** Whether `meridianchain` runs on an EVM node of the run's (true unless false: `--chain 0`). */
  chain?: boolean;
}

export interface ChaosResult {
  seed: number;
  operations: Operation[];
  faults: InjectedFault[];
  anomalies: Anomaly[];
  counts: Record<string, number>;
  valid: boolean;
  /** For a run that is not valid: the log readers and consumer groups that trail their logs at the end. */
  behind?: Array<ReaderLag | string>;
  /** For a run that is not valid: the last warnings of the replicas of each service that trails. */
  lastWords?: string[];
}

/** How long the platform has to come to rest once the faults heal: five minutes, or a third of a longer run. */
export function quiesceBoundMs(seconds: number): number {
  return Math.max(300_000, Math.round((seconds * 1000) / 3));
}

/** A run from start to verdict; rejects only when the cluster cannot be set up (`unavailable: …` for a missing part). */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const log = options.log ?? (() => undefined);
  const cluster = await startChaosCluster({
    kafkaBrokers: options.kafkaBrokers,
    mockBuild: options.mockBuild,
    random: seededRandom(options.seed ^ 0x5eed),
    log,
    logDir: options.logDir,
    chain: options.chain,
  });
  try {
    const plan = planFaults({
      seed: options.seed,
      durationMs: options.seconds * 1000,
      replicas: cluster.replicas.map((r) => r.name),
      without: cluster.chain ? [] : ['partition-chain'],
    });
    log(`chaos: seed ${options.seed}, ${plan.length} faults planned over ${options.seconds} s`);
    for (const fault of plan) log(`  ${describeFault(fault)}`);
    const setup = await setUpWorkload(cluster, { seed: options.seed, log });
    try {
      const startedAt = Date.now();
      const end = startedAt + options.seconds * 1000;
      const [operations, faults] = await Promise.all([
        runWorkload(setup, {
          seed: options.seed,
          clients: options.clients,
          rate: options.rate,
          until: () => Date.now() >= end,
          log,
        }),
        runNemesis(cluster, plan, { startedAt, log }),
      ]);
      log('chaos: healing every link and process');
      await cluster.heal();
      // A platform that fell behind its workload needs time in proportion to the run to catch up.
      // And it has not come to rest while a reader of a log or a topic still trails it.
      const settled = await quiesce(setup, {
        log,
        timeoutMs: quiesceBoundMs(options.seconds),
        behind: async () =>
          (await readerLag(cluster.databaseUrl, cluster.kafkaBrokers, cluster.kafkaPrefix)).map((lag) =>
            typeof lag === 'string' ? lag : `${lag.reader} ${lag.behind} behind ${lag.source}`,
          ),
      });
      const world = await readWorld(setup);
      // What the checker read and judged, for a look afterwards.
      if (options.logDir)
        writeFileSync(join(options.logDir, 'world.json'), detailText({ world, operations }, Infinity));
      const { anomalies, counts } = judge(world, operations);
      // A platform that never comes to rest after the faults heal is itself an anomaly, whatever else it shows.
      if (!settled)
        anomalies.unshift({
          kind: 'not-settled',
          message: `transactions, deliveries or arrivals still changed at the end of the quiesce bound (${quiesceBoundMs(options.seconds) / 1000} s)`,
        });
      const valid = anomalies.length === 0;
      // Where it is behind, read before the cluster goes: the first thing to look at in a run that did not settle.
      const behind = valid
        ? undefined
        : await readerLag(cluster.databaseUrl, cluster.kafkaBrokers, cluster.kafkaPrefix);
      // And what the replicas of a service that trails last said: why it stopped reading, when it says so.
      const trailing = new Set(
        (behind ?? []).flatMap((lag) => (typeof lag === 'string' ? [] : [lag.reader.split('.').at(-1)!])),
      );
      const lastWords = cluster.replicas
        .filter((replica) => trailing.has(replica.service))
        .flatMap((replica) => replica.warnings(4).map((line) => `${replica.name}: ${line.slice(0, 400)}`));
      return { seed: options.seed, operations, faults, anomalies, counts, valid, behind, lastWords };
    } finally {
      await setup.close();
    }
  } finally {
    await cluster.stop();
  }
}

/** How many of each, as `a 3, b 1`, most first. */
function tally(items: string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([item, n]) => `${item} ${n}`)
    .join(', ');
}

/** JSON that money in bigint units survives; an anomaly's detail can hold whole resources: its first 2,000 characters. */
export function detailText(detail: unknown, limit = 2_000): string {
  const text = JSON.stringify(detail, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(detail);
  return text.length > limit ? `${text.slice(0, limit)}… (${text.length} characters)` : text;
}

/** The summary in Jepsen's form: operations by outcome, faults by kind, anomalies by kind with the first few in full. */
export function summary(result: ChaosResult, firstFew = 3): string {
  const { operations, faults, anomalies } = result;
  const byOutcome = (outcome: string) => operations.filter((o) => o.outcome === outcome);
  const lines = [
    `operations: ${operations.length} (${tally(operations.map((o) => o.outcome))})`,
    ...['ok', 'failed', 'unknown'].map((outcome) => {
      const of = byOutcome(outcome);
      return `  ${outcome.padEnd(8)}${of.length === 0 ? 'none' : tally(of.map((o) => o.kind))}`;
    }),
    `faults: ${faults.length}${faults.length > 0 ? ` (${tally(faults.map((f) => f.fault.kind))})` : ''}`,
    ...faults.filter((f) => f.error).map((f) => `  not as planned: ${describeFault(f.fault)}: ${f.error}`),
    `anomalies: ${anomalies.length}${anomalies.length > 0 ? ` (${tally(anomalies.map((a) => a.kind))})` : ''}`,
  ];
  for (const kind of new Set(anomalies.map((a) => a.kind))) {
    for (const anomaly of anomalies.filter((a) => a.kind === kind).slice(0, firstFew)) {
      lines.push(`  ${kind}: ${anomaly.message}`);
      if (anomaly.detail !== undefined) lines.push(`    ${detailText(anomaly.detail)}`);
    }
  }
  for (const lag of result.behind ?? [])
    lines.push(
      typeof lag === 'string' ? `  behind: ${lag}` : `  behind: ${lag.reader} trails ${lag.source} by ${lag.behind}`,
    );
  for (const line of result.lastWords ?? []) lines.push(`  last said: ${line}`);
  if (Object.keys(result.counts).length > 0)
    lines.push(
      `checked: ${Object.entries(result.counts)
        .map(([what, n]) => `${what} ${n}`)
        .join(', ')}`,
    );
  lines.push(
    `chaos: ${result.valid ? 'valid' : 'invalid'}, ${operations.length} operations, ${faults.length} faults, ` +
      `${anomalies.length} anomalies, seed ${result.seed}`,
  );
  return lines.join('\n');
}

/**
 * From a run's output, its summary's anomalies for a failure report: where the platform was behind and what the
 * replicas of a service that trails last said first, since they tell why and a report that cuts a long message
 * keeps only its ends; then the anomalies by kind, the first few of each. At most `most` lines of each.
 */
export function anomalyLines(output: string, most = 40): string {
  const lines = output.split('\n');
  const from = lines.findIndex((line) => line.startsWith('anomalies: '));
  if (from < 0) return '(no summary)';
  const to = lines.findIndex((line, i) => i > from && /^(checked|chaos): /.test(line));
  const anomalies = lines.slice(from, to < 0 ? undefined : to);
  const diagnosis = (line: string) => /^ {2}(behind|last said): /.test(line);
  return [...anomalies.filter(diagnosis).slice(0, most), ...anomalies.filter((line) => !diagnosis(line)).slice(0, most)]
    .map((line) => line.slice(0, 600))
    .join('\n');
}

const USAGE = 'usage: npm run chaos -- [--seconds N] [--seed S] [--clients C] [--rate R] [--chain 0|1]';

/** --seconds (60), --seed (a random one, printed), --clients (6), --rate (none: as fast as answered), --chain (1). */
export function parseArguments(args: string[]): ChaosOptions {
  const options: ChaosOptions = { seconds: 60, seed: Math.floor(Math.random() * 2 ** 31), clients: 6 };
  for (let i = 0; i < args.length; i += 2) {
    const [name, value] = [args[i], args[i + 1]];
    const number = Number(value);
    if (value === undefined || !/^\d+$/.test(value)) throw new Error(`${name} needs a whole number\n${USAGE}`);
    if (name === '--seconds' && number > 0) options.seconds = number;
    else if (name === '--seed') options.seed = number;
    else if (name === '--clients' && number > 0) options.clients = number;
    else if (name === '--rate' && number > 0) options.rate = number;
    else if (name === '--chain' && number <= 1) options.chain = number === 1;
    else throw new Error(`unknown or out of range: ${name} ${value}\n${USAGE}`);
  }
  return options;
}

async function main(): Promise<void> {
  let options: ChaosOptions;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  // Stopped (Ctrl-C) or left by the process that started it: the cluster's processes go with this one (its exit
  // kills their groups, and each one's watchdog sees this process gone).
  const abandon = (reason: string) => {
    process.stderr.write(`chaos: stopped: ${reason}\n`);
    process.exit(130);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => abandon(signal));
  stopWhenParentDies(abandon);
  const began = Date.now();
  // Each line stamped with the time since the start, minutes and seconds: where a long run spends its time.
  const log = (line: string) => {
    const seconds = Math.floor((Date.now() - began) / 1000);
    const stamp = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
    process.stdout.write(`[${stamp}] ${line}\n`);
  };
  log(`chaos: seed ${options.seed} (replay: npm run chaos -- --seconds ${options.seconds} --seed ${options.seed})`);
  // Every process's output, every anomaly and fault in full, beside the summary's first few.
  const logDir = join(tmpdir(), `mm-chaos-${options.seed}`);
  rmSync(logDir, { recursive: true, force: true });
  const result = await runChaos({
    ...options,
    kafkaBrokers: process.env.KAFKA_BROKERS || undefined,
    // A run of any length: the released mock's fetch cost grows with the log (tools/kafka-mock/build.sh).
    mockBuild: 'patched',
    log,
    logDir,
  });
  const report = join(logDir, 'report.json');
  const { anomalies, faults, behind } = result;
  writeFileSync(report, detailText({ anomalies, faults, behind }, Infinity));
  log(`every anomaly and fault in ${report}, each process's output beside it`);
  // Unstamped and last: the summary is read by tools, its last line (the verdict) first of all.
  process.stdout.write(`${summary(result)}\n`);
  process.exit(result.valid ? 0 : 1);
}

if (require.main === module)
  main().catch((error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
