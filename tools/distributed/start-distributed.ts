// `npm run start:distributed`: the gateway and every service as processes of
// their own on this machine, as Kubernetes runs them: an embedded PostgreSQL
// when DATABASE_URL is unset (one database, a schema per service), the gateway
// on PORT as the only public entry, each service on a loopback port of its own.
// Its banner carries every line `npm start`'s does (the key pair the gateway
// made on a first start among them), and the processes' addresses.
// Ctrl-C stops every process, then PostgreSQL. A service that dies is reported
// and left down (the gateway answers 503 for its routes) until it is started
// again with `npm run start:service -- <name>` and the variables printed here.
// `npm run start:distributed -- accounts quoting` starts the gateway and just
// those services; the others' routes answer 503 as if they were down.
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { isServiceName, SERVICE_NAMES, serviceUrlVariable, type ServiceName } from '@mm/contracts';
import { ConfigError, loadConfig, type PlatformConfig } from '@mm/platform/config';
import { API_BASE_PATH } from '@mm/platform/http';
import {
  CREDENTIAL_LINE,
  dashboardLine,
  describeFailure,
  ensureLocalAdminToken,
  freeLoopbackPort,
  handleShutdownSignalsInCaller,
  LIFELINE_VARIABLE,
  localLines,
  operatorsLine,
  providersLine,
  referenceLine,
  startEmbeddedPostgres,
  stopWhenParentDies,
  transportLine,
  type EmbeddedDatabase,
} from '@mm/runtime/platform';

const ROOT = resolve(__dirname, '..', '..');

interface Started {
  name: ServiceName;
  url: string;
  child: ChildProcess;
}

/** What a service started in a container is given: the platform's settings, never the rest of this environment. */
const CONTAINER_VARIABLES = /^(MM_|KAFKA_|OTEL_|DATABASE_URL$|HOST$|PORT$|NODE_ENV$)/;

/**
 * A service as a process of this machine, or, with MM_SERVICE_IMAGE, as a container of that image (the
 * e2e suite's containers mode, docs/kubernetes.md) run by MM_CONTAINER_ENGINE (podman unless set) on the
 * host's network, so it listens on the same loopback port and reaches the same database and broker.
 */
function serviceCommand(name: ServiceName, env: NodeJS.ProcessEnv): { command: string; args: string[] } {
  const image = env.MM_SERVICE_IMAGE;
  if (!image)
    return {
      command: process.execPath,
      args: ['-r', './tools/register.js', 'tools/distributed/start-service.ts', name],
    };
  const passed = Object.keys(env).filter(
    (key) =>
      CONTAINER_VARIABLES.test(key) &&
      key !== 'MM_DATA_DIR' &&
      key !== 'MM_SERVICE_IMAGE' &&
      key !== 'MM_CONTAINER_ENGINE',
  );
  return {
    command: env.MM_CONTAINER_ENGINE ?? 'podman',
    // -i: the lifeline (stdin) reaches the service; --rm: nothing is left once it stops. Only the names go on the
    // command line: the engine reads each value from its own environment, so no secret shows in a process list.
    args: [
      'run',
      '--rm',
      '-i',
      '--network',
      'host',
      '--name',
      `mm-${name}-${env.PORT}`,
      '-e',
      `SERVICE=${name}`,
      '-e',
      `${LIFELINE_VARIABLE}=true`,
      ...passed.flatMap((key) => ['-e', key]),
      image,
    ],
  };
}

/**
 * onLine sees each line of the service's output first; a line it answers `true` for is kept from the
 * terminal (the launcher shows it in its own banner).
 */
function startService(
  name: ServiceName,
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => boolean | void = () => undefined,
): ChildProcess {
  // The service's own output goes to this terminal, each line under its name. Its stdin is a pipe from
  // this process that is never written: if this process dies, even by SIGKILL, the service stops too.
  const { command, args } = serviceCommand(name, env);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...env, [LIFELINE_VARIABLE]: 'true' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (onLine(line) !== true) process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  return child;
}

async function waitReady(name: ServiceName, url: string, child: ChildProcess, timeoutSecs: number): Promise<void> {
  const deadline = Date.now() + timeoutSecs * 1000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the ${name} service exited during start-up (${child.exitCode ?? child.signalCode})`);
    // Bounded: a probe left hanging (the port held by something that drops connections) would hide the service's exit.
    if (
      await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    // A quarter of a second: nine processes start at once, and each probe is a request that costs them CPU too.
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the ${name} service was not ready within ${timeoutSecs} s (MM_READY_TIMEOUT_SECS)`);
}

/** Resolves once the gateway has printed its banner (its Events line comes last), or fails as waitReady does. */
async function bannerPrinted(printed: () => boolean, child: ChildProcess, timeoutSecs: number): Promise<void> {
  const deadline = Date.now() + timeoutSecs * 1000;
  while (!printed()) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the gateway exited during start-up (${child.exitCode ?? child.signalCode})`);
    if (Date.now() > deadline)
      throw new Error(`the gateway printed no banner within ${timeoutSecs} s (MM_READY_TIMEOUT_SECS)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stopAll(started: Started[], embedded: EmbeddedDatabase | undefined): Promise<void> {
  await Promise.all(
    started.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }),
  );
  await embedded?.stop();
}

/** The database URL as the banner shows it: the password left out, or a placeholder in its place. */
function withoutPassword(url: string, placeholder?: string): string {
  if (!URL.canParse(url)) return '<DATABASE_URL>';
  const parsed = new URL(url);
  if (!parsed.password) return url;
  parsed.password = '';
  const bare = parsed.toString();
  return placeholder ? bare.replace(`//${parsed.username}@`, `//${parsed.username}:${placeholder}@`) : bare;
}

/** Where the left-out password is: the embedded database's file, or the DATABASE_URL this was started with. */
function passwordHint(url: string, file: string | undefined): string {
  if (!URL.canParse(url) || !new URL(url).password) return '';
  return file ? `   (password in ${file})` : '   (password: as in DATABASE_URL)';
}

/** The services named on the command line (the gateway always), or every one. */
function chosenServices(args: string[]): ServiceName[] {
  const unknown = args.filter((a) => !isServiceName(a));
  if (unknown.length > 0) {
    process.stderr.write(
      `usage: npm run start:distributed [-- <service> ...]; no service ${unknown.join(', ')} (the services are ${SERVICE_NAMES.join(', ')})\n`,
    );
    process.exit(2);
  }
  return args.length === 0 ? [...SERVICE_NAMES] : SERVICE_NAMES.filter((s) => s === 'gateway' || args.includes(s));
}

async function main(): Promise<void> {
  const chosen = chosenServices(process.argv.slice(2));
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
  handleShutdownSignalsInCaller();
  const adminTokenFrom = ensureLocalAdminToken(config);
  let embedded: EmbeddedDatabase | undefined;
  const started: Started[] = [];
  /**
   * The gateway's credential lines (the key pair it made on a first start, the default project): shown in
   * this banner rather than among its lines, and should start-up fail after it made them, in the failure.
   */
  const gatewayCredentials: string[] = [];
  let gatewayBanner = false;
  let stopping = false;
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: stopping every service, then PostgreSQL\n`);
    void stopAll(started, embedded).then(
      () => process.exit(code),
      (error: unknown) => {
        process.stderr.write(`stopping failed: ${describeFailure(error)}\n`);
        process.exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
  // Started by a test (or any supervisor) that asked to take every process down with it.
  stopWhenParentDies((reason) => stop(reason));

  try {
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres({
        dataDir: config.MM_DATA_DIR,
        database: 'money_movement',
        onNotice: (line) => process.stdout.write(`${line}\n`),
      });
      databaseUrl = embedded.url;
    }
    const host = config.HOST ?? (config.DATABASE_URL ? '0.0.0.0' : '127.0.0.1');
    const gatewayUrl = `http://127.0.0.1:${config.PORT}`;
    const common: NodeJS.ProcessEnv = {
      ...process.env,
      // The services write to a pipe to this process: human-readable lines when this one writes to a terminal.
      MM_LOG_FORMAT: config.MM_LOG_FORMAT === 'auto' && process.stdout.isTTY ? 'pretty' : config.MM_LOG_FORMAT,
      DATABASE_URL: databaseUrl,
      MM_ADMIN_TOKEN: config.MM_ADMIN_TOKEN,
      // Absolute: the services run from the repository root, whatever directory this was started in.
      MM_DATA_DIR: resolve(config.MM_DATA_DIR),
      MM_GATEWAY_URL: gatewayUrl,
    };
    // The services first, each on a loopback port of its own; then the gateway, which routes to them.
    // Every process knows every service's address: some call others' ports (ADR 0019).
    const serviceUrls: Record<string, string> = {};
    const ports = new Map<ServiceName, number>();
    for (const name of SERVICE_NAMES.filter((s) => s !== 'gateway')) {
      ports.set(name, await freeLoopbackPort());
      serviceUrls[serviceUrlVariable(name)] = `http://127.0.0.1:${ports.get(name)}`;
    }
    for (const [name, port] of ports) {
      // A service not chosen keeps its address, where nothing listens: the gateway answers 503 for it.
      if (!chosen.includes(name)) continue;
      const child = startService(name, { ...common, ...serviceUrls, PORT: String(port), HOST: '127.0.0.1' });
      started.push({ name, url: serviceUrls[serviceUrlVariable(name)], child });
    }
    const gateway = startService(
      'gateway',
      { ...common, ...serviceUrls, PORT: String(config.PORT), HOST: host },
      (line) => {
        if (/^ {2}Events {7}/.test(line)) gatewayBanner = true;
        if (!CREDENTIAL_LINE.test(line)) return false;
        gatewayCredentials.push(line);
        return true;
      },
    );
    started.push({ name: 'gateway', url: gatewayUrl, child: gateway });
    await Promise.all(started.map((s) => waitReady(s.name, s.url, s.child, config.MM_READY_TIMEOUT_SECS)));
    // Ready, maybe before its banner has reached this process: the key pair is in it.
    await bannerPrinted(() => gatewayBanner, gateway, config.MM_READY_TIMEOUT_SECS);
    for (const s of started) {
      s.child.on('exit', (code, signal) => {
        if (!stopping)
          process.stdout.write(
            `the ${s.name} service (pid ${s.child.pid}) exited (${code ?? signal}); its routes answer 503 until it is started again\n`,
          );
      });
    }
    const local = !config.DATABASE_URL;
    // Every line of npm start's banner (apps/platform/src/main.ts), then this mode's own.
    const lines = [
      '',
      `Money-movement platform, distributed (${config.MM_ENVIRONMENT}): ${started.length} processes`,
      `  API          ${gatewayUrl}/${API_BASE_PATH}   (through the gateway)`,
      referenceLine(gatewayUrl),
      dashboardLine(gatewayUrl),
      ...gatewayCredentials,
      providersLine(config),
      operatorsLine(config),
      `  Events       ${transportLine(config)}`,
      ...started.map((s) => `  ${s.name.padEnd(12)} ${s.url}   pid ${s.child.pid}`),
      ...localLines(config, adminTokenFrom),
      `  Database     ${withoutPassword(databaseUrl)}${passwordHint(databaseUrl, local ? join(config.MM_DATA_DIR, 'pg-password') : undefined)}`,
      `  A service again: DATABASE_URL=${withoutPassword(databaseUrl, '<password>')} MM_GATEWAY_URL=${gatewayUrl} PORT=<its port> npm run start:service -- <name>`,
      '',
    ];
    process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');
  } catch (error) {
    process.stderr.write(`start-up failed: ${describeFailure(error)}\n`);
    // The gateway was up and made the first key pair before another process failed: the database keeps
    // it, and its secret is never shown again, so it is repeated here rather than left in the lines above.
    if (gatewayCredentials.some((line) => /shown this once/.test(line))) {
      process.stderr.write(
        [
          'The gateway made the first key pair before start-up failed; keep it, it is not shown again:',
          ...gatewayCredentials,
        ].join('\n') + '\n',
      );
    }
    stop('start-up failed', 1);
  }
}

void main();
