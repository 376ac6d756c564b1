// The issuer's ES256 signing keys and the public keyset (JWKS) that verifies
// them. Public keys are cached by kid; an unknown kid reloads the keyset, and
// a keyset that cannot be read is reported as such (spec: 503
// temporarily_unavailable), never as a bad token.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { KeysetUnavailableError, type SigningKeyset } from '@mm/platform/auth';
import { UnitOfWork } from '@mm/platform/database';

interface SigningKeyRow {
  kid: string;
  private_key_pem: string;
  public_jwk: JsonWebKey;
}

const RELOAD_INTERVAL_MS = 5_000;

@Injectable()
export class SigningKeys implements SigningKeyset {
  private readonly logger = new Logger('signing-keys');
  private publicKeys = new Map<string, KeyObject>();
  private lastLoad = 0;
  private active?: { kid: string; privateKey: KeyObject };

  constructor(private readonly uow: UnitOfWork) {}

  /** The key new tokens are signed with; created on first use. */
  async activeKey(): Promise<{ kid: string; privateKey: KeyObject }> {
    if (this.active) return this.active;
    let [row] = await this.uow.query<SigningKeyRow>(
      `SELECT kid, private_key_pem, public_jwk FROM gateway.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    if (!row) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const kid = `sig_${randomBytes(12).toString('hex')}`;
      const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
      await this.uow.runDetached(() =>
        this.uow.query(`INSERT INTO gateway.signing_keys (kid, private_key_pem, public_jwk) VALUES ($1, $2, $3::jsonb)`, [
          kid,
          privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          JSON.stringify(jwk),
        ]),
      );
      this.logger.log(`created token signing key ${kid}`);
      [row] = await this.uow.query<SigningKeyRow>(
        `SELECT kid, private_key_pem, public_jwk FROM gateway.signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
      );
    }
    this.active = { kid: row.kid, privateKey: createPrivateKey(row.private_key_pem) };
    return this.active;
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
        `SELECT kid, private_key_pem, public_jwk FROM gateway.signing_keys
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
