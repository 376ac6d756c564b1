// What a partner guide (docs/guides) names of the platform's states and events, and what the platform can
// produce of them, so that a test holds the one to the other (spec: States and transitions; Events).
//
// A guide names
// - a sub-status (spec: States and transitions, "Sub-statuses (closed set)") as `<status>.<detail>`, anywhere;
// - a status as the value of `status` or `previousStatus` in a request or answer, a `status=` filter, a cell of a
//   table column headed `status`, or a word in backticks after "status", "is", "stays", "becomes", "ends" or
//   "moves to" in the prose ("the transaction is `processing`"), unless a field other than a status comes
//   before ("its `type` is `bankUs`");
// - an event as a whole code span or JSON string whose first segment is the resource of a catalogue event
//   (`transaction.statusChanged`, "wallet.provisioned").
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PARTNER_EVENT_CATALOGUE, PARTNER_EVENT_DEFINITIONS } from '@mm/contracts';

const ROOT = join(__dirname, '..', '..');
const TRANSACTION_STATUSES = ['processing', 'awaitingAction', 'completed', 'failed'];
const SUB_STATUS = new RegExp(`\\b(?:${TRANSACTION_STATUSES.join('|')})\\.[a-z][A-Za-z]*\\b`, 'g');
const EVENT_RESOURCES = [...new Set(PARTNER_EVENT_DEFINITIONS.map((e) => e.name.split('.')[0]))];
const EVENT = new RegExp(`^(?:${EVENT_RESOURCES.join('|')})(?:\\.[A-Za-z_*]+)+$`);

export interface Names {
  statuses: Set<string>;
  subStatuses: Set<string>;
  events: Set<string>;
}

/** The statuses, sub-statuses and events a guide's text names (the rules above). */
export function namesIn(markdown: string): Names {
  const statuses = new Set<string>();
  for (const m of markdown.matchAll(/"(?:status|previousStatus)"\s*:\s*"([^"]*)"/g)) statuses.add(m[1]);
  for (const m of markdown.matchAll(/[?&]status=([A-Za-z]+)/g)) statuses.add(m[1]);
  // "its `type` is `bankUs`" names a field's value, not a status.
  for (const m of markdown.matchAll(
    /(?:`(\w+)`\s+)?\b(?:status(?:es)?|is|stays|becomes|ends|moves to)\s+`([a-z][A-Za-z]*)`/g,
  ))
    if (m[1] === undefined || /status$/i.test(m[1])) statuses.add(m[2]);
  for (const cell of statusColumnCells(markdown))
    for (const m of cell.matchAll(/`([a-z][A-Za-z]*)`/g)) statuses.add(m[1]);
  statuses.delete('null');

  const subStatuses = new Set(markdown.match(SUB_STATUS) ?? []);

  const events = new Set<string>();
  for (const m of markdown.matchAll(/`([^`\n]+)`|"([^"\n]+)"/g)) {
    const token = m[1] ?? m[2];
    if (EVENT.test(token)) events.add(token);
  }
  return { statuses, subStatuses, events };
}

/** The cells of every Markdown table column whose header is `status` or "with `status`". */
function statusColumnCells(markdown: string): string[] {
  const cells: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i].startsWith('|') || !/^\|[-:| ]+\|$/.test(lines[i + 1])) continue;
    const header = splitRow(lines[i]);
    const columns = header.flatMap((h, c) => (/^(?:with )?`?status`?$/.test(h) ? [c] : []));
    for (let r = i + 2; r < lines.length && lines[r].startsWith('|'); r++) {
      const row = splitRow(lines[r]);
      for (const c of columns) if (row[c] !== undefined) cells.push(row[c]);
    }
  }
  return cells;
}

function splitRow(line: string): string[] {
  return line
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());
}

/**
 * What the platform can produce: the `status` values of every resource in the OpenAPI document it serves
 * (packages/client/openapi.json, kept current by a unit test of the client), the transaction sub-statuses its
 * transaction decider writes (the only place a transaction's sub-status is set), and the events of the catalogue
 * this version sends, with `*` (every event).
 */
export function platformNames(): Names {
  const document = JSON.parse(readFileSync(join(ROOT, 'packages', 'client', 'openapi.json'), 'utf8')) as unknown;
  const statuses = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const values = (value as { enum?: unknown } | null)?.enum;
      if ((key === 'status' || key === 'previousStatus') && Array.isArray(values))
        for (const v of values) statuses.add(String(v));
      walk(value);
    }
  };
  walk(document);

  const subStatuses = new Set<string>();
  const domain = join(ROOT, 'libs', 'transactions', 'domain', 'src');
  for (const file of readdirSync(domain).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))) {
    for (const m of readFileSync(join(domain, file), 'utf8').matchAll(/'([^'\n]+)'/g))
      if (new RegExp(`^${SUB_STATUS.source}$`).test(m[1])) subStatuses.add(m[1]);
  }
  return { statuses, subStatuses, events: new Set([...PARTNER_EVENT_CATALOGUE, '*']) };
}

/** The names of `named` the platform cannot produce, by kind: empty when the guide names only what exists. */
export function unknownNames(named: Names, platform: Names): Record<keyof Names, string[]> {
  const missing = (kind: keyof Names) => [...named[kind]].filter((n) => !platform[kind].has(n)).sort();
  return { statuses: missing('statuses'), subStatuses: missing('subStatuses'), events: missing('events') };
}
