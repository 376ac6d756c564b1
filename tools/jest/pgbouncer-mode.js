// The e2e-pgbouncer Jest project: its files' platforms reach PostgreSQL through the run's PgBouncer in
// transaction pooling (test-e2e/support/pgbouncer.ts, settings.ts). Where the run has no PgBouncer, each file says
// so and its tests count as skipped, as the suite's other fixtures do where what they need is absent.
process.env.MM_E2E_POOLER = 'pgbouncer';
const present = Boolean(process.env.MM_TEST_PGBOUNCER);
if (!present)
  process.stderr.write(`${expect.getState().testPath}: skipped: the run has no PgBouncer (Debian's pgbouncer)\n`);
globalThis.describe = present ? describe : describe.skip;
