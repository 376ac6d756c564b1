// The issuer's ES256 signing keys and the public keyset (JWKS) that verifies
// them. Public keys are cached by kid; an unknown kid reloads the keyset, and
// a keyset that cannot be read is reported as such (spec: 503
// temporarily_unavailable), never as a bad token. Private keys are stored
// sealed under MM_SIGNING_KEY_ENCRYPTION_KEYS (ADR 0010): a copy of the
// database alone signs nothing.
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { KeysetUnavailableError, type SigningKeyset } from '@mm/platform/auth';
import { lazyKeyRing, PlatformConfig, type KeyRing } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';

interface SigningKeyRow {
  kid: string;
  public_jwk: JsonWebKey;
}

interface PrivateKeyRow {
  kid: string;
  /** Only on rows written before sealing existed, until start-up seals them. */
  legacy_private_key_pem: string | null;
  private_key_sealed: Buffer | null;
  encryption_key_id: string | null;
}

const PRIVATE_KEY_COLUMNS = 'kid, legacy_private_key_pem, private_key_sealed, encryption_key_id';

const RELOAD_INTERVAL_MS = 5_000;

@Injectable()
export class SigningKeys implements SigningKeyset, OnModuleInit {
  private readonly logger = new Logger('signing-keys');
  private publicKeys = new Map<string, KeyObject>();
  private lastLoad = 0;
  private active?: { kid: string; privateKey: KeyObject };
  private readonly keyRing: () => KeyRing;

  constructor(
    private readonly uow: UnitOfWork,
    config: PlatformConfig,
  ) {
    this.keyRing = lazyKeyRing(config, this.logger);
  }

  /**
   * Start-up: every stored private key must open under the configured ring, and
   * is re-sealed under its current key (a rotation, or a row from before
   * sealing); one that cannot be opened stops start-up with the reason.
   */
  async onModuleInit(): Promise<void> {
    const ring = this.keyRing();
    await this.uow.runDetached(async () => {
      // Locked: instances starting together re-seal each row once.
      const rows = await this.uow.query<PrivateKeyRow>(
        `SELECT ${PRIVATE_KEY_COLUMNS} FROM gateway.signing_keys ORDER BY kid FOR UPDATE`,
      );
      for (const row of rows) {
        const der = this.open(row);
        if (row.encryption_key_id === ring.currentId && !row.legacy_private_key_pem) continue;
        await this.uow.query(
          `UPDATE gateway.signing_keys SET private_key_sealed = $2, encryption_key_id = $3, legacy_private_key_pem = NULL WHERE kid = $1`,
          [row.kid, ring.seal(der, row.kid), ring.currentId],
        );
        this.logger.log(
          `signing key ${row.kid} re-encrypted under key "${ring.currentId}" (was ${row.encryption_key_id ? `"${row.encryption_key_id}"` : 'unencrypted'})`,
        );
      }
    });
  }

  /**
   * The key new tokens are signed with; created on first use, by one process at a time: gateways signing
   * their first tokens together make one key, so none meets a kid its public keys lack (ADR 0025).
   */
  async activeKey(): Promise<{ kid: string; privateKey: KeyObject }> {
    if (this.active) return this.active;
    const current = async () =>
      (
        await this.uow.query<PrivateKeyRow>(
          `SELECT ${PRIVATE_KEY_COLUMNS} FROM gateway.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
        )
      )[0] as PrivateKeyRow | undefined;
    const row =
      (await current()) ??
      (await this.uow.runDetached(async () => {
        await this.uow.query(`SELECT pg_advisory_xact_lock(7346005)`);
        const made = await current();
        if (made) return made;
        const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const kid = `sig_${randomBytes(12).toString('hex')}`;
        const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
        const ring = this.keyRing();
        const [inserted] = await this.uow.query<PrivateKeyRow>(
          `INSERT INTO gateway.signing_keys (kid, private_key_sealed, encryption_key_id, public_jwk) VALUES ($1, $2, $3, $4::jsonb)
           RETURNING ${PRIVATE_KEY_COLUMNS}`,
          [
            kid,
            ring.seal(privateKey.export({ type: 'pkcs8', format: 'der' }), kid),
            ring.currentId,
            JSON.stringify(jwk),
          ],
        );
        this.logger.log(`created token signing key ${kid}`);
        return inserted;
      }));
    this.active = { kid: row.kid, privateKey: createPrivateKey({ key: this.open(row), format: 'der', type: 'pkcs8' }) };
    return this.active;
  }

  /** The PKCS#8 DER of a stored private key. */
  private open(row: PrivateKeyRow): Buffer {
    if (row.legacy_private_key_pem)
      return createPrivateKey(row.legacy_private_key_pem).export({ type: 'pkcs8', format: 'der' });
    return this.keyRing().open(
      row.encryption_key_id!,
      row.private_key_sealed!,
      row.kid,
      `token signing key ${row.kid}`,
    );
  }

  async publicKey(kid: string): Promise<KeyObject | undefined> {
    const cached = this.publicKeys.get(kid);
    if (cached) return cached;
    if (Date.now() - this.lastLoad < RELOAD_INTERVAL_MS && this.publicKeys.size > 0) return undefined;
    await this.reload();
    return this.publicKeys.get(kid);
  }

  /** The JSON Web Key Set of every key that may still verify a live token. */
  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    const rows = await this.load();
    return { keys: rows.map((r) => r.public_jwk) };
  }

  private async load(): Promise<SigningKeyRow[]> {
    try {
      return await this.uow.query<SigningKeyRow>(
        `SELECT kid, public_jwk FROM gateway.signing_keys
          WHERE retired_at IS NULL OR retired_at > now() - interval '2 hours'`,
      );
    } catch (error) {
      this.logger.error(`signing keyset unavailable: ${String(error)}`);
      throw new KeysetUnavailableError('signing keyset unavailable');
    }
  }

  private async reload(): Promise<void> {
    const rows = await this.load();
    this.publicKeys = new Map(rows.map((r) => [r.kid, createPublicKey({ key: r.public_jwk, format: 'jwk' })]));
    this.lastLoad = Date.now();
  }
}
