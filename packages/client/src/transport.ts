// How a request reaches the API: with a bearer token the client fetched itself
// (renewed before it expires, and once more when the API answers 401), and sent
// again after a 409 in flight, a 429 or a 503 (waiting as long as Retry-After
// says, else backing off), but only when repeating it cannot do anything twice.
import { ApiError, parseRetryAfter, type ErrorBody } from './errors';
import type { Schemas } from './types';

type TokenResponse = Schemas['TokenResponse'];

export type Fetch = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** How many times a request is sent again at most (3). 0: never. */
  maxRetries: number;
  /** The longest wait before a retry, in seconds (30): a Retry-After above it is not waited for, the error is thrown. */
  maxRetryDelaySeconds: number;
}

/** Renew a token when less than this is left of it (tokens last 60 minutes). */
export const TOKEN_REFRESH_MARGIN_MS = 60_000;
/** The first backoff without Retry-After; it doubles with each retry. */
const BACKOFF_BASE_MS = 250;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Issuing a token changes nothing else: it may be asked for again whatever happened to the first ask. */
const TOKEN_EXCHANGE: Repeatable = { afterRefusal: true, afterNetworkError: true, keyed: false };

/** When a request may be sent again: after a refusal that did not apply it (429, 503, 409 in flight), after a lost connection. */
export interface Repeatable {
  afterRefusal: boolean;
  afterNetworkError: boolean;
  /** It carries an Idempotency-Key, so a 409 IdempotencyKeyInFlight is worth waiting out. */
  keyed: boolean;
}

/**
 * Whether a request may be sent again, and so whether the client retries it at all: reads; a POST or
 * PATCH carrying an Idempotency-Key (the API answers a repeat with the stored response, or 409 while the
 * first is still running); DELETE, which the API applies once however often it is asked, and which is
 * retried only after a 429 or 503 (refusals that did not apply it), never after a lost connection.
 */
export function repeatable(method: string, hasIdempotencyKey: boolean): Repeatable {
  const upper = method.toUpperCase();
  const keyed = (upper === 'POST' || upper === 'PATCH') && hasIdempotencyKey;
  const safe = READS.has(upper) || keyed;
  return { afterRefusal: safe || upper === 'DELETE', afterNetworkError: safe, keyed };
}

/** Whether a response is one the client waits out: 429, 503, and 409 IdempotencyKeyInFlight (for a request with a key). */
export function isRetryableStatus(status: number, errorName: string | undefined, keyed: boolean): boolean {
  if (status === 429 || status === 503) return true;
  return status === 409 && errorName === 'IdempotencyKeyInFlight' && keyed;
}

/** How long to wait before retry number `retry` (0 for the first): Retry-After when sent, else 250 ms doubling, with jitter. */
export function retryDelayMs(
  retry: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  const ceiling = BACKOFF_BASE_MS * 2 ** retry;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Reads and drops a response's body, so its connection goes back to the pool. */
async function discard(response: Response): Promise<void> {
  await response.arrayBuffer().catch(() => undefined);
}

async function errorName(response: Response): Promise<string | undefined> {
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as Partial<ErrorBody> | undefined;
  return typeof body?.error === 'string' ? body.error : undefined;
}

/**
 * Sends a request until it is answered with something other than a response worth waiting out, or the
 * retries run out. `send` makes and sends each attempt's request (a token may have changed between attempts).
 */
async function withRetries(
  may: Repeatable,
  retry: RetryOptions,
  send: (attempt: number) => Promise<Response>,
): Promise<Response> {
  for (let retries = 0; ; retries++) {
    const last = retries >= retry.maxRetries;
    let response: Response;
    try {
      response = await send(retries);
    } catch (error) {
      // A connection lost before any answer: the request may or may not have run.
      if (last || !may.afterNetworkError) throw error;
      const delay = retryDelayMs(retries, undefined);
      if (delay > retry.maxRetryDelaySeconds * 1000) throw error;
      await sleep(delay);
      continue;
    }
    if (
      last ||
      !may.afterRefusal ||
      !isRetryableStatus(response.status, response.status === 409 ? await errorName(response) : undefined, may.keyed)
    ) {
      return response;
    }
    const delay = retryDelayMs(retries, parseRetryAfter(response.headers.get('retry-after')));
    if (delay > retry.maxRetryDelaySeconds * 1000) return response;
    await discard(response);
    await sleep(delay);
  }
}

/**
 * The bearer token of an API key pair: fetched when first needed, kept until less than a minute of it is
 * left, renewed by one request however many calls need it at once. The secret is kept in a private field
 * (no log, inspection or JSON of the client shows it) and sent only in the body of POST /auth/token.
 */
export class TokenSource {
  readonly #apiKey: string;
  readonly #apiSecret: string;
  #token: { value: string; renewAt: number } | undefined;
  #last: TokenResponse | undefined;
  #pending: Promise<string> | undefined;

  constructor(
    credentials: { apiKey: string; apiSecret: string },
    private readonly tokenUrl: string,
    private readonly fetch: Fetch,
    private readonly retry: RetryOptions,
  ) {
    this.#apiKey = credentials.apiKey;
    this.#apiSecret = credentials.apiSecret;
  }

  /** A token with more than a minute left. */
  async get(): Promise<string> {
    if (this.#token && Date.now() < this.#token.renewAt) return this.#token.value;
    this.#pending ??= this.exchange().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Forgets the token the API refused, unless it has been renewed since. */
  invalidate(refused: string): void {
    if (this.#token?.value === refused) this.#token = undefined;
  }

  /** A new token now, whatever is left of the current one; it is the one later requests use. */
  async renew(): Promise<TokenResponse> {
    this.#token = undefined;
    this.#pending ??= this.exchange().finally(() => {
      this.#pending = undefined;
    });
    await this.#pending;
    return this.#last!;
  }

  private async exchange(): Promise<string> {
    const body = JSON.stringify({ apiKey: this.#apiKey, apiSecret: this.#apiSecret });
    const response = await withRetries(TOKEN_EXCHANGE, this.retry, () =>
      this.fetch(new Request(this.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })),
    );
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) throw ApiError.fromResponse(response, parsed, text);
    const token = parsed as TokenResponse;
    // From the time it arrived, by this machine's clock: the server's clock may not agree with it.
    this.#token = { value: token.accessToken, renewAt: Date.now() + token.expiresIn * 1000 - TOKEN_REFRESH_MARGIN_MS };
    this.#last = token;
    return token.accessToken;
  }
}

/**
 * The fetch the generated client sends every request through: the bearer token set on each attempt, one
 * renewal of it on a 401, and retries where they are safe.
 */
export function authorizedFetch(tokens: TokenSource, fetch: Fetch, retry: RetryOptions): Fetch {
  return async (request: Request) => {
    const may = repeatable(request.method, request.headers.has('idempotency-key'));
    let renewed = false;
    for (;;) {
      let used = '';
      const response = await withRetries(may, retry, async () => {
        used = await tokens.get();
        const attempt = request.clone();
        attempt.headers.set('authorization', `Bearer ${used}`);
        return fetch(attempt);
      });
      // A refused token (expired early, its key's signing key rotated): one new token, one more try. The
      // API checks credentials before anything else, so the refused request did nothing.
      if (response.status !== 401 || renewed) return response;
      renewed = true;
      tokens.invalidate(used);
      await discard(response);
    }
  };
}

/** The fetch of requests sent without a token (the issuer's keys, the publishable-key route): retried as any other. */
export function retryingFetch(fetch: Fetch, retry: RetryOptions): Fetch {
  return (request: Request) =>
    withRetries(repeatable(request.method, request.headers.has('idempotency-key')), retry, () =>
      fetch(request.clone()),
    );
}
