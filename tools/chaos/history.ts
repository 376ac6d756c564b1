// The fault run's record of what clients did (Jepsen's history): every operation with its outcome, which the
// checker reads beside what the API answers afterwards.

/**
 * ok: answered 2xx; failed: a definite refusal (4xx other than 409 in flight and 429, which are retried);
 * unknown: no answer (cut off, timed out, 5xx after the retries ran out), so it may or may not have taken effect.
 */
export type Outcome = 'ok' | 'failed' | 'unknown';

export interface Operation {
  /** Sequence number in the run. */
  n: number;
  /** The client (worker) that sent it. */
  client: number;
  /** What it was: `createCustomer`, `fundWallet`, `transfer`, `createQuote`, `refund`, ... */
  kind: string;
  method: string;
  path: string;
  /** The Idempotency-Key it was sent with (the same on every retry of the operation). */
  idempotencyKey?: string;
  body?: unknown;
  outcome: Outcome;
  /** The last HTTP status seen, if any. */
  status?: number;
  /** The answer's body when ok (ids the checker follows), the error's when failed. */
  response?: any;
  /** Why it is unknown or failed, in a line. */
  error?: string;
  /** Attempts sent (1 + retries). */
  attempts: number;
  startedAt: number;
  endedAt: number;
}

export interface Anomaly {
  /** A short kebab-case name: `duplicate-effect`, `balance-mismatch`, `negative-balance`, `stuck-transaction`, ... */
  kind: string;
  /** One line saying what was expected and what was found. */
  message: string;
  /** Whatever shows it: ids, the operations, the reads. */
  detail?: unknown;
}
