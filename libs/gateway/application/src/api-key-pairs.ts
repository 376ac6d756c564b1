// API key pairs as the gateway makes them: random base62 keys and secrets, and until when a key may be used.
import { randomBytes } from 'node:crypto';
import type { ApiKeyRow } from '@mm/gateway/infrastructure';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text; bytes >= 248 are skipped so every character is equally likely. */
export function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) if (b < 248 && out.length < length) out += BASE62[b % 62];
  }
  return out;
}

/** A key just made, and its secret: shown in this answer only. */
export interface NewKeyPair {
  row: ApiKeyRow;
  apiSecret: string;
}

/** Until when a key may be used (ms since the epoch): never once revoked, until its roll's expiry, else always. */
export function usableUntil(row: ApiKeyRow): number {
  if (row.revoked_at) return 0;
  return row.expires_at ? new Date(row.expires_at).getTime() : Infinity;
}
