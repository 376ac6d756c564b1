// A service in distributed mode verifies bearer tokens itself, against the
// gateway's public keyset (JWKS), so a service reached directly refuses what the
// gateway would. Keys are cached by kid; an unknown kid fetches the keyset again
// (at most once a second), and a keyset that cannot be fetched is reported as
// such (503 temporarily_unavailable), never as a bad token.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { KeysetUnavailableError, type SigningKeyset } from './token-claims';

const REFETCH_INTERVAL_MS = 1000;
const FETCH_TIMEOUT_MS = 3000;

export class JwksKeyset implements SigningKeyset {
  private keys = new Map<string, KeyObject>();
  private lastFetch = 0;
  private fetching?: Promise<void>;

  constructor(
    private readonly jwksUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  async publicKey(kid: string): Promise<KeyObject | undefined> {
    const cached = this.keys.get(kid);
    if (cached) return cached;
    if (this.now() - this.lastFetch < REFETCH_INTERVAL_MS && this.keys.size > 0) return undefined;
    await (this.fetching ??= this.fetchKeys().finally(() => (this.fetching = undefined)));
    return this.keys.get(kid);
  }

  private async fetchKeys(): Promise<void> {
    let body: { keys?: Array<JsonWebKey & { kid?: string }> };
    try {
      const response = await fetch(this.jwksUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`${response.status}`);
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw new KeysetUnavailableError(
        `signing keyset unavailable at ${this.jwksUrl}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.keys = new Map(
      (body.keys ?? []).filter((k) => k.kid).map((k) => [k.kid!, createPublicKey({ key: k, format: 'jwk' })]),
    );
    this.lastFetch = this.now();
  }
}
