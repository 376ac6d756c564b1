// Which API keys may be used, for a service that does not own them: a
// projection of the gateway's apiKey.created and apiKey.revoked events into the
// service's own database (services talk only through events). A revocation
// updates the row, whose trigger tells VerifiedTokens (RevocationFeed), as the
// gateway's own table does in platform mode. The projection lags a revocation by
// the event's delivery: it only ever refuses early (a revocation is final), and
// a request that did not come through the gateway also asks the gateway
// (DirectRequestKeyCheck, ADR 0057).
import { Controller, Injectable } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { EventPayloads } from '@mm/contracts';
import { createChangeNotifyTrigger, UnitOfWork } from '@mm/platform/database';
import { API_KEY_REVOCATIONS_CHANNEL, revokeEverywhere } from './revocation-feed';
import { VerifiedTokens } from './verified-tokens';
import type { ApiKeyRegistry } from './token-claims';

@Injectable()
export class ApiKeyDirectory implements ApiKeyRegistry {
  constructor(private readonly uow: UnitOfWork) {}

  /**
   * A key this service has not heard of yet is taken as active: the token's signature already
   * proves the gateway issued it for that project, and the key's creation only travels ahead of
   * its revocation, never behind. A revoked key, or one of another project, is refused. A rolled
   * key's expiry is the gateway's to enforce: it checks every request it forwards, and is asked
   * about every other (DirectRequestKeyCheck).
   */
  async usableUntil(apiKey: string, projectId: string): Promise<number> {
    const [row] = await this.uow.query<{ project_id: string; revoked: boolean }>(
      `SELECT project_id, revoked_at IS NOT NULL AS revoked FROM platform.api_keys WHERE api_key = $1`,
      [apiKey],
    );
    return !row || (row.project_id === projectId && !row.revoked) ? Infinity : 0;
  }
}

/**
 * The gateway's key events, as the event transport delivers them (at least once: both writes are idempotent).
 * A revocation is handled once every process of the service has dropped the key's tokens.
 */
@Controller()
export class ApiKeyEventsController {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly tokens: VerifiedTokens,
  ) {}

  @EventPattern('apiKey.created')
  async onCreated(@Payload() event: { data: EventPayloads['apiKey.created'] }): Promise<void> {
    await this.uow.query(
      `INSERT INTO platform.api_keys (api_key, project_id) VALUES ($1, $2) ON CONFLICT (api_key) DO NOTHING`,
      [event.data.apiKey, event.data.projectId],
    );
  }

  @EventPattern('apiKey.revoked')
  async onRevoked(@Payload() event: { data: EventPayloads['apiKey.revoked'] }): Promise<void> {
    await revokeEverywhere(this.uow, this.tokens, event.data.apiKey, () =>
      this.uow.query(
        `INSERT INTO platform.api_keys (api_key, project_id, revoked_at) VALUES ($1, $2, $3)
         ON CONFLICT (api_key) DO UPDATE SET revoked_at = coalesce(platform.api_keys.revoked_at, EXCLUDED.revoked_at)`,
        [event.data.apiKey, event.data.projectId, event.data.revokedAt],
      ),
    );
  }
}

export class PlatformApiKeys1700000000300 implements MigrationInterface {
  name = 'PlatformApiKeys1700000000300';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
    await runner.query(`
      CREATE TABLE platform.api_keys (
        api_key    text PRIMARY KEY,
        project_id text NOT NULL,
        revoked_at timestamptz
      )`);
    await createChangeNotifyTrigger(runner, {
      name: 'notify_projected_api_key_revoked',
      table: 'platform.api_keys',
      events: 'AFTER INSERT OR UPDATE OF revoked_at',
      when: 'NEW.revoked_at IS NOT NULL',
      channel: API_KEY_REVOCATIONS_CHANNEL,
      groupColumn: 'api_key',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.api_keys`);
  }
}
