// Issue 21, item 1: webhooks.verify checks a delivery as the API signs it
// (Webhook-Signature `t=<unix>,v1=<hex>`, an HMAC-SHA256 of `<t>.<raw body>`
// keyed with the UTF-8 bytes of the whole `whsec_…` key), returns the typed
// envelope, and says clearly why it refuses one. The signatures here are made
// the way the API's own documentation describes, with node:crypto.
import { createHmac, randomBytes } from 'node:crypto';
import {
  eventTypeOf,
  MoneyMovement,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../src';

const KEY = `whsec_${randomBytes(32).toString('base64')}`;
const ENVELOPE = {
  id: 'whd_01m87bvejhfvptagftmmfq3bsy',
  event: 'wallet.provisioned',
  sequence: 1,
  createdAt: '2026-03-02T15:52:37.080Z',
  data: { id: 'wlt_1', object: 'wallet' },
};
const RAW = JSON.stringify(ENVELOPE);
const now = () => Math.floor(Date.now() / 1000);
const sign = (raw: string, t = now(), key = KEY) =>
  `t=${t},v1=${createHmac('sha256', Buffer.from(key, 'utf8')).update(`${t}.${raw}`).digest('hex')}`;
const client = new MoneyMovement({ apiKey: 'sk_sdbx_x', apiSecret: 'x', baseUrl: 'http://127.0.0.1:1/v0.13' });

function refusal(run: () => unknown): { reason: WebhookVerificationReason; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return { reason: (error as WebhookVerificationError).reason, message: (error as Error).message };
  }
  throw new Error('verified');
}

describe('webhooks.verify', () => {
  it("returns the envelope of a delivery signed with the endpoint's key, from a string or the raw bytes", () => {
    const event = client.webhooks.verify(RAW, sign(RAW), KEY);
    expect(event).toEqual(ENVELOPE);
    expect(eventTypeOf(event)).toBe('wallet.provisioned');
    expect(verifyWebhook(Buffer.from(RAW), sign(RAW), KEY)).toEqual(ENVELOPE);
    expect(verifyWebhook(new Uint8Array(Buffer.from(RAW)), sign(RAW), KEY)).toEqual(ENVELOPE);
  });

  it('accepts a header with several v1 signatures when one matches', () => {
    const t = now();
    const other = sign(RAW, t, `whsec_${randomBytes(32).toString('base64')}`).split(',')[1];
    expect(client.webhooks.verify(RAW, `t=${t},${other},${sign(RAW, t).split(',')[1]}`, KEY)).toEqual(ENVELOPE);
  });

  it('refuses a body that is not the one signed, and a signature of another key', () => {
    const tampered = RAW.replace('wlt_1', 'wlt_2');
    expect(refusal(() => client.webhooks.verify(tampered, sign(RAW), KEY))).toEqual({
      reason: 'badSignature',
      message: expect.stringContaining('no v1 signature'),
    });
    expect(
      refusal(() => client.webhooks.verify(RAW, sign(RAW), `whsec_${randomBytes(32).toString('base64')}`)).reason,
    ).toBe('badSignature');
    // The body re-serialised after parsing is not the raw body.
    expect(refusal(() => client.webhooks.verify(JSON.stringify(JSON.parse(RAW), null, 1), sign(RAW), KEY)).reason).toBe(
      'badSignature',
    );
  });

  it('refuses a stale timestamp, and says how old it is, however well signed', () => {
    const old = now() - 301;
    expect(refusal(() => client.webhooks.verify(RAW, sign(RAW, old), KEY))).toEqual({
      reason: 'staleTimestamp',
      message: expect.stringMatching(/is 30\d s old, beyond the tolerance of 300 s/),
    });
    expect(refusal(() => client.webhooks.verify(RAW, sign(RAW, now() + 400), KEY)).message).toMatch(/in the future/);
    // Within the default tolerance, and with one of the caller's own.
    expect(client.webhooks.verify(RAW, sign(RAW, now() - 290), KEY)).toEqual(ENVELOPE);
    expect(
      refusal(() => client.webhooks.verify(RAW, sign(RAW, now() - 90), KEY, { toleranceSeconds: 60 })).reason,
    ).toBe('staleTimestamp');
    expect(client.webhooks.verify(RAW, sign(RAW, old), KEY, { toleranceSeconds: 600 })).toEqual(ENVELOPE);
  });

  it('refuses a delivery with no signature, or one it cannot read', () => {
    expect(refusal(() => client.webhooks.verify(RAW, undefined, KEY)).reason).toBe('missingSignature');
    expect(refusal(() => client.webhooks.verify(RAW, '', KEY)).reason).toBe('missingSignature');
    expect(refusal(() => client.webhooks.verify(RAW, 'v1=abc', KEY))).toEqual({
      reason: 'malformedSignature',
      message: expect.stringContaining('no timestamp'),
    });
    expect(refusal(() => client.webhooks.verify(RAW, `t=${now()}`, KEY))).toEqual({
      reason: 'malformedSignature',
      message: expect.stringContaining('no v1 signature'),
    });
    expect(refusal(() => client.webhooks.verify('not json', sign('not json'), KEY)).reason).toBe('malformedBody');
  });
});
