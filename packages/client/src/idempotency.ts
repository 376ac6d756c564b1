// Idempotency keys the client derives itself. The API wants an Idempotency-Key
// on every POST and PATCH, and keys that are deterministic so that retries are
// safe: the same operation with the same body always gets the same key, whether
// it is the client retrying after a 503 or the caller's own job running again
// after a crash. The server replays the stored response to a repeat (with
// Idempotent-Replayed: true) for at least 24 hours, so a caller who means to do
// the same thing twice passes a key of its own.
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
 * The key of an operation: `mm_` and the SHA-256 of its method, its path with the ids in it, and its
 * body in canonical JSON. Two calls get the same key exactly when they are the same request.
 */
export function deriveIdempotencyKey(method: string, path: string, body: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify([method.toUpperCase(), path, canonicalJson(body)])).digest('hex');
  return `mm_${digest}`;
}
