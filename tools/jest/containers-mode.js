// The e2e-containers Jest project: its files' PostgreSQL is the project's container (container-database.ts). Before
// the file's own hooks, each file waits for it to be up, then clones from its template (MM_TEST_ADMIN_URL and
// MM_TEST_TEMPLATE_DB, read by @mm/platform/testing); the processes a file starts run on databases cloned there
// too (MM_E2E_DATABASE: test-e2e/support/platform-process.ts). Where the run has no container engine, each file
// says so and its tests count as skipped, as the suite's other fixtures do where what they need is absent.
const { readFileSync } = require('node:fs');

process.env.MM_E2E_DATABASE = 'container';
const stateFile = process.env.MM_E2E_CONTAINER_STATE;
const read = () => JSON.parse(readFileSync(stateFile, 'utf8'));
const first = read();
const absent = first.status === 'absent' ? first.reason : undefined;
if (absent) process.stderr.write(`${expect.getState().testPath}: skipped: ${absent}\n`);
// The crash files hold their one test at the top level: test and it as well as describe.
globalThis.describe = absent ? describe.skip : describe;
globalThis.test = absent ? test.skip : test;
globalThis.it = absent ? it.skip : it;

// The container's start (an image build where the image is missing: ensureImages' own limit) and the template's
// migrations.
const WAIT_MS = 16 * 60_000;

beforeAll(async () => {
  for (const since = Date.now(); ;) {
    const state = read();
    if (state.status === 'ready') {
      process.env.MM_TEST_ADMIN_URL = state.adminUrl;
      process.env.MM_TEST_TEMPLATE_DB = state.template;
      return;
    }
    if (state.status === 'failed') throw new Error(`the project's PostgreSQL container did not start: ${state.error}`);
    if (Date.now() - since > WAIT_MS)
      throw new Error(`the project's PostgreSQL container is still starting after ${WAIT_MS / 60_000} minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, WAIT_MS + 10_000);
