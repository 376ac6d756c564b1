import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createSubscriptionTables } from './events-table.migration';

export class PlatformSubscriptions1700000000000 implements MigrationInterface {
  name = 'PlatformSubscriptions1700000000000';

  async up(runner: QueryRunner): Promise<void> {
    await createSubscriptionTables(runner);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE platform.processed_events');
    await runner.query('DROP TABLE platform.subscription_checkpoints');
  }
}
