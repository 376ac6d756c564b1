// openDatabase against a real PostgreSQL: the migrations run under a session lock held on a connection
// of its own, whatever pool size the caller asks for (the migrate step asks for the smallest).
import { openDatabase } from '@mm/platform/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { cloneTemplateDatabase } from './test-database';

class CreatesATable1900000000000 implements MigrationInterface {
  name = 'CreatesATable1900000000000';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE public.open_database_probe (id int)`);
  }
  async down(): Promise<void> {}
}

describe('openDatabase', () => {
  it('applies pending migrations with a pool of one connection (the lock takes another of its own)', async () => {
    const url = await cloneTemplateDatabase();
    const dataSource = await openDatabase({ url, migrations: [CreatesATable1900000000000], poolSize: 1 });
    try {
      expect(await dataSource.query(`SELECT count(*)::int AS n FROM public.open_database_probe`)).toEqual([{ n: 0 }]);
    } finally {
      await dataSource.destroy();
    }
  });
});
