import type { MigrationInterface, QueryRunner } from 'typeorm';
import { API_KEY_REVOCATIONS_CHANNEL } from '@mm/platform/auth';

/**
 * Every process that caches verified tokens hears a revocation when it commits
 * (libs/platform/auth VerifiedTokens). A trigger, so that no code path that sets
 * revoked_at can forget to tell them.
 */
export class GatewayApiKeyRevocations1700000001500 implements MigrationInterface {
  name = 'GatewayApiKeyRevocations1700000001500';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE FUNCTION gateway.notify_api_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${API_KEY_REVOCATIONS_CHANNEL}', NEW.api_key);
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE TRIGGER api_key_revoked AFTER UPDATE OF revoked_at ON gateway.api_keys
      FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
      EXECUTE FUNCTION gateway.notify_api_key_revoked()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER api_key_revoked ON gateway.api_keys`);
    await runner.query(`DROP FUNCTION gateway.notify_api_key_revoked()`);
  }
}
