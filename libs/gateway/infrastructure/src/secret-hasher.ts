// API secrets are stored only as an HMAC hash (spec: Authentication, item 1).
// The HMAC key comes from MM_SECRET_HASH_KEY, or is generated once per
// database and kept in gateway.settings.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';

@Injectable()
export class SecretHasher {
  private key?: Buffer;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly config: PlatformConfig,
  ) {}

  private async hmacKey(): Promise<Buffer> {
    if (this.key) return this.key;
    const configured = this.config.MM_SECRET_HASH_KEY;
    if (configured) return (this.key = Buffer.from(configured, 'utf8'));
    await this.uow.runDetached(() =>
      this.uow.query(
        `INSERT INTO gateway.settings (name, value) VALUES ('secret_hash_key', $1) ON CONFLICT DO NOTHING`,
        [randomBytes(32).toString('base64')],
      ),
    );
    const [row] = await this.uow.query<{ value: string }>(
      `SELECT value FROM gateway.settings WHERE name = 'secret_hash_key'`,
    );
    return (this.key = Buffer.from(row.value, 'base64'));
  }

  async hash(secret: string): Promise<string> {
    return createHmac('sha256', await this.hmacKey())
      .update(secret, 'utf8')
      .digest('hex');
  }

  async matches(secret: string, storedHash: string): Promise<boolean> {
    const actual = Buffer.from(await this.hash(secret), 'hex');
    const expected = Buffer.from(storedHash, 'hex');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
