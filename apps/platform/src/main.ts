// `npm start`: the whole platform in one process, on an embedded PostgreSQL
// under ./.data when DATABASE_URL is unset.
import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, loadConfig, type PlatformConfig } from '@mm/platform/config';
import { API_BASE_PATH } from '@mm/platform/http';
import { shutdownTelemetry } from '@mm/platform/telemetry';
import { startPlatform } from '@mm/runtime/platform';

/**
 * Local development only (embedded database): the operator token is kept
 * beside the database in the data directory, so it stays the same across
 * restarts. Deployments set MM_ADMIN_TOKEN.
 */
function localFile(config: PlatformConfig, name: string): string {
  mkdirSync(config.MM_DATA_DIR, { recursive: true });
  return join(config.MM_DATA_DIR, name);
}

async function main(): Promise<void> {
  let config: PlatformConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const local = !config.DATABASE_URL;
  if (local && !config.MM_ADMIN_TOKEN) {
    const file = localFile(config, 'admin-token');
    if (!existsSync(file)) writeFileSync(file, `mm_admin_${randomBytes(24).toString('base64url')}`, { mode: 0o600 });
    config.MM_ADMIN_TOKEN = readFileSync(file, 'utf8').trim();
  }
  const platform = await startPlatform(config);
  const { bootstrap } = platform;
  // The secret exists only in this process's memory when the pair is created: it is printed
  // then and never again (API-CONTRACT: start-up prints them once; stored only as a hash).
  const lines = [
    '',
    `Money-movement platform (${config.MM_ENVIRONMENT}) is listening`,
    `  API          ${platform.url}/${API_BASE_PATH}`,
    `  Reference    ${platform.url}/docs   (OpenAPI: ${platform.url}/openapi.json)`,
    bootstrap?.apiKey ? `  API key      ${bootstrap.apiKey}` : undefined,
    bootstrap?.apiSecret
      ? `  API secret   ${bootstrap.apiSecret}   (shown this once: keep it now)`
      : bootstrap?.apiKey
        ? '  API secret   shown when the key was created; make a new pair with POST /v0.13/admin/projects/{projectId}/api-keys'
        : undefined,
    bootstrap ? `  Project      ${bootstrap.projectId} (default)` : undefined,
    local ? `  Admin token  ${config.MM_ADMIN_TOKEN}` : undefined,
    local ? `  Data         ${config.MM_DATA_DIR}` : undefined,
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping\n`);
    await platform.stop();
    await shutdownTelemetry();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
