// BENCH_PG_STATEMENTS=1: the bench's embedded PostgreSQL runs with pg_stat_statements, and under each money
// flow's client count the bench prints what one operation cost PostgreSQL on each side in statements: every
// statement (BEGIN and COMMIT among them) with its calls and execution time per operation, the most costly
// first. Counted from the start of each side's measured run until its log readers are quiet again, so the
// platform's background work for those operations (its readers, timers, the webhook worker) is counted with
// them. Round trips and commits do not depend on the machine's load, so they can be compared across runs.
import { Pool } from 'pg';

export const STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';

/** The server settings that load the extension (startEmbeddedPostgres's `settings`). */
export const STATEMENT_SETTINGS = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.max': '10000',
};

export interface StatementRow {
  query: string;
  calls: number;
  ms: number;
}

async function withPool<T>(databaseUrl: string, work: (pool: Pool) => Promise<T>): Promise<T> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

export function resetStatements(databaseUrl: string): Promise<void> {
  return withPool(databaseUrl, async (pool) => {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pool.query('SELECT pg_stat_statements_reset()');
  });
}

/** The statements since the last reset, but the bench's own (this module's and the quiet-wait's). */
export function readStatements(databaseUrl: string): Promise<StatementRow[]> {
  return withPool(databaseUrl, async (pool) => {
    const { rows } = await pool.query<{ query: string; calls: string; ms: number }>(
      `SELECT query, calls::text, total_exec_time AS ms FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%subscription_checkpoints%global_position), 0)%'`,
    );
    return rows.map((r) => ({ query: r.query, calls: Number(r.calls), ms: r.ms }));
  });
}

/** Sums rows of several rounds by statement. */
export function addStatements(into: Map<string, StatementRow>, rows: StatementRow[]): void {
  for (const row of rows) {
    const seen = into.get(row.query);
    if (seen) {
      seen.calls += row.calls;
      seen.ms += row.ms;
    } else into.set(row.query, { ...row });
  }
}

/** "statements per operation: 14.2 (COMMIT 2.0, BEGIN 2.0), 0.41 ms", then the costliest statements. */
export function statementsText(
  side: string,
  rows: Map<string, StatementRow>,
  ops: number,
  top = Number(process.env.BENCH_PG_STATEMENTS_TOP ?? 12),
): string {
  if (ops === 0) return '';
  const all = [...rows.values()];
  const calls = all.reduce((n, r) => n + r.calls, 0) / ops;
  const ms = all.reduce((n, r) => n + r.ms, 0) / ops;
  const count = (pattern: RegExp) =>
    all.filter((r) => pattern.test(r.query.trim())).reduce((n, r) => n + r.calls, 0) / ops;
  const lines = [
    `  ${side} statements per operation: ${calls.toFixed(1)} (BEGIN ${count(/^begin/i).toFixed(2)}, COMMIT ${count(/^commit/i).toFixed(2)}), executing ${ms.toFixed(2)} ms`,
  ];
  for (const r of all.sort((a, b) => b.ms - a.ms).slice(0, top)) {
    lines.push(
      `    ${(r.calls / ops).toFixed(2).padStart(6)} × ${((1000 * r.ms) / r.calls).toFixed(0).padStart(5)} µs  ${r.query.replace(/\s+/g, ' ').slice(0, 140)}`,
    );
  }
  return lines.join('\n') + '\n';
}
