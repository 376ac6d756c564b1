// Verifying a bearer token is an ES256 signature check and an API key lookup.
// Both are done once per token; the result is then remembered, keyed by the
// token's SHA-256, until the token expires or MAX_AGE_MS passes, whichever is
// first. Revocation still takes effect at once:
// - the cache is trusted only while the revocation feed (LISTEN on the database)
//   is connected; while it is down every request is verified in full;
// - a revocation heard evicts the key's tokens, and a verification that was
//   already running when it was heard is not remembered (the generation check);
// - the process that revokes a key marks it first, so until the revocation is
//   heard back its tokens are checked against the database on every request.
import { createHash } from 'node:crypto';
import type { Caller } from '@mm/platform/http';

interface Entry {
  caller: Caller;
  expiresAtMs: number;
}

const MAX_ENTRIES = 10_000;
const MAX_AGE_MS = 60_000;
const REVOKING_MARK_MS = 30_000;

export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();
  /** API keys this process is revoking, until when their mark holds. */
  private readonly revoking = new Map<string, number>();
  private generation = 0;
  private live = false;

  constructor(private readonly now: () => number = Date.now) {}

  static keyOf(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  /** The caller of a token verified earlier, if it may still be trusted. */
  lookup(key: string): Caller | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= this.now() || this.isRevoking(entry.caller.apiKey)) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.caller;
  }

  /** Taken before a full verification; remember() refuses the result if a revocation was heard meanwhile. */
  mark(): number {
    return this.generation;
  }

  remember(key: string, caller: Caller, tokenExpiresAtMs: number, mark: number): void {
    if (!this.live || mark !== this.generation || this.isRevoking(caller.apiKey)) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { caller, expiresAtMs: Math.min(tokenExpiresAtMs, this.now() + MAX_AGE_MS) });
  }

  /** A committed revocation, heard from the database. */
  revoked(apiKey: string): void {
    this.generation++;
    this.revoking.delete(apiKey);
    for (const [key, entry] of this.entries) if (entry.caller.apiKey === apiKey) this.entries.delete(key);
  }

  /** This process is about to revoke the key (before its transaction commits). */
  beginRevoking(apiKey: string): void {
    this.generation++;
    this.revoking.set(apiKey, this.now() + REVOKING_MARK_MS);
  }

  /** Whether revocations are being heard; the cache is emptied whenever they may have been missed. */
  setLive(live: boolean): void {
    this.generation++;
    this.entries.clear();
    this.live = live;
  }

  private isRevoking(apiKey: string | undefined): boolean {
    if (this.revoking.size === 0 || apiKey === undefined) return false;
    const until = this.revoking.get(apiKey);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.revoking.delete(apiKey);
    return false;
  }
}
