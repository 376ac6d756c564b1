// "Nothing stored" checked on every table the platform has, so tables added
// later are covered without touching the tests.
import type { DataSource } from 'typeorm';

export type RowCounts = Record<string, number>;

export async function rowCounts(dataSource: DataSource): Promise<RowCounts> {
  const tables: Array<{ schema: string; name: string }> = await dataSource.query(
    // Unlogged tables hold counters, not data (the rate limits count refused requests too, by design).
    `SELECT t.table_schema AS schema, t.table_name AS name FROM information_schema.tables t
       JOIN pg_class c ON c.relname = t.table_name JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = t.table_schema
      WHERE t.table_type = 'BASE TABLE' AND t.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.relpersistence <> 'u' ORDER BY 1, 2`,
  );
  const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
  const rows: Array<{ name: string; n: number }> = await dataSource.query(
    tables.map((t, i) => `SELECT $${i + 1}::text AS name, count(*)::int AS n FROM ${quote(t.schema)}.${quote(t.name)}`).join(' UNION ALL '),
    tables.map((t) => `${t.schema}.${t.name}`),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.n]));
}

/**
 * Counts once the platform is idle: event handlers react to an earlier
 * success asynchronously, and their rows must not be blamed on a later refusal.
 */
export async function settledRowCounts(dataSource: DataSource, timeoutMs = 5000): Promise<RowCounts> {
  const deadline = Date.now() + timeoutMs;
  let previous = await rowCounts(dataSource);
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const current = await rowCounts(dataSource);
    if (JSON.stringify(current) === JSON.stringify(previous) || Date.now() > deadline) return current;
    previous = current;
  }
}
