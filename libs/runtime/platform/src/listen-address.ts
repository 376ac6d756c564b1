// Where the HTTP server listens, the address printed for it, and what a failed
// listen tells the operator.
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, isIPv6 } from 'node:net';
import type { PlatformConfig } from '@mm/platform/config';
import { StartupError } from './data-directory';

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

/**
 * A loopback port free right now, for a process about to be started on it. Chosen at random below the
 * system's ephemeral range (Linux: ip_local_port_range), where neither an outgoing connection nor another
 * process's `listen(0)` can be given it between this check and the process's own listen: a port from that
 * range was taken in that moment by a busy machine's other connections (a service then failed to start
 * with EADDRINUSE). Falls back to a port the system picks when the range leaves no room below it.
 */
export async function freeLoopbackPort(): Promise<number> {
  const [low] = ephemeralRange();
  const floor = 10_000;
  if (low - floor >= 1_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = floor + randomInt(low - floor);
      if (await bindable(port)) return port;
    }
  }
  return listenOnce(0);
}

/** The system's ephemeral port range; Linux's default where it cannot be read. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low, high];
  } catch {
    // not Linux: its default
  }
  return [32_768, 60_999];
}

function bindable(port: number): Promise<boolean> {
  return listenOnce(port).then(
    () => true,
    () => false,
  );
}

/** Listens on the loopback port (0: the system picks) and closes again; the port it had. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
