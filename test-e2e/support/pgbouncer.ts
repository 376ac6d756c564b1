// The e2e-pgbouncer Jest project's PgBouncer (jest.config.js): one for the run, in transaction pooling before the
// run's PostgreSQL; platformSettings (settings.ts) then gives every platform of the project's files its address as
// DATABASE_URL and the server's as MM_DATABASE_DIRECT_URL.
import { pgBouncerAbsence, startPgBouncer, type RunningPgBouncer } from '@mm/platform/testing';

const state = globalThis as unknown as { __mmPgBouncer?: RunningPgBouncer };

/** After the run's PostgreSQL (global-setup.impl.ts): MM_TEST_PGBOUNCER is its address, or unset where it is absent. */
export async function startRunPgBouncer(): Promise<void> {
  const absent = pgBouncerAbsence();
  if (absent) {
    process.stdout.write(`\n[test] e2e-pgbouncer: skipped: ${absent}\n`);
    return;
  }
  const adminUrl = process.env.MM_TEST_ADMIN_URL;
  if (!adminUrl) throw new Error('the run has no PostgreSQL (MM_TEST_ADMIN_URL)');
  state.__mmPgBouncer = await startPgBouncer(adminUrl, (line) => process.stdout.write(`[test] ${line}\n`));
  process.env.MM_TEST_PGBOUNCER = state.__mmPgBouncer.address;
}

export async function stopRunPgBouncer(): Promise<void> {
  await state.__mmPgBouncer?.stop();
  state.__mmPgBouncer = undefined;
}
