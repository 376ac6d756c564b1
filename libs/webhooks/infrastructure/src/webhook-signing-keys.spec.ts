import { randomBytes } from 'node:crypto';
import { KeyRing, loadConfig } from '@mm/platform/config';
import type { UnitOfWork } from '@mm/platform/database';
import { WebhookSigningKeys } from './webhook-signing-keys.repository';

describe('opening a sealed signing key', () => {
  const keys = `k1:${randomBytes(32).toString('base64')}`;
  const ring = KeyRing.parse(keys);
  // open() reads nothing from the database.
  const signingKeys = new WebhookSigningKeys(
    undefined as unknown as UnitOfWork,
    loadConfig({ DATABASE_URL: 'postgres://unused', MM_SIGNING_KEY_ENCRYPTION_KEYS: keys }),
  );
  const seal = (webhookId: string, key: string) =>
    ring.seal(Buffer.from(key, 'utf8'), `webhook signing key ${webhookId}`);

  it('opens the key sealed for the endpoint, again and again, and a new key once rotated', () => {
    const first = seal('wh_a', 'whsec_first');
    expect(signingKeys.open('wh_a', ring.currentId, first)).toBe('whsec_first');
    expect(signingKeys.open('wh_a', ring.currentId, first)).toBe('whsec_first');
    expect(signingKeys.open('wh_a', ring.currentId, seal('wh_a', 'whsec_second'))).toBe('whsec_second');
  });

  it('refuses a key sealed for another endpoint, even one opened already for that endpoint, and tampered bytes', () => {
    const sealed = seal('wh_b', 'whsec_b');
    expect(signingKeys.open('wh_b', ring.currentId, sealed)).toBe('whsec_b');
    expect(() => signingKeys.open('wh_c', ring.currentId, sealed)).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => signingKeys.open('wh_b', ring.currentId, tampered)).toThrow();
  });
});
