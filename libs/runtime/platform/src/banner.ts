// What start-up tells the person who started it, the same in both modes.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { CHAIN_NETWORKS, type PlatformConfig } from '@mm/platform/config';
import { StartupError } from './data-directory';
import type { BootstrapResult } from '@mm/gateway/application';

/**
 * The bootstrap key pair. The secret exists only in this process's memory when the
 * pair is created: it is printed then and never again (API-CONTRACT: start-up prints
 * them once; stored only as a hash). Production prints no credential, only where it
 * comes from: logs outlive terminals.
 */
export function credentialLines(
  config: PlatformConfig,
  bootstrap: BootstrapResult | undefined,
): Array<string | undefined> {
  const production = config.MM_ENVIRONMENT === 'production';
  const newSecret = production
    ? config.MM_BOOTSTRAP_API_SECRET
      ? '  API secret   from MM_BOOTSTRAP_API_SECRET (not printed in production)'
      : '  API secret   not printed in production; make a pair with POST /v0.13/admin/projects/{projectId}/api-keys'
    : `  API secret   ${bootstrap?.apiSecret}   (shown this once: keep it now)`;
  return [
    bootstrap?.apiKey ? `  API key      ${bootstrap.apiKey}` : undefined,
    bootstrap?.apiSecret
      ? newSecret
      : bootstrap?.apiKey
        ? '  API secret   shown when the key was created; make a new pair with POST /v0.13/admin/projects/{projectId}/api-keys'
        : undefined,
    bootstrap ? `  Project      ${bootstrap.projectId} (default)` : undefined,
  ];
}

/** Where the API's reference is, and its OpenAPI document. */
export function referenceLine(url: string): string {
  return `  Reference    ${url}/docs   (OpenAPI: ${url}/openapi.json)`;
}

/**
 * On the embedded database (no DATABASE_URL): the operator token, or where it is kept in production,
 * and the data directory. `adminTokenFrom` is what ensureLocalAdminToken returned.
 */
export function localLines(config: PlatformConfig, adminTokenFrom: string): string[] {
  if (config.DATABASE_URL) return [];
  const production = config.MM_ENVIRONMENT === 'production';
  return [
    `  Admin token  ${production ? `from ${adminTokenFrom} (not printed in production)` : config.MM_ADMIN_TOKEN}`,
    `  Data         ${config.MM_DATA_DIR}`,
  ];
}

/** The credential lines credentialLines makes, as a process that reads another's output recognises them. */
export const CREDENTIAL_LINE = /^ {2}(API key|API secret|Project) {2}/;

/** Never just "undefined": some libraries reject with nothing at all. */
export function describeFailure(error: unknown): string {
  if (error instanceof StartupError) return error.message;
  if (error instanceof Error) return error.stack ?? error.message;
  return error === undefined ? 'no reason given (a step rejected with undefined)' : inspect(error);
}

/**
 * How operators get in (docs/operators.md), when they sign in through an OpenID provider or the deployment is
 * production: a sandbox with the static token alone needs no line, its Admin token line says it all.
 */
export function operatorsLine(config: PlatformConfig): string | undefined {
  const staticToken = !config.MM_ADMIN_TOKEN
    ? 'no static admin token'
    : config.staticAdminTokenAccepted
      ? 'the static admin token as break-glass'
      : 'the static admin token refused (MM_ADMIN_TOKEN_IN_PRODUCTION is not true)';
  if (config.MM_OIDC_ISSUER)
    return `  Operators    sign in at ${config.MM_OIDC_ISSUER} (roles from ${config.MM_OIDC_ROLES_CLAIM}); ${staticToken}`;
  if (config.isSandbox) return undefined;
  return `  Operators    no OpenID provider (MM_OIDC_ISSUER); ${config.staticAdminTokenAccepted ? 'the static admin token only' : 'the operator routes are closed'}`;
}

/**
 * What the provider ports are bound to: a sandbox's simulators and the networks on a real chain; in production
 * allowed onto simulators (MM_ALLOW_SIMULATED_PROVIDERS), each simulated port by name, so nobody mistakes it.
 */
export function providersLine(config: PlatformConfig): string {
  const onChain = CHAIN_NETWORKS.filter((network) => config.chains[network]);
  const chains = onChain.length > 0 ? `on a chain: ${onChain.join(', ')}` : 'no chain configured';
  if (config.isSandbox) return `  Providers    sandbox simulators, ${chains}`;
  const simulated = config.simulatedProviders;
  if (simulated.length === 0) return `  Providers    ${chains}`;
  return `  Providers    SIMULATED (MM_ALLOW_SIMULATED_PROVIDERS=true): ${simulated.join('; ')}`;
}

/** Which transport carries events between processes, as the banner says it. */
export function transportLine(config: PlatformConfig): string {
  return config.KAFKA_BROKERS
    ? `Kafka at ${config.KAFKA_BROKERS} (topics ${config.MM_KAFKA_TOPIC_PREFIX}.<service>.events)`
    : 'PostgreSQL log transport (one shared database, a schema per service; no KAFKA_BROKERS)';
}

/**
 * Local development only (embedded database): without MM_ADMIN_TOKEN, the
 * operator token is kept beside the database in the data directory, so it stays
 * the same across restarts and across both modes. Deployments set MM_ADMIN_TOKEN.
 * Sets it on the config and returns where it came from.
 */
export function ensureLocalAdminToken(config: PlatformConfig): string {
  if (config.DATABASE_URL || config.MM_ADMIN_TOKEN) return 'MM_ADMIN_TOKEN';
  mkdirSync(config.MM_DATA_DIR, { recursive: true });
  const file = join(config.MM_DATA_DIR, 'admin-token');
  if (!existsSync(file)) writeFileSync(file, `mm_admin_${randomBytes(24).toString('base64url')}`, { mode: 0o600 });
  config.MM_ADMIN_TOKEN = readFileSync(file, 'utf8').trim();
  return file;
}
