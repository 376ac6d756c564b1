// Who may run the embedded PostgreSQL of a data directory, and what a process
// that stopped badly left behind there. PostgreSQL's own postmaster.pid cannot
// tell a server still in use from one orphaned when the node process that
// started it was killed (the postmaster outlives its parent), so the node
// process that starts a server records itself in an owner file beside it.
import {
  linkSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** A start-up failure whose message tells the operator everything: printed without a stack trace. */
export class StartupError extends Error {
  override name = 'StartupError';
}

interface Owner {
  pid: number;
  /** The process's start time on Linux, so a recycled pid is not taken for the owner. */
  started?: string;
  stopping?: boolean;
}

interface PostmasterLock {
  pid: number;
  /** starting, ready, stopping or standby. */
  status: string;
}

export interface DataDirectoryClaim {
  /** Tells a process starting meanwhile to wait for this one instead of refusing. */
  markStopping(): void;
  release(): void;
}

// Bounds on waiting for servers to go away: a fast shutdown writes a checkpoint first.
const STOPPING_WAIT_MS = 60_000;
const FAST_SHUTDOWN_WAIT_MS = 30_000;
const IMMEDIATE_SHUTDOWN_WAIT_MS = 10_000;
const LEFTOVER_WAIT_MS = 30_000;

/** /proc/<pid>/stat: the state letter and the start time, or undefined where there is no /proc. */
function procStat(pid: number): { state: string; started: string } | undefined {
  try {
    // The command name in parentheses may itself hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], started: fields[19] };
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  // kill(0) would signal our own process group.
  if (!(pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, it is only someone else's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A zombie has exited; only its parent has not collected it yet.
  return procStat(pid)?.state !== 'Z';
}

function ownerAlive(owner: Owner): boolean {
  return isAlive(owner.pid) && (owner.started === undefined || procStat(owner.pid)?.started === owner.started);
}

/**
 * PostgreSQL processes (postmaster and children) working in clusterDir: every one of them runs with
 * it as its current directory. Undefined where the system cannot tell (no /proc).
 */
export function postgresProcessesIn(clusterDir: string): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  let dir: string;
  try {
    dir = realpathSync(clusterDir);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (
        readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres' &&
        readlinkSync(`/proc/${entry}/cwd`) === dir &&
        isAlive(Number(entry))
      ) {
        found.push(Number(entry));
      }
    } catch {
      // gone meanwhile, or another user's process: not a server of ours
    }
  }
  return found;
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function readOwner(file: string): Owner | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const owner = JSON.parse(text) as Owner;
    if (Number.isInteger(owner.pid) && owner.pid > 0) return owner;
  } catch {
    // unreadable: written by no live process of ours, as every write is atomic
  }
  return { pid: 0 };
}

function writeAtomically(file: string, owner: Owner, exclusive: boolean): void {
  const temporary = `${file}.${process.pid}`;
  writeFileSync(temporary, JSON.stringify(owner));
  try {
    // link fails if the file exists, rename replaces it; either way no reader sees half a file.
    if (exclusive) linkSync(temporary, file);
    else renameSync(temporary, file);
  } finally {
    rmSync(temporary, { force: true });
  }
}

function readPostmasterLock(clusterDir: string): PostmasterLock | undefined {
  try {
    const lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    return Number.isInteger(pid) && pid > 0 ? { pid, status: (lines[7] ?? '').trim() } : { pid: 0, status: '' };
  } catch {
    return undefined;
  }
}

const inUse = (root: string, what: string) =>
  new StartupError(
    `data directory ${root} is in use by ${what}; stop it first, or set MM_DATA_DIR to another directory`,
  );

/**
 * Makes this process the owner of root's embedded PostgreSQL, once nothing else is using it:
 * waits (bounded) for a server or owner that is stopping, stops a server orphaned by a dead
 * owner, clears a postmaster.pid whose process is gone, and refuses a directory in live use.
 */
export async function claimDataDirectory(
  root: string,
  clusterDir: string,
  notice: (line: string) => void,
): Promise<DataDirectoryClaim> {
  const file = join(root, 'pg-owner');
  const previous = readOwner(file);
  if (previous && ownerAlive(previous)) {
    if (previous.stopping) await waitUntil(() => !ownerAlive(previous), STOPPING_WAIT_MS);
    if (ownerAlive(previous))
      throw inUse(root, `another running platform process (pid ${previous.pid}), which runs its PostgreSQL`);
  }
  // Two processes clearing the same dead owner at the same instant could both go on; PostgreSQL's
  // own lock file then stops the second server.
  if (previous) rmSync(file, { force: true });
  const self: Owner = { pid: process.pid, started: procStat(process.pid)?.started };
  try {
    writeAtomically(file, self, true);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw inUse(root, `another process (pid ${readOwner(file)?.pid}) starting at the same time`);
  }
  const release = () => {
    if (readOwner(file)?.pid === process.pid) rmSync(file, { force: true });
  };
  try {
    // An unreadable owner file names no process: its server is not assumed to be an orphan.
    await clearLeftovers(root, clusterDir, previous && previous.pid > 0 ? previous.pid : undefined, notice);
  } catch (error) {
    release();
    throw error;
  }
  const markStopping = () => {
    try {
      writeAtomically(file, { ...self, stopping: true }, false);
    } catch {
      // Only a courtesy to a process starting meanwhile: never a reason not to stop the server.
    }
  };
  return { markStopping, release };
}

/** deadOwner: the pid of the process that owned the directory and is gone, if one did. */
async function clearLeftovers(
  root: string,
  clusterDir: string,
  deadOwner: number | undefined,
  notice: (line: string) => void,
): Promise<void> {
  const lock = readPostmasterLock(clusterDir);
  const processes = postgresProcessesIn(clusterDir);
  // Where /proc cannot tell, a live pid is taken for a server of this directory: refusing is safe, clearing is not.
  const serves = (pid: number) => isAlive(pid) && (processes === undefined || processes.includes(pid));
  if (lock && serves(lock.pid)) {
    const gone = () => !isAlive(lock.pid);
    if (lock.status === 'stopping') {
      notice(`waiting for the PostgreSQL server (pid ${lock.pid}) of ${clusterDir} to finish stopping`);
      await waitUntil(gone, STOPPING_WAIT_MS);
    } else if (deadOwner !== undefined && processes !== undefined) {
      notice(
        `stopping the PostgreSQL server (pid ${lock.pid}) left running in ${clusterDir} by platform process ${deadOwner}, which is gone`,
      );
      process.kill(lock.pid, 'SIGINT');
      if (!(await waitUntil(gone, FAST_SHUTDOWN_WAIT_MS))) {
        process.kill(lock.pid, 'SIGQUIT');
        await waitUntil(gone, IMMEDIATE_SHUTDOWN_WAIT_MS);
      }
    }
    if (!gone()) {
      throw inUse(
        root,
        `a PostgreSQL server (pid ${lock.pid}) ${lock.status === 'stopping' ? 'still stopping' : 'that no running platform process started'}`,
      );
    }
  }
  // A server killed outright leaves children that exit once they notice; PostgreSQL refuses to
  // start while they still hold its shared memory.
  const leftovers = () => postgresProcessesIn(clusterDir) ?? [];
  if (leftovers().length > 0) {
    notice(`waiting for the processes of a stopped PostgreSQL server in ${clusterDir} to exit`);
    if (!(await waitUntil(() => leftovers().length === 0, LEFTOVER_WAIT_MS))) {
      throw inUse(root, `PostgreSQL processes that do not exit (pids ${leftovers().join(', ')})`);
    }
  }
  // Its process is gone, or its pid now belongs to another program: PostgreSQL would take
  // the latter for a server still running.
  if (lock && !serves(lock.pid)) rmSync(join(clusterDir, 'postmaster.pid'), { force: true });
}
