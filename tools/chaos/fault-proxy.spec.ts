// The fault proxy between real sockets on loopback: a client, the proxy, and echo servers as upstreams.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { FaultProxy } from './fault-proxy';
import { seededRandom } from './seeded-random';

/** How long "nothing arrived" is watched for. */
const QUIET_MS = 300;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An echo server: it writes back what it reads, and on `bye` ends its side too. */
interface Echo {
  address: string;
  /** Connections it accepted. */
  accepted: number;
  /** The error codes its sockets saw. */
  errors: string[];
}

async function startEcho(): Promise<Echo> {
  const sockets = new Set<Socket>();
  const echo = { address: '', accepted: 0, errors: [] as string[] };
  const server = createServer((socket) => {
    echo.accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', (error: NodeJS.ErrnoException) => echo.errors.push(error.code ?? error.message));
    socket.on('data', (chunk) => {
      socket.write(chunk);
      if (chunk.toString().includes('bye')) socket.end();
    });
  });
  echo.address = await listen(server);
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return echo;
}

/** An address nothing listens on. */
async function deadAddress(): Promise<string> {
  const server = createServer();
  const address = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return address;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return `127.0.0.1:${port}`;
}

async function startProxy(upstreams: string[], random?: () => number): Promise<FaultProxy> {
  const proxy = await FaultProxy.start({ name: 'spec', upstreams, random });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A client connection: what it received, and how it ended. */
class Peer {
  received = '';
  /** performance.now() at its end (the upstream's FIN passed on). */
  readonly ended: Promise<number>;
  /** The error code it closed with, or undefined for a clean close. */
  readonly closed: Promise<string | undefined>;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.received += chunk.toString();
      for (const waiter of this.waiters) waiter();
    });
    this.ended = new Promise((resolve) => socket.once('end', () => resolve(performance.now())));
    let code: string | undefined;
    socket.on('error', (error: NodeJS.ErrnoException) => (code = error.code));
    this.closed = new Promise((resolve) => socket.once('close', () => resolve(code)));
    cleanups.push(() => void socket.destroy());
  }

  /** A connection on its way: its connect may already fail. */
  static dial(address: string, options: { allowHalfOpen?: boolean } = {}): Peer {
    const [host, port] = address.split(':');
    return new Peer(createConnection({ host, port: Number(port), ...options }));
  }

  /** Resolves once connected (the proxy accepted it), whatever becomes of it next. */
  static connect(address: string): Promise<Peer> {
    const peer = Peer.dial(address);
    return new Promise((resolve, reject) => {
      peer.socket.once('connect', () => resolve(peer));
      void peer.closed.then((code) => reject(new Error(`not connected: ${code}`)));
    });
  }

  /** Resolves with performance.now() once everything received includes `text`. */
  receive(text: string): Promise<number> {
    return new Promise((resolve) => {
      const check = () => {
        if (!this.received.includes(text)) return;
        this.waiters.delete(check);
        resolve(performance.now());
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Sends `text` and resolves once it is back. */
  async echo(text: string): Promise<void> {
    this.socket.write(text);
    await this.receive(text);
  }
}

/** The error code a connect to `address` fails with. */
function refusal(address: string): Promise<string | undefined> {
  const [host, port] = address.split(':');
  return new Promise((resolve) =>
    createConnection({ host, port: Number(port) })
      .on('connect', function (this: Socket) {
        this.destroy();
        resolve(undefined);
      })
      .on('error', (error: NodeJS.ErrnoException) => resolve(error.code)),
  );
}

/** Resolves once `done()` holds, looking every 10 ms; the test's own timeout bounds it. */
async function eventually(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));

describe('FaultProxy', () => {
  it('passes bytes both ways unchanged, and counts connections and bytes', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    expect(proxy.address).toBe(`127.0.0.1:${proxy.port}`);

    const peer = await Peer.connect(proxy.address);
    await peer.echo('hello');
    expect(proxy.stats()).toEqual({ open: 1, accepted: 1, bytesUp: 5, bytesDown: 5 });
    peer.socket.end('bye');
    await peer.ended;
    expect(peer.received).toBe('hellobye');
    await eventually(() => proxy.stats().open === 0);
  });

  it('delays each chunk each way by the latency, and keeps their order under jitter', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address], seededRandom(42));
    const peer = await Peer.connect(proxy.address);
    await peer.echo('warm');

    await proxy.set({ kind: 'latency', ms: 150 });
    expect(proxy.fault).toEqual({ kind: 'latency', ms: 150 });
    const sent = performance.now();
    await peer.echo('slow');
    expect(performance.now() - sent).toBeGreaterThanOrEqual(300);

    await proxy.set({ kind: 'latency', ms: 20, jitterMs: 20 });
    const numbers = Array.from({ length: 200 }, (_, i) => `${i},`);
    for (const number of numbers) {
      peer.socket.write(number);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await peer.receive('199,');
    expect(peer.received).toBe(`warmslow${numbers.join('')}`);
  });

  it('carries a stream larger than its buffers whole, under backpressure', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    await proxy.set({ kind: 'latency', ms: 5 });
    const peer = await Peer.connect(proxy.address);
    const sent = Buffer.alloc(8 * 1024 * 1024, 'abcdefghijklmnopqrstuvwxyz');
    const received: Buffer[] = [];
    let length = 0;
    const whole = new Promise<void>((resolve) =>
      peer.socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        length += chunk.length;
        if (length === sent.length) resolve();
      }),
    );
    peer.socket.write(sent);
    await whole;
    expect(Buffer.concat(received).equals(sent)).toBe(true);
    expect(proxy.stats()).toMatchObject({ bytesUp: sent.length, bytesDown: sent.length });
  });

  it('keeps a half-closed connection open the other way', async () => {
    // An upstream that answers after the client's end, then ends too.
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      socket.on('end', () => socket.end('after'));
      socket.resume();
    });
    const upstream = await listen(server);
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const proxy = await startProxy([upstream]);
    const peer = Peer.dial(proxy.address, { allowHalfOpen: true });

    peer.socket.end();
    await peer.ended;
    expect(peer.received).toBe('after');
  });

  it('resets every connection on both sides, and each new one, until the fault changes', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    const open = await Peer.connect(proxy.address);
    await open.echo('before');

    await proxy.set({ kind: 'reset' });
    expect(await open.closed).toBe('ECONNRESET');
    await eventually(() => echo.errors.includes('ECONNRESET'));
    // Reset as it is accepted: the client may see its connect succeed first, or not.
    expect(await Peer.dial(proxy.address).closed).toBe('ECONNRESET');

    await proxy.set(null);
    await (await Peer.connect(proxy.address)).echo('after');
  });

  it('stalls every connection in a blackhole, forwards nothing either way, and resets them when healed', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    const open = await Peer.connect(proxy.address);
    await open.echo('before;');

    await proxy.set({ kind: 'blackhole' });
    const accepted = await Peer.connect(proxy.address);
    open.socket.write('lost');
    accepted.socket.write('lost');
    await quiet();
    expect([open.received, accepted.received]).toEqual(['before;', '']);
    // The new connection never reached the upstream.
    expect(echo.accepted).toBe(1);

    await proxy.set(null);
    expect(await Promise.all([open.closed, accepted.closed])).toEqual(['ECONNRESET', 'ECONNRESET']);
    await (await Peer.connect(proxy.address)).echo('after');
  });

  it('passes a close on only after slowClose ms, while data flows at once', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    const peer = await Peer.connect(proxy.address);

    await proxy.set({ kind: 'slowClose', ms: 500 });
    const sent = performance.now();
    peer.socket.write('bye');
    const received = await peer.receive('bye');
    const ended = await peer.ended;
    expect(received - sent).toBeLessThan(500);
    expect(ended - sent).toBeGreaterThanOrEqual(500);
  });

  it('refuses connections while down, having closed those open, and listens on the same address when healed', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    const address = proxy.address;
    const open = await Peer.connect(address);
    await open.echo('before');

    await proxy.set({ kind: 'down' });
    await open.closed;
    expect(await refusal(address)).toBe('ECONNREFUSED');

    await proxy.set(null);
    expect(proxy.address).toBe(address);
    await (await Peer.connect(address)).echo('after');
  });

  it('spreads connections round-robin, skipping an upstream that refuses, and drops them when all refuse', async () => {
    const [a, b] = await Promise.all([startEcho(), startEcho()]);
    const proxy = await startProxy([a.address, b.address]);
    const chosen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const before = [a.accepted, b.accepted];
      await (await Peer.connect(proxy.address)).echo('which');
      chosen.push(a.accepted > before[0] ? 'a' : 'b');
    }
    expect(chosen).toEqual(['a', 'b', 'a', 'b']);

    const dead = await deadAddress();
    proxy.setUpstreams([dead, b.address]);
    for (let i = 0; i < 2; i++) await (await Peer.connect(proxy.address)).echo('b');
    expect(b.accepted).toBe(4);

    proxy.setUpstreams([dead]);
    const dropped = await Peer.connect(proxy.address);
    await dropped.closed;
    expect(dropped.received).toBe('');
  });

  it('closes everything on close, data still in a delay queue included', async () => {
    const echo = await startEcho();
    const proxy = await startProxy([echo.address]);
    const peer = await Peer.connect(proxy.address);
    await peer.echo('before');
    await proxy.set({ kind: 'latency', ms: 10_000 });
    peer.socket.write('queued');

    await proxy.close();
    await peer.closed;
    expect(proxy.stats().open).toBe(0);
    expect(await refusal(proxy.address)).toBe('ECONNREFUSED');
    await expect(proxy.set(null)).rejects.toThrow('fault proxy spec is closed');
  });

  it('refuses a negative duration', async () => {
    const proxy = await startProxy([await deadAddress()]);
    await expect(proxy.set({ kind: 'latency', ms: -1 })).rejects.toThrow('needs durations of 0 ms or more');
    expect(proxy.fault).toBeNull();
  });
});
