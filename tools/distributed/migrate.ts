// `npm run migrate`: every pending migration of every service against
// DATABASE_URL, then exit (the Kubernetes migrations Job). Each service also
// applies its own pending migrations when it starts; this lets a deployment do
// it once, before any replica starts.
import 'reflect-metadata';
import { loadConfig } from '@mm/platform/config';
import { openDatabase } from '@mm/platform/database';
import { platformMigrations } from '@mm/runtime/platform';

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const dataSource = await openDatabase({
    url: config.DATABASE_URL,
    poolMode: config.MM_DATABASE_POOL_MODE,
    directUrl: config.MM_DATABASE_DIRECT_URL,
    migrations: platformMigrations,
    poolSize: 1,
    applicationName: 'money-movement-migrate',
  });
  await dataSource.destroy();
  process.stdout.write(`migrations applied (${platformMigrations.length} known)\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
