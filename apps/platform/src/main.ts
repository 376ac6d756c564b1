// `npm start`: the whole platform in one process, on an embedded PostgreSQL
// under ./.data when DATABASE_URL is unset.
import 'reflect-metadata';
import { ConfigError, loadConfig, type PlatformConfig } from '@mm/platform/config';
import { API_BASE_PATH } from '@mm/platform/http';
import { shutdownTelemetry } from '@mm/platform/telemetry';
import {
  credentialLines,
  operatorsLine,
  providersLine,
  dashboardLine,
  describeFailure,
  ensureLocalAdminToken,
  handleShutdownSignalsInCaller,
  localLines,
  referenceLine,
  startPlatform,
  stopWhenParentDies,
} from '@mm/runtime/platform';

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
  const adminTokenFrom = ensureLocalAdminToken(config);

  // Signals are handled from the start, so that PostgreSQL has always stopped when the process exits.
  handleShutdownSignalsInCaller();
  const starting = startPlatform(config);
  let started = false;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // Impatience cuts the requests still in flight, never PostgreSQL's stop.
      process.stdout.write(`${signal}: still stopping; the process exits once PostgreSQL has stopped\n`);
      void starting.then(
        (platform) => platform.app.getHttpServer().closeAllConnections(),
        () => undefined,
      );
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
  // Started by a test or supervisor that asked to take this process down with it.
  stopWhenParentDies(stop);
  const platform = await starting;
  started = true;
  const { bootstrap } = platform;
  if (stopping) {
    // Stopped while starting, after the first key pair was made: its secret is shown now or never.
    if (bootstrap?.apiSecret)
      process.stdout.write(
        ['Stopped during start-up; the key pair it made:', ...credentialLines(config, bootstrap)]
          .filter((l) => l !== undefined)
          .join('\n') + '\n',
      );
    return;
  }

  // start:distributed's banner carries each of these lines too (tools/distributed/start-distributed.ts).
  const lines = [
    '',
    `Money-movement platform (${config.MM_ENVIRONMENT}) is listening`,
    `  API          ${platform.url}/${API_BASE_PATH}`,
    referenceLine(platform.url),
    dashboardLine(platform.url),
    ...credentialLines(config, bootstrap),
    providersLine(config),
    operatorsLine(config),
    ...localLines(config, adminTokenFrom),
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`start-up failed: ${describeFailure(error)}\n`);
  process.exit(1);
});
