// Sensitive values are write-only (spec: External account, Counterparty): a full
// account number, IBAN, card number or tax id a test sends must never come back
// in a response body, nor sit in any table (the events logs included), nor
// reach a log line. Every TestPlatform watches for this across the whole suite:
// it remembers what each request sent under those names, checks each response
// as it arrives, and scans the database and the log output before it stops.
import type { Queryable } from './distributed-processes';

const SENSITIVE_KEYS = new Set(['accountNumber', 'iban', 'cardNumber', 'taxId']);

/**
 * A value shorter than this, or with fewer distinct characters, could appear by chance (a
 * 4-digit account number in a timestamp, 00000000 in a balance); CVCs are too short to scan.
 */
const MIN_LENGTH = 8;
const MIN_DISTINCT = 4;

function scannable(value: string): boolean {
  return value.length >= MIN_LENGTH && new Set(value).size >= MIN_DISTINCT;
}

/** The forms a value could be stored in: as sent, without spaces or hyphens, upper-cased (IBANs). */
function forms(value: string): string[] {
  const compact = value.replace(/[\s-]/g, '');
  return [...new Set([value, compact, compact.toUpperCase()])].filter(scannable);
}

export class SensitiveValues {
  private readonly values = new Set<string>();
  readonly leaks: string[] = [];

  /** Remembers the sensitive values anywhere in a request body. */
  collect(body: unknown): void {
    if (Array.isArray(body)) body.forEach((item) => this.collect(item));
    else if (body !== null && typeof body === 'object') {
      for (const [key, value] of Object.entries(body)) {
        if (SENSITIVE_KEYS.has(key) && typeof value === 'string') forms(value).forEach((form) => this.values.add(form));
        else this.collect(value);
      }
    }
  }

  collectRaw(text: string | undefined): void {
    if (text === undefined) return;
    try {
      this.collect(JSON.parse(text));
    } catch {
      // not JSON: nothing the platform could have read as a field
    }
  }

  /** Records a leak when `text` (a response body, the log output) carries a value sent earlier. */
  check(where: string, text: string): void {
    for (const value of this.values) {
      if (text.includes(value))
        this.leaks.push(`${where} carries a sensitive value sent by the test (…${value.slice(-4)})`);
    }
  }

  /** Every row of every table, the events logs among them, searched for the values. */
  async checkDatabase(db: Queryable): Promise<void> {
    if (this.values.size === 0) return;
    const tables = await db.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
    );
    const patterns = [...this.values].map((v) => `%${v.replace(/[\\%_]/g, '\\$&')}%`);
    const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
    for (const t of tables) {
      const [row] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${quote(t.schema)}.${quote(t.name)} r WHERE r::text LIKE ANY($1)`,
        [patterns],
      );
      if (row.n > 0)
        this.leaks.push(`${row.n} row(s) of ${t.schema}.${t.name} carry a sensitive value sent by the test`);
    }
  }
}
