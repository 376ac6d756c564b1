// Random hex for the sandbox's simulated references (rail end-to-end ids, transaction hashes, sender
// addresses): never secrets, made on every simulated payment. Each randomBytes() call is a call into
// OpenSSL with a getpid() system call, 1.5 microseconds alone and several times that on a loaded
// machine (docs/performance.md, round fourteen), so the bytes come from a pool filled 4 KiB at a time,
// each handed out once. Secrets (keys, tokens) take crypto.randomBytes directly.
import { randomFillSync } from 'node:crypto';

const POOL_SIZE = 4096;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let offset = POOL_SIZE;

/** `bytes` random bytes (at most 4 KiB) as lowercase hex, twice as many characters. */
export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > POOL_SIZE)
    throw new RangeError(`randomHex takes 1 to ${POOL_SIZE} bytes, not ${bytes}`);
  if (offset + bytes > POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}
