// Waiting for the sandbox: much of what the API does happens a moment after it
// answers (endorsements approved, accounts provisioned, payouts settled), and a
// partner's script or test reads the resource until it is there.

export interface WaitForOptions {
  /** How long to keep reading, in milliseconds (30 000). */
  timeoutMs?: number;
  /** How long between reads, in milliseconds (250). */
  intervalMs?: number;
}

/** Reads with `read` until `done` says yes, and returns what was read then; throws, with the last value, after `timeoutMs`. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= deadline)
      throw new Error(`waitFor: not done after ${timeoutMs} ms; last read: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
