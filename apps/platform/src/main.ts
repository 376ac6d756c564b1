// `npm start`: the whole platform in one process, on an embedded PostgreSQL
// under ./.data when DATABASE_URL is unset.
import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, loadConfig, type PlatformConfig } from '@mm/platform/config';
import { handleShutdownSignalsInCaller, StartupError } from '@mm/platform/database';
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
  let adminTokenFrom = 'MM_ADMIN_TOKEN';
  if (local && !config.MM_ADMIN_TOKEN) {
    const file = localFile(config, 'admin-token');
    if (!existsSync(file)) writeFileSync(file, `mm_admin_${randomBytes(24).toString('base64url')}`, { mode: 0o600 });
    config.MM_ADMIN_TOKEN = readFileSync(file, 'utf8').trim();
    adminTokenFrom = file;
  }

  // Signals are handled from the start, so that PostgreSQL has always stopped when the process exits.
  handleShutdownSignalsInCaller();
  const starting = startPlatform(config);
  let started = false;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // Impatience cuts the requests still in flight, never PostgreSQL's stop.
      process.stdout.write(`${signal}: still stopping; the process exits once PostgreSQL has stopped\n`);
      void starting.then((platform) => platform.app.getHttpServer().closeAllConnections(), () => undefined);
      return;
    }
    stopping = true;
    process.stdout.write(`\n${signal}: stopping${started ? '' : ' once start-up has finished'}\n`);
    void (async () => {
      // A failed start-up has stopped what it began, and main() reports it.
      const platform = await starting.catch(() => undefined);
      if (!platform) return;
      let code = 0;
      try {
        await platform.stop();
      } catch (error) {
        process.stderr.write(`stopping failed: ${describeFailure(error)}\n`);
        code = 1;
      }
      await shutdownTelemetry();
      process.exit(code);
    })();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  const platform = await starting;
  started = true;
  if (stopping) return;

  const { bootstrap } = platform;
  const production = config.MM_ENVIRONMENT === 'production';
  // The secret exists only in this process's memory when the pair is created: it is printed
  // then and never again (API-CONTRACT: start-up prints them once; stored only as a hash).
  // Production prints no credential, only where it comes from: logs outlive terminals.
  const newSecret = production
    ? config.MM_BOOTSTRAP_API_SECRET
      ? '  API secret   from MM_BOOTSTRAP_API_SECRET (not printed in production)'
      : '  API secret   not printed in production; make a pair with POST /v0.13/admin/projects/{projectId}/api-keys'
    : `  API secret   ${bootstrap?.apiSecret}   (shown this once: keep it now)`;
  const lines = [
    '',
    `Money-movement platform (${config.MM_ENVIRONMENT}) is listening`,
    `  API          ${platform.url}/${API_BASE_PATH}`,
    `  Reference    ${platform.url}/docs   (OpenAPI: ${platform.url}/openapi.json)`,
    bootstrap?.apiKey ? `  API key      ${bootstrap.apiKey}` : undefined,
    bootstrap?.apiSecret
      ? newSecret
      : bootstrap?.apiKey
        ? '  API secret   shown when the key was created; make a new pair with POST /v0.13/admin/projects/{projectId}/api-keys'
        : undefined,
    bootstrap ? `  Project      ${bootstrap.projectId} (default)` : undefined,
    local ? `  Admin token  ${production ? `from ${adminTokenFrom} (not printed in production)` : config.MM_ADMIN_TOKEN}` : undefined,
    local ? `  Data         ${config.MM_DATA_DIR}` : undefined,
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');
}

/** Never just "undefined": some libraries reject with nothing at all. */
function describeFailure(error: unknown): string {
  if (error instanceof StartupError) return error.message;
  if (error instanceof Error) return error.stack ?? error.message;
  return error === undefined ? 'no reason given (a step rejected with undefined)' : inspect(error);
}

main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${describeFailure(error)}\n`);
  process.exit(1);
});
