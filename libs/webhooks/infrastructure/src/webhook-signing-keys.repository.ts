// Endpoint signing keys (API-CONTRACT: Webhooks on the wire): `whsec_` and the
// base64 of 32 random bytes, shown once; stored sealed with the key ring under
// a context naming the endpoint, so a sealed key cannot be moved to another row.
import { randomBytes } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { lazyKeyRing, PlatformConfig, type KeyRing } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';

const context = (webhookId: string) => `webhook signing key ${webhookId}`;

/** Opened keys kept at most, by their sealed bytes: a delivery's key is opened once, not for every delivery. */
const OPENED_KEYS_KEPT = 1_000;

/** How long a rotated key goes on signing beside its successor (Svix's overlap): a day, on the project's clock. */
export const PREVIOUS_KEY_OVERLAP_HOURS = 24;

/** A retired key that still signs until `until`, as the endpoint's and the claim's queries read it. */
export interface PreviousSigningKey {
  encryptionKeyId: string;
  /** The sealed key, base64. */
  sealed: string;
  until: string;
}

/**
 * The retired keys of the endpoint `e` that still sign at `now` (a SQL expression), newest first, as a JSON
 * array of PreviousSigningKey.
 */
export function previousKeysColumn(now: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('encryptionKeyId', p.encryption_key_id,
             'sealed', encode(p.key_sealed, 'base64'), 'until', p.verifies_until) ORDER BY p.id DESC), '[]'::json)
             FROM webhooks.signing_keys p
            WHERE p.webhook_id = e.id AND p.retired_at IS NOT NULL AND p.verifies_until > ${now}) AS previous_keys`;
}

@Injectable()
export class WebhookSigningKeys {
  private readonly logger = new Logger('webhook-signing-keys');
  private readonly keyRing: () => KeyRing;
  /**
   * Keys already opened, by endpoint, encryption key and sealed bytes: the same sealed bytes always open to the
   * same key, so an entry is never stale (a new key is new bytes). Opening one (an AES-GCM decryption) was about
   * 2% of the process's CPU in a burst of deliveries.
   */
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly uow: UnitOfWork,
    config: PlatformConfig,
  ) {
    this.keyRing = lazyKeyRing(config, this.logger);
  }

  /**
   * A new key for the endpoint; returns it (the only time it is shown). The current one is retired, and signs
   * beside the new one until PREVIOUS_KEY_OVERLAP_HOURS later (docs/webhooks.md, rotating the key).
   */
  async issue(webhookId: string, at: string): Promise<string> {
    const key = `whsec_${randomBytes(32).toString('base64')}`;
    const ring = this.keyRing();
    await this.uow.query(
      `UPDATE webhooks.signing_keys SET retired_at = $2, verifies_until = $2::timestamptz + make_interval(hours => $3)
        WHERE webhook_id = $1 AND retired_at IS NULL`,
      [webhookId, at, PREVIOUS_KEY_OVERLAP_HOURS],
    );
    await this.uow.query(
      `INSERT INTO webhooks.signing_keys (webhook_id, encryption_key_id, key_sealed, created_at) VALUES ($1, $2, $3, $4)`,
      [webhookId, ring.currentId, ring.seal(Buffer.from(key, 'utf8'), context(webhookId)), at],
    );
    return key;
  }

  /** The endpoint's current key, to sign a delivery. */
  async current(webhookId: string): Promise<string | undefined> {
    const [row] = await this.uow.query<{ encryption_key_id: string; key_sealed: Buffer }>(
      `SELECT encryption_key_id, key_sealed FROM webhooks.signing_keys WHERE webhook_id = $1 AND retired_at IS NULL`,
      [webhookId],
    );
    return row ? this.open(webhookId, row.encryption_key_id, row.key_sealed) : undefined;
  }

  /** The keys a delivery is signed with at `at`: its endpoint's current key, then the retired ones still signing. */
  signingKeysAt(
    webhookId: string,
    current: { encryption_key_id: string; key_sealed: Buffer },
    previous: PreviousSigningKey[],
    at: Date,
  ): string[] {
    return [
      this.open(webhookId, current.encryption_key_id, current.key_sealed),
      ...previous
        .filter((key) => new Date(key.until) > at)
        .map((key) => this.open(webhookId, key.encryptionKeyId, Buffer.from(key.sealed, 'base64'))),
    ];
  }

  /** A key read with its delivery (the worker's claim). */
  open(webhookId: string, encryptionKeyId: string, sealed: Buffer): string {
    const id = `${webhookId} ${encryptionKeyId} ${sealed.toString('base64')}`;
    let key = this.opened.get(id);
    if (key === undefined) {
      key = this.keyRing().open(encryptionKeyId, sealed, context(webhookId), context(webhookId)).toString('utf8');
      if (this.opened.size >= OPENED_KEYS_KEPT) this.opened.clear();
      this.opened.set(id, key);
    }
    return key;
  }
}
