// CPU time per operation of the processes that do a scenario's work, beside its ratio: on a machine
// that other work shares, requests per second move with the other work, but the CPU an operation costs
// does not (much). Read from /proc (Linux); elsewhere, or when the processes are not known, not shown.
//   platform   the platform's process (its HTTP handling, its commands and its log readers)
//   bench      this process (the raw references' pg clients and every load loop)
//   postgres   every backend of the cluster (the postmaster's children), whoever's
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface CpuTimes {
  platform: number;
  bench: number;
  postgres: number;
}

interface Probe {
  platformPid?: number;
  postmasterPid?: number;
}

const probe: Probe = {};

/** The processes to account: the platform's pid, and the cluster's data directory (its postmaster.pid). */
export function watchCpu(platformPid: number | undefined, clusterDir: string | undefined): void {
  probe.platformPid = platformPid;
  if (clusterDir) {
    try {
      probe.postmasterPid = Number(readFileSync(`${clusterDir}/postmaster.pid`, 'utf8').split('\n')[0]);
    } catch {
      probe.postmasterPid = undefined;
    }
  }
}

/**
 * utime + stime of one process in ms, its ended children's (those it waited for: a backend whose
 * connection closed), and its parent's pid; undefined when it is gone or unreadable.
 */
function stat(pid: number | string): { ms: number; children: number; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      children: (Number(fields[13]) + Number(fields[14])) * TICK_MS,
    };
  } catch {
    return undefined;
  }
}

/** Cumulative CPU ms of one process (a reference running in a process of its own); undefined when unreadable. */
export function processCpuMs(pid: number | undefined): number | undefined {
  return pid === undefined ? undefined : stat(pid)?.ms;
}

/** Cumulative CPU ms of each side now; undefined where it cannot be read. */
export function cpuNow(): Partial<CpuTimes> {
  const usage = process.cpuUsage();
  const times: Partial<CpuTimes> = { bench: (usage.user + usage.system) / 1000 };
  if (probe.platformPid) times.platform = stat(probe.platformPid)?.ms;
  if (probe.postmasterPid) {
    // The postmaster, the backends that ended (counted in it once it has waited for them) and the live ones.
    const postmaster = stat(probe.postmasterPid);
    if (postmaster) {
      let total = postmaster.ms + postmaster.children;
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry)) continue;
        const s = stat(entry);
        if (s && s.ppid === probe.postmasterPid) total += s.ms;
      }
      times.postgres = total;
    }
  }
  return times;
}

/** CPU ms per operation between two readings. */
export function cpuPerOp(before: Partial<CpuTimes>, after: Partial<CpuTimes>, ops: number): Partial<CpuTimes> {
  const per: Partial<CpuTimes> = {};
  for (const key of ['platform', 'bench', 'postgres'] as const) {
    const a = before[key];
    const b = after[key];
    if (a !== undefined && b !== undefined && ops > 0) per[key] = (b - a) / ops;
  }
  return per;
}

/** "platform 4.1 + postgres 3.2 ms" (what was readable). */
export function cpuText(per: Partial<CpuTimes> | undefined, sides: Array<keyof CpuTimes>): string {
  if (!per) return '-';
  const parts = sides.filter((s) => per[s] !== undefined).map((s) => `${s} ${per[s]!.toFixed(1)}`);
  return parts.length > 0 ? `${parts.join(' + ')} ms` : '-';
}

/**
 * BENCH_PROFILE_CMD: a shell command started as each measured window of the platform's side begins and
 * sent SIGINT as it ends (its exit awaited), for a profiler that samples the whole machine only while the
 * platform is under load, for example `perf record -a -g -e cpu-clock -o /tmp/perf.data` with the platform
 * started under --perf-basic-prof (BENCH_PLATFORM_NODE_ARGS). BENCH_SCENARIO and BENCH_WINDOW_CLIENTS
 * tell it which window it is. Returns the function that ends it.
 */
export function profileWindow(scenario: string, clients: number): () => Promise<void> {
  const command = process.env.BENCH_PROFILE_CMD;
  if (!command) return async () => undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const child = spawn('sh', ['-c', `exec ${command}`], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_SCENARIO: scenario, BENCH_WINDOW_CLIENTS: String(clients) },
  });
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
}
