// Spec: Events / Delivery and verification 2; API-CONTRACT: Webhooks on the wire.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  constructWebhookEvent,
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookSignatureError,
} from './webhook-signature';

const key = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4ZWXjPW0y6s=';
const now = 1_800_000_000;

describe('webhook signatures', () => {
  it('is t=<unix>,v1=<hex of HMAC-SHA256 over "<t>.<raw body>" keyed with the whole key as UTF-8>', () => {
    const body = '{"id":"whd_1","event":"webhook.test"}';
    const expected = createHmac('sha256', key).update(`${now}.${body}`).digest('hex');
    expect(signWebhookPayload(key, body, now)).toBe(`t=${now},v1=${expected}`);
  });

  it('verifies what it signs, for any body, and refuses any change to it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (body, extra) => {
        const header = signWebhookPayload(key, body, now);
        verifyWebhookSignature(body, header, key, { now });
        expect(() => verifyWebhookSignature(body + extra, header, key, { now })).toThrow(WebhookSignatureError);
      }),
    );
  });

  it('refuses stale and future timestamps beyond the tolerance, another key, and malformed headers', () => {
    const body = '{}';
    const header = signWebhookPayload(key, body, now);
    verifyWebhookSignature(body, header, key, { now: now + 300 });
    expect(() => verifyWebhookSignature(body, header, key, { now: now + 301 })).toThrow(/300 s/);
    expect(() => verifyWebhookSignature(body, header, key, { now: now - 301 })).toThrow(/300 s/);
    verifyWebhookSignature(body, header, key, { now: now + 3600, toleranceSecs: 3600 });
    expect(() => verifyWebhookSignature(body, header, `${key}x`, { now })).toThrow(/no signature matches/);
    for (const bad of [undefined, '', 'v1=abc', `t=${now}`, `t=x,v1=${'0'.repeat(64)}`])
      expect(() => verifyWebhookSignature(body, bad, key, { now })).toThrow(WebhookSignatureError);
  });

  it('accepts any of several v1 signatures (a receiver during a key change), and parses only after verifying', () => {
    const body = '{"id":"whd_1","event":"webhook.test","createdAt":"2026-01-01T00:00:00.000Z","data":{}}';
    const header = `${signWebhookPayload(key, body, now)},v1=${'0'.repeat(64)}`;
    expect(constructWebhookEvent(body, header, key, { now })).toEqual(JSON.parse(body));
    expect(() => constructWebhookEvent(body, header.replace(/v1=[0-9a-f]{8}/, 'v1=00000000'), key, { now })).toThrow(
      WebhookSignatureError,
    );
  });

  it('signs with each key given, the current first, so that a receiver holding any of them verifies', () => {
    const previous = 'whsec_previousKeyOfTheEndpoint00000000000000000=';
    const body = '{"id":"whd_2"}';
    const header = signWebhookPayload([key, previous], body, now);
    const hex = (signingKey: string) => createHmac('sha256', signingKey).update(`${now}.${body}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${hex(key)},v1=${hex(previous)}`);
    verifyWebhookSignature(body, header, key, { now });
    verifyWebhookSignature(body, header, previous, { now });
    expect(() => verifyWebhookSignature(body, header, `${key}x`, { now })).toThrow(WebhookSignatureError);
  });
});
