import type { MigrationInterface, QueryRunner } from 'typeorm';
import { API_KEY_REVOCATIONS_CHANNEL } from '@mm/platform/auth';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger } from '@mm/platform/database';

const TRIGGER = { name: 'notify_api_key_revoked', table: 'gateway.api_keys' };

/** Every process that remembers verified tokens hears a revocation when it commits (libs/platform/auth VerifiedTokens). */
export class GatewayApiKeyRevocations1700000001500 implements MigrationInterface {
  name = 'GatewayApiKeyRevocations1700000001500';

  async up(runner: QueryRunner): Promise<void> {
    await createChangeNotifyTrigger(runner, {
      ...TRIGGER,
      events: 'AFTER UPDATE OF revoked_at',
      when: 'NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL',
      channel: API_KEY_REVOCATIONS_CHANNEL,
      groupColumn: 'api_key',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, TRIGGER);
  }
}
