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

  /** A new key for the endpoint, retiring the current one at once; returns it (the only time it is shown). */
  async issue(webhookId: string, at: string): Promise<string> {
    const key = `whsec_${randomBytes(32).toString('base64')}`;
    const ring = this.keyRing();
    await this.uow.query(
      `UPDATE webhooks.signing_keys SET retired_at = $2 WHERE webhook_id = $1 AND retired_at IS NULL`,
      [webhookId, at],
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
