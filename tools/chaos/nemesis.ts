// The fault run's nemesis (Jepsen's word): what goes wrong, when, and for how long. The schedule is a pure
// function of the seed, the run's length and the cluster's replicas, planned before the run starts, so the same
// seed replays the same faults in the same order at the same moments; only how the platform's own timing
// interleaves with them differs between two runs. One fault holds at a time, then heals, then a quiet gap
// follows: each anomaly the checker finds can be traced to the fault around it, and no fault ever takes both
// replicas of a service down at once (that would be an outage to report, not a fault to survive).
import { seededRandom } from './seeded-random';
import type { ChaosTarget, Fault, LinkKind } from './target';

export type FaultKind =
  | 'kill'
  | 'partition-postgres'
  | 'partition-kafka'
  | 'partition-chain'
  | 'latency'
  | 'reset'
  | 'slow-close'
  | 'restart-kafka'
  | 'restart-postgres-fast'
  | 'restart-postgres-immediate';

export const FAULT_KINDS: readonly FaultKind[] = [
  'kill',
  'partition-postgres',
  'partition-kafka',
  'partition-chain',
  'latency',
  'reset',
  'slow-close',
  'restart-kafka',
  'restart-postgres-fast',
  'restart-postgres-immediate',
];

/** One planned fault: at `at` ms from the start, held for `holdMs`, then healed. */
export interface PlannedFault {
  at: number;
  kind: FaultKind;
  /** The replicas it acts on (none for the broker and the database, which every replica shares). */
  replicas: string[];
  holdMs: number;
  /** The link fault put on each replica's link, for the link faults. */
  link?: { kind: LinkKind; fault: Fault };
}

export interface NemesisPlanOptions {
  seed: number;
  /** How long faults are injected, in ms; the last one heals by then. */
  durationMs: number;
  /** Every replica's name (`<service>-<index>`). */
  replicas: readonly string[];
  /** Kinds to leave out (a run without a broker of its own, or without a chain, say). */
  without?: readonly FaultKind[];
}

/** The services of these replicas, each with its replicas' names, in a stable order. */
function servicesOf(replicas: readonly string[]): Map<string, string[]> {
  const services = new Map<string, string[]>();
  for (const name of [...replicas].sort()) {
    const service = name.replace(/-\d+$/, '');
    services.set(service, [...(services.get(service) ?? []), name]);
  }
  return services;
}

/**
 * The faults of a run, in order. A partition takes a whole service (every replica) or one replica away from
 * the database, the broker or the chain's node, as a network split between nodes would; a kill takes one replica; latency,
 * resets and slow closes act on one replica's link. Holds last 1.5 to 6 s (a partition longer than the
 * clients' retries would only measure the retry budget), the quiet gaps 1 to 3 s.
 */
export function planFaults(options: NemesisPlanOptions): PlannedFault[] {
  const random = seededRandom(options.seed);
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const kinds = FAULT_KINDS.filter((kind) => !options.without?.includes(kind));
  const services = servicesOf(options.replicas);
  const serviceNames = [...services.keys()];
  const plan: PlannedFault[] = [];
  let at = between(1_000, 3_000);
  for (;;) {
    const kind = pick(kinds);
    const holdMs = between(1_500, 6_000);
    if (at + holdMs > options.durationMs) break;
    const service = pick(serviceNames);
    const one = [pick(services.get(service)!)];
    const whole = random() < 0.5 ? services.get(service)! : one;
    const fault: PlannedFault = (() => {
      switch (kind) {
        case 'kill':
          return { at, kind, replicas: one, holdMs };
        case 'partition-postgres':
          return { at, kind, replicas: whole, holdMs, link: { kind: 'postgres', fault: { kind: 'blackhole' } } };
        case 'partition-kafka':
          return { at, kind, replicas: whole, holdMs, link: { kind: 'kafka', fault: { kind: 'blackhole' } } };
        case 'partition-chain':
          return { at, kind, replicas: whole, holdMs, link: { kind: 'chain', fault: { kind: 'blackhole' } } };
        case 'latency': {
          const linkKind: LinkKind = random() < 0.7 ? 'postgres' : 'kafka';
          const fault: Fault = { kind: 'latency', ms: between(20, 250), jitterMs: between(0, 100) };
          return { at, kind, replicas: whole, holdMs, link: { kind: linkKind, fault } };
        }
        case 'reset':
          return { at, kind, replicas: one, holdMs, link: { kind: pick(['postgres', 'kafka']), fault: { kind } } };
        case 'slow-close':
          return {
            at,
            kind,
            replicas: one,
            holdMs,
            link: { kind: pick(['postgres', 'kafka']), fault: { kind: 'slowClose', ms: between(500, 3_000) } },
          };
        case 'restart-kafka':
        case 'restart-postgres-fast':
        case 'restart-postgres-immediate':
          return { at, kind, replicas: [], holdMs };
      }
    })();
    plan.push(fault);
    at += holdMs + between(1_000, 3_000);
  }
  return plan;
}

/** One line for a planned fault, as the run's log and summary show it. */
export function describeFault(fault: PlannedFault): string {
  const on = fault.replicas.length > 0 ? ` ${fault.replicas.join(',')}` : '';
  const link = fault.link ? ` ${fault.link.kind} ${JSON.stringify(fault.link.fault)}` : '';
  return `+${(fault.at / 1000).toFixed(1)}s ${fault.kind}${on}${link} for ${(fault.holdMs / 1000).toFixed(1)}s`;
}

/** A fault as it happened: its plan, when it began and healed, and what failed in injecting or healing it. */
export interface InjectedFault {
  fault: PlannedFault;
  began: number;
  healed?: number;
  error?: string;
}

async function inject(target: ChaosTarget, fault: PlannedFault): Promise<void> {
  switch (fault.kind) {
    case 'kill':
      return void (await Promise.all(fault.replicas.map((r) => target.kill(r))));
    case 'restart-kafka':
      return target.restartKafka(fault.holdMs);
    case 'restart-postgres-fast':
      return target.restartPostgres('fast');
    case 'restart-postgres-immediate':
      return target.restartPostgres('immediate');
    default:
      await Promise.all(fault.replicas.map((r) => target.fault(r, fault.link!.kind, fault.link!.fault)));
  }
}

async function heal(target: ChaosTarget, fault: PlannedFault): Promise<void> {
  switch (fault.kind) {
    case 'kill':
      return void (await Promise.all(fault.replicas.map((r) => target.restart(r))));
    case 'restart-kafka':
    case 'restart-postgres-fast':
    case 'restart-postgres-immediate':
      // Each is over once its restart has returned.
      return;
    default:
      await Promise.all(fault.replicas.map((r) => target.fault(r, fault.link!.kind, null)));
  }
}

/**
 * Runs the plan against the cluster in real time from `startedAt` (ms since the epoch): each fault at its
 * moment, held, then healed, one after the other; a restart of the database or broker is its own hold. A
 * fault that cannot be injected or healed is recorded and the run goes on: the final heal and the checker judge
 * what it left.
 */
export async function runNemesis(
  target: ChaosTarget,
  plan: readonly PlannedFault[],
  options: { startedAt: number; log?: (line: string) => void },
): Promise<InjectedFault[]> {
  const log = options.log ?? (() => undefined);
  const done: InjectedFault[] = [];
  const until = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, options.startedAt + ms - Date.now())));
  for (const fault of plan) {
    await until(fault.at);
    const record: InjectedFault = { fault, began: Date.now() - options.startedAt };
    done.push(record);
    log(`nemesis: ${describeFault(fault)}`);
    try {
      await inject(target, fault);
      await until(fault.at + fault.holdMs);
      await heal(target, fault);
      record.healed = Date.now() - options.startedAt;
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      log(`nemesis: ${fault.kind} failed: ${record.error}`);
    }
  }
  return done;
}
