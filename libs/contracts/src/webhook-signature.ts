// Webhook signatures (spec: Events / Delivery and verification 2; API-CONTRACT:
// Webhooks on the wire). The header is `t=<unix>,v1=<hex>`: an HMAC-SHA256 over
// `<t>.<raw body>` keyed with the UTF-8 bytes of the whole `whsec_…` key, the
// scheme Stripe's verifier also checks. The receiver side is what partners use:
// verify the raw body before parsing it, and refuse stale timestamps.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEnvelope } from './partner-events';

export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const WEBHOOK_ID_HEADER = 'webhook-id';
/** How old a signature may be, by default, before a receiver refuses it. */
export const DEFAULT_SIGNATURE_TOLERANCE_SECS = 300;

function hmacHex(signingKey: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', Buffer.from(signingKey, 'utf8')).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/**
 * The `Webhook-Signature` header value for a body sent at `timestamp` (unix seconds): one `v1` per key, the
 * current key's first (during a rotation's overlap, the previous key signs too).
 */
export function signWebhookPayload(
  signingKeys: string | readonly string[],
  rawBody: string | Buffer,
  timestamp: number,
): string {
  const keys = typeof signingKeys === 'string' ? [signingKeys] : signingKeys;
  return [`t=${timestamp}`, ...keys.map((key) => `v1=${hmacHex(key, timestamp, rawBody)}`)].join(',');
}

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export interface VerifyOptions {
  /** Largest accepted age (and clock skew) of the timestamp, in seconds; 300 by default. */
  toleranceSecs?: number;
  /** The receiver's time in unix seconds; the wall clock by default. */
  now?: number;
}

/**
 * Throws WebhookSignatureError unless the header carries a `v1` signature of this exact body
 * under this key, with a timestamp within the tolerance. Give it the raw bytes as received:
 * a re-serialised JSON body does not verify.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string | undefined,
  signingKey: string,
  options: VerifyOptions = {},
): void {
  if (!header) throw new WebhookSignatureError('no Webhook-Signature header');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined) throw new WebhookSignatureError('the Webhook-Signature header has no timestamp');
  if (signatures.length === 0) throw new WebhookSignatureError('the Webhook-Signature header has no v1 signature');
  const tolerance = options.toleranceSecs ?? DEFAULT_SIGNATURE_TOLERANCE_SECS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookSignatureError(`the signature timestamp is more than ${tolerance} s from now`);
  const expected = Buffer.from(hmacHex(signingKey, timestamp, rawBody), 'hex');
  if (!signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected)))
    throw new WebhookSignatureError('no signature matches the body and the signing key');
}

/** Verifies, then parses: the envelope of a delivery that really came from the service. */
export function constructWebhookEvent<Data = Record<string, unknown>>(
  rawBody: string | Buffer,
  header: string | undefined,
  signingKey: string,
  options?: VerifyOptions,
): WebhookEnvelope<Data> {
  verifyWebhookSignature(rawBody, header, signingKey, options);
  return JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as WebhookEnvelope<Data>;
}
