// Where the HTTP server listens, the address printed for it, and what a failed
// listen tells the operator.
import { createServer, isIPv6 } from 'node:net';
import type { PlatformConfig } from '@mm/platform/config';
import { StartupError } from '@mm/platform/database';

/**
 * A local run on the embedded database prints an operator token, so it stays on loopback;
 * a deployment (DATABASE_URL) sits behind a load balancer or in a container and needs every interface.
 */
export function listenHost(config: PlatformConfig, override?: string): string {
  return override ?? config.HOST ?? (config.DATABASE_URL ? '0.0.0.0' : '127.0.0.1');
}

/** The URL to reach a server listening on host: loopback when it listens on every interface. */
export function reachableUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${isIPv6(reachable) ? `[${reachable}]` : reachable}:${port}`;
}

export function listenFailure(error: unknown, host: string, port: number): unknown {
  const reasons: Record<string, string> = {
    EADDRINUSE: `HTTP port ${port} (PORT) is already in use on ${host}: stop what listens there or set PORT to another port`,
    EACCES: `HTTP port ${port} (PORT) needs privileges this process lacks: set PORT to 1024 or above`,
    EADDRNOTAVAIL: `HOST ${host} is not an address of this machine: set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`,
    ENOTFOUND: `HOST ${host} does not resolve to an address: set HOST to an address of this machine`,
  };
  const reason = reasons[(error as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return reason ? new StartupError(reason, { cause: error }) : error;
}

/** A loopback port free right now, for a process about to be started on it. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
