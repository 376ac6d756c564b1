// Verifying a webhook delivery as the API signs it: the header
// `Webhook-Signature: t=<unix seconds>,v1=<hex>`, the hex an HMAC-SHA256 of
// `<t>.<raw body>` keyed with the UTF-8 bytes of the endpoint's whole signing key
// (`whsec_…`), made afresh on every attempt. Checked against the raw bytes before
// anything is parsed, in constant time, and refused when the timestamp is older
// (or newer) than the tolerance, so that a recorded delivery cannot be replayed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors';
import type { WebhookEvent, WebhookEventType } from './types';

export interface VerifyOptions {
  /** How far the signature's timestamp may be from now, in seconds (300). */
  toleranceSeconds?: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

function parseHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined)
    throw new WebhookVerificationError(
      'malformedSignature',
      'the Webhook-Signature header has no timestamp (t=<unix seconds>)',
    );
  if (signatures.length === 0)
    throw new WebhookVerificationError(
      'malformedSignature',
      'the Webhook-Signature header has no v1 signature (v1=<64 hex digits>)',
    );
  return { timestamp, signatures };
}

/**
 * The envelope of a delivery whose signature is the endpoint's and recent; throws a
 * WebhookVerificationError saying why otherwise (`reason`: missingSignature, malformedSignature,
 * badSignature, staleTimestamp, malformedBody). Pass the body exactly as received, before any parsing.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | readonly string[] | null | undefined,
  signingKey: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const header = Array.isArray(signatureHeader)
    ? signatureHeader.join(',')
    : (signatureHeader as string | null | undefined);
  if (!header) throw new WebhookVerificationError('missingSignature', 'the delivery has no Webhook-Signature header');
  if (!signingKey) throw new TypeError("verify needs the endpoint's signing key (whsec_…)");
  const { timestamp, signatures } = parseHeader(header);
  const body =
    typeof rawBody === 'string'
      ? Buffer.from(rawBody, 'utf8')
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', Buffer.from(signingKey, 'utf8')).update(`${timestamp}.`).update(body).digest();
  if (!signatures.some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected))) {
    throw new WebhookVerificationError(
      'badSignature',
      "no v1 signature of the Webhook-Signature header matches this body and signing key: check that the body is the raw bytes received and the key is this endpoint's current one",
    );
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const age = Math.floor(Date.now() / 1000) - timestamp;
  if (Math.abs(age) > tolerance) {
    throw new WebhookVerificationError(
      'staleTimestamp',
      `the signature's timestamp is ${Math.abs(age)} s ${age >= 0 ? 'old' : 'in the future'}, beyond the tolerance of ${tolerance} s: refuse it (a replayed delivery, or a clock that is off)`,
    );
  }
  try {
    return JSON.parse(body.toString('utf8')) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformedBody', 'the signed body is not JSON');
  }
}

/** The event's type, wherever its envelope names it (`event`, or `eventType` on the `*.statusChanged` events). */
export function eventTypeOf(envelope: WebhookEvent): WebhookEventType {
  return (
    'event' in envelope ? envelope.event : (envelope as { eventType: WebhookEventType }).eventType
  ) as WebhookEventType;
}
