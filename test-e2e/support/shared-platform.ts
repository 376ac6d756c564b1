// One multi-process platform for the whole e2e-distributed run (issue 17: CI
// time). Six Node processes take tens of seconds of CPU to start, so the files
// that neither kill processes nor need settings of their own share one:
// `TestPlatform.shared()` attaches to it with a project of the file's own
// (projects are the platform's tenancy boundary, so files cannot see each
// other's data or move each other's sandbox clocks).
//
// The e2e-distributed project's global setup starts it in the background and
// goes on: Jest runs other files meanwhile, and the first file that needs it
// waits. The state travels to the workers in a JSON file named by
// MM_E2E_SHARED_STATE; the processes' output in a log file beside it. The
// platform lives in Jest's main process's tree (tied to it by the lifeline:
// distributed-processes.ts), and global teardown stops it.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answeringEngine, cloneTemplateDatabase, containersMode, ensureImages } from '@mm/platform/testing';
import { removeStartedKafkaNames, startDistributedProcesses, type PlatformHandle } from './distributed-processes';
import { distributedKafka, platformSettings } from './settings';

/** The platform's image, built from this tree (its layers cached by the engine between runs). */
async function platformImage(): Promise<string> {
  const engine = await answeringEngine();
  if (!engine.available) throw new Error(`MM_E2E_CONTAINERS=1 needs a container engine: ${engine.reason}`);
  return (await ensureImages(engine)).platform;
}

export const SHARED_STATE_VARIABLE = 'MM_E2E_SHARED_STATE';
/** The shared platform's whole start: its migrations and then every service's ten minutes (below). */
const SHARED_START_BOUND_MS = 15 * 60_000;

export interface SharedState {
  status: 'starting' | 'ready' | 'failed';
  url?: string;
  databaseUrl?: string;
  /** The variables it runs with (the Kafka prefix, for settle()). */
  settings?: Record<string, string>;
  logFile: string;
  error?: string;
}

const held = globalThis as unknown as {
  __mmSharedPlatform?: { dir: string; starting: Promise<PlatformHandle | undefined> };
};

function write(file: string, state: SharedState): void {
  // Whole or not at all: a worker never reads half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

/** Jest's main process, global setup: starts the shared platform and returns at once. */
export async function startSharedPlatform(): Promise<void> {
  if (held.__mmSharedPlatform) return;
  const dir = mkdtempSync(join(tmpdir(), 'mm-e2e-shared-'));
  const stateFile = join(dir, 'state.json');
  const logFile = join(dir, 'platform.log');
  writeFileSync(logFile, '');
  write(stateFile, { status: 'starting', logFile });
  process.env[SHARED_STATE_VARIABLE] = stateFile;
  const starting = (async () => {
    const databaseUrl = await cloneTemplateDatabase();
    // Many files take tokens from the one loopback address at once: the token limit is other files' to test.
    // Its start begins with the run, beside the image builds, the browser tests and the first platforms, when the
    // machine is at its busiest, and no file asks for it until much later: each service may take ten minutes to be
    // ready rather than the two a file's own start gets (a CI run saw a service take more than two).
    const settings = platformSettings(databaseUrl, {
      ...distributedKafka(databaseUrl),
      MM_TOKEN_RATE_LIMIT: '1000000',
      MM_READY_TIMEOUT_SECS: '600',
    });
    // Containers mode (MM_E2E_CONTAINERS=1): every service a container of the image built from this tree.
    const image: Record<string, string> = containersMode() ? { MM_SERVICE_IMAGE: await platformImage() } : {};
    const handle = await startDistributedProcesses(
      { ...settings, ...image },
      (text) => appendFileSync(logFile, text),
      undefined,
      SHARED_START_BOUND_MS,
    );
    write(stateFile, { status: 'ready', url: handle.url, databaseUrl, settings, logFile });
    return handle;
  })().catch((error: unknown) => {
    write(stateFile, { status: 'failed', logFile, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  });
  held.__mmSharedPlatform = { dir, starting };
}

/** Jest's main process, global teardown. */
export async function stopSharedPlatform(): Promise<void> {
  const shared = held.__mmSharedPlatform;
  if (!shared) return;
  held.__mmSharedPlatform = undefined;
  const handle = await shared.starting;
  try {
    await handle?.stop();
    await removeStartedKafkaNames();
  } finally {
    rmSync(shared.dir, { recursive: true, force: true });
  }
}

/** A worker: the shared platform once it is up; undefined when this run has none. */
export async function sharedPlatformState(): Promise<SharedState | undefined> {
  const file = process.env[SHARED_STATE_VARIABLE];
  // The shared platform is not behind PgBouncer: a file of the e2e-pgbouncer project starts its own.
  if (!file || !existsSync(file) || process.env.MM_E2E_POOLER) return undefined;
  // The start's own limit, and the time to clone the template before it.
  const deadline = Date.now() + SHARED_START_BOUND_MS + 30_000;
  for (;;) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as SharedState;
    if (state.status === 'ready') return state;
    if (state.status === 'failed') throw new Error(`the shared distributed platform did not start: ${state.error}`);
    if (Date.now() > deadline)
      throw new Error(
        `the shared distributed platform is still starting after ${(SHARED_START_BOUND_MS + 30_000) / 1000} s`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
