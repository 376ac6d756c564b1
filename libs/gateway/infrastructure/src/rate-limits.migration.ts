import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rate-limit counters every gateway replica shares (ADR 0013). UNLOGGED:
 * a counter is worth less than the WAL flush it would cost each token request,
 * and losing the counts after a crash only reopens one window early.
 */
export class GatewayRateLimits1700000001700 implements MigrationInterface {
  name = 'GatewayRateLimits1700000001700';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE UNLOGGED TABLE gateway.rate_limits (
        key            text        NOT NULL,
        throttler      text        NOT NULL,
        hits           integer     NOT NULL,
        window_ends_at timestamptz NOT NULL,
        blocked_until  timestamptz,
        PRIMARY KEY (key, throttler)
      )`);
    // For the sweep of expired rows; counting a hit changes no indexed column, so it stays a HOT update.
    await runner.query(`CREATE INDEX rate_limits_window_ends_idx ON gateway.rate_limits (window_ends_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.rate_limits`);
  }
}
