// "Nothing stored" checked on every table the platform has, so tables added
// later are covered without touching the tests.
import type { Queryable } from './distributed-processes';
import type { TestPlatform } from './test-platform';

export type RowCounts = Record<string, number>;

export async function rowCounts(dataSource: Queryable): Promise<RowCounts> {
  const tables = await dataSource.query<{ schema: string; name: string }>(
    // Unlogged tables hold counters, not data (the rate limits count refused requests too, by design).
    `SELECT t.table_schema AS schema, t.table_name AS name FROM information_schema.tables t
       JOIN pg_class c ON c.relname = t.table_name JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = t.table_schema
      WHERE t.table_type = 'BASE TABLE' AND t.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.relpersistence <> 'u'
        -- Webhook attempts and endpoint health record the delivery worker's own HTTP calls, made on
        -- its schedule whatever a request does.
        AND (t.table_schema, t.table_name) NOT IN (('webhooks', 'delivery_attempts'), ('webhooks', 'endpoint_health'))
      ORDER BY 1, 2`,
  );
  const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
  const rows = await dataSource.query<{ name: string; n: number }>(
    tables.map((t, i) => `SELECT $${i + 1}::text AS name, count(*)::int AS n FROM ${quote(t.schema)}.${quote(t.name)}`).join(' UNION ALL '),
    tables.map((t) => `${t.schema}.${t.name}`),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.n]));
}

/**
 * Counts once the platform is idle: event handlers react to an earlier
 * success asynchronously, and their rows must not be blamed on a later refusal.
 */
export async function settledRowCounts(platform: TestPlatform, timeoutMs = 20_000): Promise<RowCounts> {
  await platform.settle();
  const dataSource = platform.db;
  const deadline = Date.now() + timeoutMs;
  let previous = await rowCounts(dataSource);
  for (;;) {
    // Long enough for a handler's transaction under CI load (provisioning, fan-out) to show.
    await new Promise((r) => setTimeout(r, 250));
    const current = await rowCounts(dataSource);
    if (JSON.stringify(current) === JSON.stringify(previous) || Date.now() > deadline) return current;
    previous = current;
  }
}
