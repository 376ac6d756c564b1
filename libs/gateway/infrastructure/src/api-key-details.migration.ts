import type { MigrationInterface, QueryRunner } from 'typeorm';
import { API_KEY_REVOCATIONS_CHANNEL } from '@mm/platform/auth';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger } from '@mm/platform/database';

const TRIGGER = { name: 'notify_api_key_expiry', table: 'gateway.api_keys' };

/**
 * A key's name and scopes (null: every scope), when a roll makes it stop working and into which key, and when
 * it last obtained a token (docs/operators.md, "API keys"). A new expiry is heard by every process that
 * remembers verified tokens, as a revocation is, so that none answers from a token of the key past it.
 */
export class GatewayApiKeyDetails1700000001960 implements MigrationInterface {
  name = 'GatewayApiKeyDetails1700000001960';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE gateway.api_keys
        ADD COLUMN name         text,
        ADD COLUMN scopes       text[],
        ADD COLUMN expires_at   timestamptz,
        ADD COLUMN rolled_into  text,
        ADD COLUMN last_used_at timestamptz`);
    await runner.query(
      `CREATE INDEX api_keys_by_project ON gateway.api_keys (project_id, created_at DESC, api_key DESC)`,
    );
    await createChangeNotifyTrigger(runner, {
      ...TRIGGER,
      events: 'AFTER UPDATE OF expires_at',
      when: 'NEW.expires_at IS DISTINCT FROM OLD.expires_at',
      channel: API_KEY_REVOCATIONS_CHANNEL,
      groupColumn: 'api_key',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, TRIGGER);
    await runner.query(`DROP INDEX gateway.api_keys_by_project`);
    await runner.query(`
      ALTER TABLE gateway.api_keys
        DROP COLUMN name, DROP COLUMN scopes, DROP COLUMN expires_at, DROP COLUMN rolled_into, DROP COLUMN last_used_at`);
  }
}
