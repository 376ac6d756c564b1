// The container engine the container tests and the e2e suite's containers mode use: podman (what tools/containers/setup installs) or Docker,
// whichever answers; Compose through docker-compose or `docker compose` against the engine's API socket.
// The images are built from the working tree once per run; their layers stay cached in the engine.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..', '..');

export type Engine =
  | { available: true; command: 'podman' | 'docker' }
  | { available: false; command: 'podman' | 'docker'; reason: string };

/** podman or docker, whichever is installed and answers; or why there is none. */
export function containerEngine(): Engine {
  if (process.env.MM_CONTAINER_TESTS === '0')
    return { available: false, command: 'podman', reason: 'MM_CONTAINER_TESTS=0' };
  const tried: string[] = [];
  for (const command of ['podman', 'docker'] as const) {
    try {
      execFileSync(command, ['info', '--format', '{{.Host.Arch}}'], { stdio: 'pipe', timeout: 30_000 });
      return { available: true, command };
    } catch (error) {
      tried.push(
        `${command}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not installed' : 'does not answer'}`,
      );
    }
  }
  return {
    available: false,
    command: 'podman',
    reason: `no container engine (${tried.join('; ')}); tools/containers/setup installs one`,
  };
}

/**
 * The engine, asked again while it is installed but does not answer: on a busy machine (an image build holding
 * the engine's storage, both cores taken) one `info` can outlast its bound while the engine is there and well.
 * Gives up after `patienceMs`, with the last reason.
 */
export async function answeringEngine(patienceMs = 10 * 60_000): Promise<Engine> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    const engine = containerEngine();
    if (engine.available || !engine.reason.includes('does not answer') || Date.now() > deadline) return engine;
    await new Promise((r) => setTimeout(r, 5_000));
  }
}

/**
 * The engine for Compose, which talks to podman through its Docker-compatible API: a machine where podman
 * answers but its API service is not running (a restart since tools/containers/setup ran) has no Compose.
 */
export function composeEngine(): Engine {
  const engine = containerEngine();
  if (!engine.available || engine.command !== 'podman' || process.env.DOCKER_HOST) return engine;
  try {
    execFileSync('podman', ['--remote', '--url', `unix://${PODMAN_SOCKET}`, 'version'], {
      stdio: 'pipe',
      timeout: 30_000,
    });
    return engine;
  } catch {
    return {
      available: false,
      command: 'podman',
      reason: `podman's API at ${PODMAN_SOCKET} does not answer; tools/containers/setup starts it`,
    };
  }
}

const PODMAN_SOCKET = '/run/podman/podman.sock';

/** Podman's Docker-compatible API (tools/containers/setup starts it), for Compose, when DOCKER_HOST names none. */
export function composeEnvironment(engine: Engine & { available: true }): NodeJS.ProcessEnv {
  if (engine.command !== 'podman' || process.env.DOCKER_HOST || !existsSync(PODMAN_SOCKET)) return process.env;
  return { ...process.env, DOCKER_HOST: `unix://${PODMAN_SOCKET}` };
}

/** The Compose program and its leading arguments, talking to the engine's Docker-compatible API. */
export function composeCommand(engine: Engine & { available: true }): string[] {
  const onPath = (name: string) => (process.env.PATH ?? '').split(':').some((dir) => existsSync(join(dir, name)));
  if (onPath('docker-compose')) return ['docker-compose'];
  if (engine.command === 'docker') return ['docker', 'compose'];
  return ['podman-compose'];
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a command from the repository root; rejects with its output when it fails. */
export function run(
  command: string | string[],
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  const [program, ...lead] = Array.isArray(command) ? command : [command];
  return new Promise((resolve, reject) => {
    const child = spawn(program, [...lead, ...args], {
      cwd: ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 5 * 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(
            `${[program, ...lead, ...args].join(' ')} exited with ${code ?? signal}:\n${(stderr || stdout).slice(-4000)}`,
          ),
        );
    });
  });
}

/**
 * Runs the health checks of a Compose project's containers every 2 s until stopped: podman runs them from
 * systemd timers, and where there is no systemd (a CI machine, a container) nothing runs them, so a
 * `depends_on: condition: service_healthy` would wait for ever. Docker runs them itself: nothing to do.
 */
export function pumpHealthchecks(engine: Engine & { available: true }, project: string): () => void {
  if (engine.command !== 'podman') return () => undefined;
  let running = true;
  void (async () => {
    while (running) {
      const listed = await run('podman', [
        'ps',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '--format',
        '{{.Names}} {{.Status}}',
      ]).catch(() => ({ stdout: '' }));
      const starting = listed.stdout
        .split('\n')
        .filter((line) => /\((starting|unhealthy)\)/.test(line))
        .map((line) => line.split(' ')[0]);
      await Promise.all(starting.map((name) => run('podman', ['healthcheck', 'run', name]).catch(() => undefined)));
      await new Promise((r) => setTimeout(r, 2_000));
    }
  })();
  return () => {
    running = false;
  };
}

const exists = async (engine: Engine, image: string) =>
  run(engine.command, ['image', 'exists', image]).then(
    () => true,
    () => false,
  );

/**
 * The platform's image and PostgreSQL's, built from this tree (layers cached between runs). The base is
 * MM_BASE_IMAGE (tools/containers/setup makes one with no registry) or each Dockerfile's registry default;
 * PostgreSQL is MM_POSTGRES_IMAGE when given. A network that inspects TLS gets the machine's CA bundle as
 * a build secret, kept out of the image.
 */
export async function ensureImages(
  engine: Engine & { available: true },
  which: { platform?: boolean } = {},
): Promise<{ platform: string; postgres: string; built: string[] }> {
  // Once per test run: the tree does not change during a run, and even a build that is all cache reads the
  // whole context again (about 20 s here). The run's template database names the run (its global setup).
  // Two files of the run asking at once: the second waits for the first's build, then finds its note.
  const memo =
    process.env.MM_TEST_TEMPLATE_DB && which.platform !== false
      ? imagesMemo(process.env.MM_TEST_TEMPLATE_DB)
      : undefined;
  const lock = memo && `${memo}.lock`;
  for (const since = Date.now(); memo && lock;) {
    if (existsSync(memo))
      return {
        ...(JSON.parse(readFileSync(memo, 'utf8')) as { platform: string; postgres: string }),
        built: ['none: built earlier in this run'],
      };
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - since > 20 * 60_000)
        throw new Error(`waited 20 minutes for another test file's image build (${lock})`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
  try {
    return await buildImages(engine, which, memo);
  } finally {
    if (lock) rmSync(lock, { recursive: true, force: true });
  }
}

async function buildImages(
  engine: Engine & { available: true },
  which: { platform?: boolean },
  memo: string | undefined,
): Promise<{ platform: string; postgres: string; built: string[] }> {
  const base =
    process.env.MM_BASE_IMAGE ??
    ((await exists(engine, 'localhost/debian:bookworm')) ? 'localhost/debian:bookworm' : undefined);
  const baseArgs = base ? ['--build-arg', `BASE_IMAGE=${base}`] : [];
  const caBundle = process.env.SSL_CERT_FILE ?? process.env.NODE_EXTRA_CA_CERTS;
  const secret = caBundle && existsSync(caBundle) ? ['--secret', `id=build_ca,src=${caBundle}`] : [];
  const format = engine.command === 'podman' ? ['--format', 'docker'] : [];
  const platform = process.env.MM_IMAGE ?? 'localhost/money-movement:test';
  const built: string[] = [];
  const build = async (args: string[], what: string) => {
    const at = Date.now();
    await run(engine.command, ['build', ...format, ...args], { timeoutMs: 15 * 60_000 });
    built.push(`${what} ${Math.round((Date.now() - at) / 1000)} s`);
  };
  const ignore = engine.command === 'podman' ? ['--ignorefile', 'deploy/Dockerfile.dockerignore'] : [];
  if (which.platform !== false)
    await build([...baseArgs, ...secret, ...ignore, '-f', 'deploy/Dockerfile', '-t', platform, '.'], 'platform');
  let postgres = process.env.MM_POSTGRES_IMAGE;
  if (!postgres) {
    postgres = 'localhost/mm-postgres:15';
    await build([...baseArgs, '-t', postgres, 'deploy/postgres'], 'postgres');
  }
  if (memo) writeFileSync(memo, JSON.stringify({ platform, postgres }));
  return { platform, postgres, built };
}

/** Where a test run notes the images it built (removed by the run's global teardown). */
export function imagesMemo(run: string): string {
  return join(tmpdir(), `mm-images-${run}.json`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
