// The rows a leg's submission to the sandbox's rails writes (docs/adr/0065): the service's record of the
// submission, the simulated provider's own record of it and the provider's timer for its notification. The raw
// references write the same rows, so that both sides of a comparison do the same work.
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/** What the platform wrote for a sampled leg, as JSON text. */
export interface StoredSubmission {
  notifications: string;
  holds: string;
}

/** A wire payout's submission, for a raw reference that samples none. */
export const WIRE_PAYOUT_SUBMISSION: StoredSubmission = {
  notifications: JSON.stringify([
    { afterSeconds: 30, outcome: { kind: 'settled', references: { imad: '20261206MMQFMPA1123456' } } },
  ]),
  holds: JSON.stringify({ kind: 'none' }),
};

/** The raw reference's tables for them (beside its own `timers`). */
export function railTables(schema: string): string {
  return `
    CREATE TABLE ${schema}.rail_submissions (
      reference text PRIMARY KEY, project_id text NOT NULL, transaction_id text NOT NULL, leg_id text NOT NULL UNIQUE,
      purpose text NOT NULL);
    CREATE TABLE ${schema}.rail_payments (
      reference text PRIMARY KEY, project_id text NOT NULL, notifications jsonb NOT NULL, holds jsonb NOT NULL,
      submitted_at timestamptz NOT NULL);`;
}

/** The one submission the platform made for this transaction so far. */
export async function storedSubmission(pool: Pool, transactionId: string): Promise<StoredSubmission> {
  const { rows } = await pool.query<{ notifications: unknown; holds: unknown }>(
    `SELECT p.notifications, p.holds FROM transactions.rail_submissions s
       JOIN transactions.sandbox_rail_payments p USING (reference) WHERE s.transaction_id = $1`,
    [transactionId],
  );
  if (rows.length !== 1) throw new Error(`transaction ${transactionId}: ${rows.length} rail submissions, not one`);
  return { notifications: JSON.stringify(rows[0].notifications), holds: JSON.stringify(rows[0].holds) };
}

/** Writes a leg's submission as the platform does: its record, the provider's, and the provider's timer. */
export async function writeSubmission(
  db: PoolClient,
  schema: string,
  transactionId: string,
  legId: string,
  stored: StoredSubmission,
): Promise<void> {
  const reference = `sim_${randomUUID()}`;
  await db.query(
    `INSERT INTO ${schema}.rail_submissions (reference, project_id, transaction_id, leg_id, purpose) VALUES ($1, 'bench', $2, $3, 'leg')`,
    [reference, transactionId, legId],
  );
  await db.query(
    `INSERT INTO ${schema}.rail_payments (reference, project_id, notifications, holds, submitted_at) VALUES ($1, 'bench', $2, $3, now())`,
    [reference, stored.notifications, stored.holds],
  );
  await db.query(
    `INSERT INTO ${schema}.timers (kind, key, payload, due_at) VALUES ('sandboxRails.notify', $1, $2, now() + interval '1 minute')`,
    [`${reference}:0`, JSON.stringify({ reference, index: 0 })],
  );
}

/** The bytes of JSON a submission writes. */
export function submissionBytes(stored: StoredSubmission): number {
  return Buffer.byteLength(stored.notifications) + Buffer.byteLength(stored.holds);
}
