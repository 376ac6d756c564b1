// Distributed mode: one service in its own process (apps/<service>/src/main.ts,
// `npm run start:service -- <name>`). It runs on DATABASE_URL (its own schema),
// with its own consumer group; the gateway is the public entry.
import { SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { ConfigError, loadConfig } from '@mm/platform/config';
import { shutdownTelemetry } from '@mm/platform/telemetry';
import { credentialLines, describeFailure, operatorsLine, providersLine, transportLine } from './banner';
import { stopWhenParentDies } from './lifeline';
import { startPlatform, type RunningPlatform } from './start-platform';

export async function runService(name: ServiceName): Promise<RunningPlatform> {
  if (!SERVICE_NAMES.includes(name))
    throw new Error(`no service ${name}; the services are ${SERVICE_NAMES.join(', ')}`);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  let running: RunningPlatform | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${name}: ${signal}: stopping\n`);
    // Still starting: nothing to stop cleanly yet, and nothing served.
    if (!running) process.exit(1);
    void running
      .stop()
      .then(
        () => 0,
        (error: unknown) => {
          process.stderr.write(`${name}: stopping failed: ${describeFailure(error)}\n`);
          return 1;
        },
      )
      .then(async (code) => {
        await shutdownTelemetry();
        process.exit(code);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  // Started by start:distributed (or a test): gone with it, even mid-start-up.
  stopWhenParentDies(stop);
  try {
    running = await startPlatform(config, { services: [name] });
  } catch (error) {
    process.stderr.write(`${name}: start-up failed: ${describeFailure(error)}\n`);
    process.exit(1);
  }
  // The Events line last, in one write: start:distributed takes the gateway's lines before it as the
  // key pair, which its own banner shows (tools/distributed/start-distributed.ts).
  const lines = [
    `Money-movement ${name} service (${config.MM_ENVIRONMENT}) is listening at ${running.url} (pid ${process.pid})`,
    ...(name === 'gateway' ? credentialLines(config, running.bootstrap) : []),
    providersLine(config),
    operatorsLine(config),
    `  Events       ${transportLine(config)}`,
  ];
  process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');
  return running;
}
