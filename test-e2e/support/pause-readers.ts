// Holds a service's event log still for every reader of it, so that a test can
// act in the moment between a write and its consequences elsewhere, however
// fast the readers are. A reader of a log (a service's subscription on the
// PostgreSQL log transport, or the relay that publishes the log to Kafka) works
// each batch under a transaction-scoped advisory lock keyed by its subscription
// and the log's schema, and skips the log while another session holds that key
// (libs/platform/event-store subscription.ts). Holding every such key in a
// session of the test's own pauses them all; releasing it lets them go on from
// where they stopped.
import { Client } from 'pg';

/** Pauses every reader of `schema`'s events log; resolves to the function that lets them go on. */
export async function pauseReaders(databaseUrl: string, schema: string): Promise<() => Promise<void>> {
  const session = new Client({ connectionString: databaseUrl });
  await session.connect();
  const readers = await session.query<{ subscription: string }>(
    `SELECT subscription FROM platform.subscription_checkpoints WHERE source = $1`,
    [schema],
  );
  if (readers.rows.length === 0) throw new Error(`no reader of the ${schema} log is known yet`);
  // Waits for a batch under way to finish: from here on, nothing of this log is read.
  await session.query(
    `SELECT pg_advisory_lock(hashtextextended(subscription || E'\\n' || $1, 7346003)) FROM platform.subscription_checkpoints WHERE source = $1`,
    [schema],
  );
  return async () => {
    await session.query(`SELECT pg_advisory_unlock_all()`);
    await session.end();
  };
}
