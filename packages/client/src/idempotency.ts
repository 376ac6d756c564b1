// An opt-in helper: an Idempotency-Key derived from the request itself. The
// client does not use it: every call gets a key of its own (ADR 0058), since two
// requests that are the same on the wire can be two intents (two customers who
// share a name). A caller whose request IS its operation's identity (a script
// whose every run means the same one thing) may pass
// `{idempotencyKey: deriveIdempotencyKey(method, path, body)}`; the API then
// answers a repeat within 24 hours with the first response, whoever sends it.
import { createHash } from 'node:crypto';

/** JSON with every object's keys sorted, so that the key does not depend on the order fields were written in. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}

/**
 * A key derived from a request: `mm_` and the SHA-256 of its method, its path with the ids in it, and its
 * body in canonical JSON. Two requests get the same key exactly when they are the same on the wire, so
 * the second is answered with what the first made: use it only where that is what you mean.
 */
export function deriveIdempotencyKey(method: string, path: string, body: unknown): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([method.toUpperCase(), path, canonicalJson(body)]))
    .digest('hex');
  return `mm_${digest}`;
}
