// The e2e tier's containers mode (MM_E2E_CONTAINERS=1, deploy/README.md): PostgreSQL for the run from a
// container that testcontainers starts, instead of the embedded server. The image is MM_POSTGRES_IMAGE, else
// the Debian one deploy/postgres builds (built here when missing, on the base tools/containers/setup makes),
// else the official one. On podman, testcontainers talks to its Docker-compatible API; Ryuk (the reaper
// container) cannot be pulled without a registry, so the run stops its container itself.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Client } from 'pg';
import { answeringEngine, ensureImages, run } from './container-engine';

export interface PostgresContainer {
  adminUrl: string;
  stop(): Promise<void>;
}

export function containersMode(): boolean {
  return process.env.MM_E2E_CONTAINERS === '1' || process.env.MM_E2E_CONTAINERS === 'true';
}

export async function startPostgresContainer(log: (line: string) => void): Promise<PostgresContainer> {
  const engine = await answeringEngine();
  if (!engine.available) throw new Error(`MM_E2E_CONTAINERS=1 needs a container engine: ${engine.reason}`);
  const socket = '/run/podman/podman.sock';
  if (engine.command === 'podman' && !process.env.DOCKER_HOST && existsSync(socket))
    process.env.DOCKER_HOST = `unix://${socket}`;
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // testcontainers sees it runs inside a container (this machine looks like one) and would dial the bridge.
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
  let image = process.env.MM_POSTGRES_IMAGE;
  if (!image) {
    const local = 'localhost/mm-postgres:15';
    const present = await run(engine.command, ['image', 'exists', local]).then(
      () => true,
      () => false,
    );
    image = present ? local : (await ensureImages(engine, { platform: false })).postgres;
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const password = randomBytes(16).toString('hex');
  const container = await new GenericContainer(image)
    .withEnvironment({ POSTGRES_USER: 'postgres', POSTGRES_PASSWORD: password, POSTGRES_DB: 'postgres' })
    .withCommand([
      '-c',
      'max_connections=200',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ])
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forListeningPorts())
    .withStartupTimeout(120_000)
    .start();
  const adminUrl = `postgres://postgres:${password}@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
  // Listening is not yet accepting: the official image restarts once after its first-run set-up.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new Client({ connectionString: adminUrl });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  log(
    `PostgreSQL from the container image ${image} (testcontainers) at ${container.getHost()}:${container.getMappedPort(5432)}`,
  );
  return { adminUrl, stop: async () => void (await container.stop({ remove: true, removeVolumes: true })) };
}
