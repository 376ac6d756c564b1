// `npm start`: the whole platform in one process, on an embedded PostgreSQL
// under ./.data when DATABASE_URL is unset.
import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, loadConfig, type PlatformConfig } from '@mm/platform/config';
import { API_BASE_PATH } from '@mm/platform/http';
import { startPlatform } from '@mm/runtime/platform';

interface LocalCredentials {
  apiKey: string;
  apiSecret: string;
}

/**
 * Local development only (embedded database): the operator token and the
 * first key pair are kept beside the database in the data directory, so a
 * restart can print them again. Deployments set MM_ADMIN_TOKEN and keep
 * secrets out of files.
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
  let credentials: Partial<LocalCredentials> = {};
  const credentialsFile = local ? localFile(config, 'sandbox-credentials.json') : undefined;
  if (platform.bootstrap?.apiSecret) {
    credentials = { apiKey: platform.bootstrap.apiKey, apiSecret: platform.bootstrap.apiSecret };
    if (credentialsFile) writeFileSync(credentialsFile, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  } else if (credentialsFile && existsSync(credentialsFile)) {
    credentials = JSON.parse(readFileSync(credentialsFile, 'utf8')) as LocalCredentials;
  } else if (platform.bootstrap?.apiKey) {
    credentials = { apiKey: platform.bootstrap.apiKey };
  }
  const lines = [
    '',
    `Money-movement platform (${config.MM_ENVIRONMENT}) is listening`,
    `  API          ${platform.url}/${API_BASE_PATH}`,
    `  Reference    ${platform.url}/docs   (OpenAPI: ${platform.url}/openapi.json)`,
    credentials.apiKey ? `  API key      ${credentials.apiKey}` : undefined,
    credentials.apiSecret ? `  API secret   ${credentials.apiSecret}` : credentials.apiKey ? '  API secret   (shown when the key was created)' : undefined,
    local ? `  Admin token  ${config.MM_ADMIN_TOKEN}` : undefined,
    local ? `  Data         ${config.MM_DATA_DIR}` : undefined,
    '',
    credentials.apiKey
      ? `  Try: curl -s -X POST ${platform.url}/${API_BASE_PATH}/auth/token -H 'Content-Type: application/json' -d '{"apiKey":"${credentials.apiKey}","apiSecret":"<API secret>"}'`
      : undefined,
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping\n`);
    await platform.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
