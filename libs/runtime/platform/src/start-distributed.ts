// Distributed mode in one process, for the e2e suite: each service its own
// application (own Nest container, own pool, own HTTP port, own consumer group),
// the gateway in front routing to them over HTTP, events between them on Kafka
// (KAFKA_BROKERS) or the PostgreSQL log transport. Only the process boundary differs from
// `npm run start:distributed` (test-e2e/distributed.e2e-spec.ts runs that one).
import { SERVICE_NAMES, serviceUrlVariable } from '@mm/contracts';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import { startPlatform, type RunningPlatform } from './start-platform';

/** `env` as for loadConfig, with DATABASE_URL set; PORT is the gateway's (0: any). The result is the gateway's. */
export async function startDistributedInProcess(env: Record<string, string>, options: { host?: string } = {}): Promise<RunningPlatform & { services: RunningPlatform[] }> {
  const services: RunningPlatform[] = [];
  const stopAll = async () => {
    for (const running of services.reverse()) await running.stop().catch(() => undefined);
  };
  try {
    // The gateway's port first: the services fetch its JWKS on their first token.
    const gatewayConfig: PlatformConfig = loadConfig(env);
    const gatewayPort = gatewayConfig.PORT === 0 ? await freePort() : gatewayConfig.PORT;
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const urls: Record<string, string> = {};
    for (const name of SERVICE_NAMES.filter((s) => s !== 'gateway')) {
      const running = await startPlatform(loadConfig({ ...env, PORT: '0', MM_GATEWAY_URL: gatewayUrl }), { host: '127.0.0.1', services: [name] });
      services.push(running);
      urls[serviceUrlVariable(name)] = running.url;
    }
    const gateway = await startPlatform(loadConfig({ ...env, ...urls, PORT: String(gatewayPort) }), { host: options.host, services: ['gateway'] });
    services.push(gateway);
    return { ...gateway, services: services.slice(0, -1), stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
