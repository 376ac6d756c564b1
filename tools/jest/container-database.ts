// The e2e-containers Jest project's PostgreSQL (jest.config.js): one container for the project, started by
// testcontainers as the e2e tier's containers mode starts the run's (startPostgresContainer), with a migrated
// template in it. Every file of the project clones its databases from that template, and so does every process a
// file starts (tools/jest/containers-mode.js).
//
// Jest runs every project's global setup before the first file of the run. Where the image is missing it is built
// first (minutes on two cores: Debian's PostgreSQL installed from the mirror); even where it is present, the start
// takes seconds. So the project's global setup starts the container in the background and returns at once: the
// run goes on meanwhile, the project's files come after the e2e files (tools/jest/sequencer.js), by when the
// container is long up, and a file that comes sooner (a run of this project alone) waits for it. The state travels
// to the workers in a JSON file named by MM_E2E_CONTAINER_STATE, as the shared platform's does
// (test-e2e/support/shared-platform.ts).
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeEngine, startPostgresContainer, type PostgresContainer } from '@mm/platform/testing';
import { migrateTemplate } from './global-setup.impl';

export const CONTAINER_STATE_VARIABLE = 'MM_E2E_CONTAINER_STATE';

/** What the workers read (tools/jest/containers-mode.js). */
export type ContainerState =
  | { status: 'absent'; reason: string }
  | { status: 'starting' }
  | { status: 'ready'; adminUrl: string; template: string }
  | { status: 'failed'; error: string };

const held = globalThis as unknown as {
  __mmContainerDatabase?: { dir: string; starting: Promise<PostgresContainer | undefined> };
};

/** The shared distributed platform's start (test-e2e/support/shared-platform.ts), in the same process. */
const shared = globalThis as unknown as { __mmSharedPlatform?: { starting: Promise<unknown> } };

function write(file: string, state: ContainerState): void {
  // Whole or not at all: a worker never reads half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(state));
  renameSync(`${file}.tmp`, file);
}

/** Jest's main process, the project's global setup: starts the container and returns at once. */
export function startContainerDatabase(): void {
  if (held.__mmContainerDatabase) return;
  const dir = mkdtempSync(join(tmpdir(), 'mm-e2e-containers-'));
  const stateFile = join(dir, 'state.json');
  process.env[CONTAINER_STATE_VARIABLE] = stateFile;
  const log = (line: string) => process.stdout.write(`\n[test] e2e-containers: ${line}\n`);
  // testcontainers talks to the engine's Docker-compatible API, as Compose does: without it there is no container.
  const engine = composeEngine();
  if (!engine.available) {
    write(stateFile, { status: 'absent', reason: engine.reason });
    log(`skipped: ${engine.reason}`);
    held.__mmContainerDatabase = { dir, starting: Promise.resolve(undefined) };
    return;
  }
  write(stateFile, { status: 'starting' });
  const startedAt = Date.now();
  let container: PostgresContainer | undefined;
  const starting = (async () => {
    // Not beside the shared distributed platform's start, which begins with the run as well (when the e2e-distributed
    // project is in it): two heavy starts at once on two cores made its services miss their readiness limit.
    if (shared.__mmSharedPlatform) {
      log('starts once the shared distributed platform has');
      await shared.__mmSharedPlatform.starting;
    }
    container = await startPostgresContainer(log);
    const template = await migrateTemplate(container.adminUrl);
    write(stateFile, { status: 'ready', adminUrl: container.adminUrl, template });
    log(`PostgreSQL and its template ready in ${Math.round((Date.now() - startedAt) / 1000)} s`);
    return container;
  })().catch((error: unknown) => {
    write(stateFile, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
    // A container started before the template failed is still the project's to stop.
    return container;
  });
  held.__mmContainerDatabase = { dir, starting };
}

/** Jest's main process, the project's global teardown: the container goes, whatever its files did. */
export async function stopContainerDatabase(): Promise<void> {
  const database = held.__mmContainerDatabase;
  if (!database) return;
  held.__mmContainerDatabase = undefined;
  try {
    await (await database.starting)?.stop();
  } finally {
    rmSync(database.dir, { recursive: true, force: true });
  }
}
