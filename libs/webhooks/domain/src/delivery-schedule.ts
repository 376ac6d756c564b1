// When a delivery is tried and when an endpoint is unhealthy (spec: Events /
// Delivery and verification 3 and 4; States/Webhook). No status code is special:
// any non-2xx answer, timeout or network error is one failed attempt.

/** Delay before the next attempt, by attempts so far: 0s, 5s, 10s, 30s, 1m, 10m, 1h, 6h, 1d, 2d. */
export const RETRY_DELAYS_SECS: readonly number[] = [0, 5, 10, 30, 60, 600, 3600, 6 * 3600, 86_400, 2 * 86_400];

/** After this many failed attempts a delivery is `failed` (about three days after the first). */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECS.length;

/** Continuous failure for this long (no success, a failed attempt since the last one) suspends an endpoint. */
export const SUSPEND_AFTER_SECS = 3 * 86_400;

/** Seconds until the next attempt after `attemptsSoFar` failed ones; undefined once they are exhausted. */
export function retryDelaySecs(attemptsSoFar: number): number | undefined {
  return attemptsSoFar >= 0 && attemptsSoFar < MAX_ATTEMPTS ? RETRY_DELAYS_SECS[attemptsSoFar] : undefined;
}

/** A 2xx is the only success. */
export function isDelivered(statusCode: number | undefined): boolean {
  return statusCode !== undefined && statusCode >= 200 && statusCode < 300;
}

/** Whether a failure at `failedAt` on an endpoint down since `downSince` suspends it. */
export function shouldSuspend(downSince: Date, failedAt: Date): boolean {
  return failedAt.getTime() - downSince.getTime() >= SUSPEND_AFTER_SECS * 1000;
}
