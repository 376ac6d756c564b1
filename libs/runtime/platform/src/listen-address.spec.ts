import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadConfig } from '@mm/platform/config';
import { StartupError } from './data-directory';
import { freeLoopbackPort, listenFailure, listenHost, reachableUrl } from './listen-address';

describe('the listening address', () => {
  it('is loopback on the embedded database, every interface with DATABASE_URL, and HOST when set', () => {
    expect(listenHost(loadConfig({}))).toBe('127.0.0.1');
    expect(listenHost(loadConfig({ DATABASE_URL: 'postgres://db/mm' }))).toBe('0.0.0.0');
    expect(listenHost(loadConfig({ HOST: '0.0.0.0' }))).toBe('0.0.0.0');
    expect(listenHost(loadConfig({ DATABASE_URL: 'postgres://db/mm', HOST: '10.0.0.5' }))).toBe('10.0.0.5');
  });

  it("takes the caller's host over HOST", () => {
    expect(listenHost(loadConfig({ HOST: '0.0.0.0' }), '127.0.0.1')).toBe('127.0.0.1');
  });

  it('is printed as a URL that reaches it', () => {
    expect(reachableUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(reachableUrl('::', 3000)).toBe('http://127.0.0.1:3000');
    expect(reachableUrl('::1', 3000)).toBe('http://[::1]:3000');
    expect(reachableUrl('10.0.0.5', 8080)).toBe('http://10.0.0.5:8080');
  });

  it('names the port when it is taken, and passes other failures through', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    const failure = listenFailure(inUse, '127.0.0.1', 3000);
    expect(failure).toBeInstanceOf(StartupError);
    expect((failure as Error).message).toBe(
      'HTTP port 3000 (PORT) is already in use on 127.0.0.1: stop what listens there or set PORT to another port',
    );
    const other = new Error('boom');
    expect(listenFailure(other, '127.0.0.1', 3000)).toBe(other);
  });
});

describe('freeLoopbackPort', () => {
  it('gives a port below the ephemeral range, where no outgoing connection or listen(0) can take it first, and free to listen on', async () => {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freeLoopbackPort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });
});
