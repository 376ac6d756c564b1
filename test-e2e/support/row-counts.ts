// "Nothing stored" checked on every table the platform has, so tables added
// later are covered without touching the tests.
import type { Queryable } from './distributed-processes';
import type { TestPlatform } from './test-platform';

export type RowCounts = Record<string, number>;

/**
 * Rows per table. With projectIds (a file on the shared platform, where other files write all the
 * time), those projects' rows only: by project_id, for an events table by the project in each
 * event's metadata, for idempotency records by their scope; tables that belong to no project are left
 * out then (the files with a database of their own count them).
 */
type Table = { schema: string; name: string; scope: 'project_id' | 'metadata' | 'scope' | null };

/**
 * The tables a database has, read from the catalog once per connection pool: the platform makes its
 * tables at start-up, before any test counts, and the catalog query costs more than the counts (a fuzz
 * run counts after every request).
 */
const tablesOf = new WeakMap<Queryable, Promise<Table[]>>();

function tables(dataSource: Queryable): Promise<Table[]> {
  let found = tablesOf.get(dataSource);
  if (!found) {
    found = readTables(dataSource);
    found.catch(() => tablesOf.delete(dataSource));
    tablesOf.set(dataSource, found);
  }
  return found;
}

function readTables(dataSource: Queryable): Promise<Table[]> {
  return dataSource.query<Table>(
    // Unlogged tables hold counters, not data (the rate limits count refused requests too, by design).
    `SELECT t.table_schema AS schema, t.table_name AS name,
            CASE WHEN EXISTS (SELECT 1 FROM information_schema.columns k WHERE k.table_schema = t.table_schema AND k.table_name = t.table_name AND k.column_name = 'project_id') THEN 'project_id'
                 WHEN t.table_schema = 'platform' AND t.table_name = 'idempotency_keys' THEN 'scope'
                 WHEN t.table_name = 'events' AND EXISTS (SELECT 1 FROM information_schema.columns k WHERE k.table_schema = t.table_schema AND k.table_name = t.table_name AND k.column_name = 'metadata') THEN 'metadata' END AS scope
       FROM information_schema.tables t
       JOIN pg_class c ON c.relname = t.table_name JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = t.table_schema
      WHERE t.table_type = 'BASE TABLE' AND t.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.relpersistence <> 'u'
        -- Webhook attempts and endpoint health record the delivery worker's own HTTP calls, made on
        -- its schedule whatever a request does; the operators' audit log records every operator request that
        -- reaches its route, the refused ones too, by design (docs/operators.md), and the request log every partner
        -- request (docs/request-logs.md).
        AND (t.table_schema, t.table_name) NOT IN (('webhooks', 'delivery_attempts'), ('webhooks', 'endpoint_health'),
                                                   ('gateway', 'audit_log'), ('gateway', 'request_logs'))
      ORDER BY 1, 2`,
  );
}

async function countRows(dataSource: Queryable, projectIds?: readonly string[]): Promise<RowCounts> {
  const all = await tables(dataSource);
  const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
  const counted = projectIds === undefined ? all : all.filter((t) => t.scope !== null);
  const where = (t: Table) =>
    projectIds === undefined
      ? ''
      : ` WHERE ${t.scope === 'metadata' ? `metadata->>'projectId'` : t.scope} = ANY($${counted.length + 1})`;
  const rows = await dataSource.query<{ name: string; n: number }>(
    counted
      .map(
        (t, i) =>
          `SELECT $${i + 1}::text AS name, count(*)::int AS n FROM ${quote(t.schema)}.${quote(t.name)}${where(t)}`,
      )
      .join(' UNION ALL '),
    [...counted.map((t) => `${t.schema}.${t.name}`), ...(projectIds === undefined ? [] : [projectIds])],
  );
  // In the tables' order, whatever order the server answered in (a parallel plan of the UNION may mix them), so
  // that two counts compare as JSON.
  const counts = new Map(rows.map((r) => [r.name, r.n]));
  return Object.fromEntries(counted.map((t) => [`${t.schema}.${t.name}`, counts.get(`${t.schema}.${t.name}`) ?? 0]));
}

/** The platform's rows per table: on the shared platform, those of the projects this file made. */
export function rowCounts(platform: TestPlatform): Promise<RowCounts> {
  return countRows(platform.db, platform.isShared ? platform.projects : undefined);
}

/**
 * Counts once the platform is idle: event handlers react to an earlier success asynchronously, and their rows
 * must not be blamed on a later refusal. A handler's work may be a chain (an account's creation, then its
 * provisioning by the provider, then the webhook fan-out of the provisioning's events), each link appended
 * after the barrier before it: so each count follows a settle() of its own, and the counts are taken until two
 * in a row agree. Every link appends events, which are counted, so two equal counts with a barrier between
 * them leave no link unread.
 */
export async function settledRowCounts(platform: TestPlatform, timeoutMs = 20_000): Promise<RowCounts> {
  const deadline = Date.now() + timeoutMs;
  await platform.settle();
  let previous = await rowCounts(platform);
  for (;;) {
    // Long enough for a handler's transaction under CI load (provisioning, fan-out) to show.
    await new Promise((r) => setTimeout(r, 250));
    await platform.settle();
    const current = await rowCounts(platform);
    if (JSON.stringify(current) === JSON.stringify(previous) || Date.now() > deadline) return current;
    previous = current;
  }
}
