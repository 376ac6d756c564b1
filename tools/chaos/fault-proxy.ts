// A TCP proxy on one link of the fault run (`npm run chaos`): each replica reaches PostgreSQL and Kafka through one
// of its own, and the nemesis puts a fault on it (target.ts: Fault), as it would with toxiproxy, which cannot be
// installed here. How each fault is made, and why so:
//   - latency: each direction of a connection is a queue. A chunk is written once its delay is over but never
//     before the chunk read ahead of it, so jitter never reorders bytes. A side's end is delayed as a chunk is.
//   - reset: both sockets of every connection are closed with an RST (resetAndDestroy), so each peer reads
//     ECONNRESET rather than a clean end, and so is each connection accepted until the fault changes.
//   - blackhole: reading stops on both sides rather than reading and dropping, as over a partition nothing is
//     acknowledged: a sender's writes back up once the buffers are full, and neither side's end reaches the other.
//     Bytes in a latency queue are lost, as packets in flight are. A connection accepted meanwhile gets no upstream
//     connection: its SYN would not have crossed either. When the fault changes, every one of its connections is
//     reset on both sides instead of resumed: the requests sent into it have timed out and may have been retried
//     elsewhere, so delivering them late is not what the run models; a reset makes both sides reconnect at once,
//     as after a partition long enough for TCP to give up.
//   - slowClose: a side's end (FIN) or abort reaches the other side ms later; data flows at once, both ways,
//     meanwhile (both sockets allow half-open connections, so an end is passed on, not acted on).
//   - down: the listening socket is closed (a connect is refused) and every connection destroyed; the next fault,
//     or none, listens on the same port again. Should another process take the port meanwhile, set() rejects.
// Each direction stops reading its source while its destination's buffer is full or its delay queue holds
// MAX_QUEUED_BYTES, so memory stays bounded whatever the fault.
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Fault } from './target';

/** What a direction's delay queue holds before it stops reading its source: the link's window, in effect. */
const MAX_QUEUED_BYTES = 1024 * 1024;

export interface FaultProxyOptions {
  /** The link's name in logs and errors, e.g. `postgres:accounts-0`. */
  name: string;
  /**
   * host:port of each upstream; connections go round-robin, an upstream refusing the connect is skipped for the
   * next (all refusing: the client's connection is destroyed).
   */
  upstreams: string[];
  /** Where to listen: 127.0.0.1 by default. */
  host?: string;
  /** A free port by default. */
  port?: number;
  /** For latency jitter; default Math.random. The nemesis passes a seeded one. */
  random?: () => number;
}

interface Address {
  host: string;
  port: number;
}

/** When what a link reads is passed on, under the fault in force: ms from now. */
interface Timing {
  data(): number;
  /** A side's end or abort. */
  close(): number;
}

/** Bytes written to each side, for stats(). */
interface Delivered {
  up: number;
  down: number;
}

export class FaultProxy {
  readonly name: string;
  private readonly host: string;
  /** The port asked for, then the one listened on, for the proxy's whole life. */
  private listenPort: number;
  private upstreams: Address[];
  private turn = 0;
  private readonly random: () => number;
  private readonly server: Server;
  private readonly links = new Set<Link>();
  private current: Fault | null = null;
  private closed = false;
  /** Faults are put on one after the other, so that a `down` has stopped listening before the next listens. */
  private changes: Promise<void> = Promise.resolve();
  private accepted = 0;
  private readonly delivered: Delivered = { up: 0, down: 0 };
  private readonly timing: Timing = { data: () => this.dataDelay(), close: () => this.closeDelay() };

  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const proxy = new FaultProxy(options);
    await proxy.listen();
    return proxy;
  }

  private constructor(options: FaultProxyOptions) {
    this.name = options.name;
    this.host = options.host ?? '127.0.0.1';
    this.listenPort = options.port ?? 0;
    this.upstreams = options.upstreams.map(parseAddress);
    this.random = options.random ?? Math.random;
    this.server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => this.accept(client));
    // A failed accept (EMFILE) is a connection that never was; the server goes on listening.
    this.server.on('error', () => undefined);
  }

  /** host:port, the same for the proxy's whole life (also across `down` and heal). */
  get address(): string {
    return `${this.host}:${this.listenPort}`;
  }

  get port(): number {
    return this.listenPort;
  }

  get fault(): Fault | null {
    return this.current;
  }

  /** Replaces the link's fault (null: pass-through again, listening on the same port). Resolves once in force. */
  set(fault: Fault | null): Promise<void> {
    return this.serially(async () => {
      if (this.closed) throw new Error(`fault proxy ${this.name} is closed`);
      checkFault(this.name, fault);
      const previous = this.current;
      this.current = fault;
      if (previous?.kind === 'blackhole' && fault?.kind !== 'blackhole') this.forEachLink((link) => link.reset());
      switch (fault?.kind) {
        case 'down':
          this.forEachLink((link) => link.destroy());
          return this.stopListening();
        case 'reset':
          this.forEachLink((link) => link.reset());
          break;
        case 'blackhole':
          this.forEachLink((link) => link.stall());
          break;
      }
      await this.listen();
    });
  }

  /** Where the connections accepted from now on go; those open stay where they are. */
  setUpstreams(upstreams: string[]): void {
    this.upstreams = upstreams.map(parseAddress);
  }

  /** Connections open now and accepted so far; bytes written to the upstreams (up) and to the clients (down). */
  stats(): { open: number; accepted: number; bytesUp: number; bytesDown: number } {
    return {
      open: this.links.size,
      accepted: this.accepted,
      bytesUp: this.delivered.up,
      bytesDown: this.delivered.down,
    };
  }

  /** Stops listening and destroys every connection; resolves once every socket is closed. */
  close(): Promise<void> {
    return this.serially(async () => {
      if (this.closed) return;
      this.closed = true;
      this.forEachLink((link) => link.destroy());
      await this.stopListening();
      await Promise.all([...this.links].map((link) => link.gone));
    });
  }

  private accept(client: Socket): void {
    this.accepted += 1;
    const link = new Link(client, this.timing, this.delivered);
    this.links.add(link);
    void link.gone.then(() => this.links.delete(link));
    switch (this.current?.kind) {
      case 'reset':
        return link.reset();
      case 'blackhole':
        return link.stall();
      default:
        return link.connect(this.nextUpstreams());
    }
  }

  /** Every upstream, starting with the one whose turn it is. */
  private nextUpstreams(): Address[] {
    if (this.upstreams.length === 0) return [];
    const first = this.turn++ % this.upstreams.length;
    return [...this.upstreams.slice(first), ...this.upstreams.slice(0, first)];
  }

  private dataDelay(): number {
    const fault = this.current;
    if (fault?.kind !== 'latency') return 0;
    const jitterMs = fault.jitterMs ?? 0;
    return Math.max(0, fault.ms + (this.random() * 2 - 1) * jitterMs);
  }

  private closeDelay(): number {
    return this.current?.kind === 'slowClose' ? this.current.ms : this.dataDelay();
  }

  private forEachLink(action: (link: Link) => void): void {
    for (const link of this.links) action(link);
  }

  private serially(change: () => Promise<void>): Promise<void> {
    const next = this.changes.then(change);
    this.changes = next.catch(() => undefined);
    return next;
  }

  private listen(): Promise<void> {
    if (this.server.listening) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const fail = (error: Error) =>
        reject(new Error(`fault proxy ${this.name}: cannot listen on ${this.address}: ${error.message}`));
      this.server.once('error', fail);
      this.server.listen(this.listenPort, this.host, () => {
        this.server.off('error', fail);
        this.listenPort = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Resolves once the server has closed, which waits for its accepted sockets: destroy them first. */
  private stopListening(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A client's connection and its upstream's; gone once every socket it opened is closed. */
class Link {
  readonly gone: Promise<void>;
  private readonly sockets = new Set<Socket>();
  private directions: Direction[] = [];
  private stalled = false;
  private over = false;
  private markGone!: () => void;

  constructor(
    private readonly client: Socket,
    private readonly timing: Timing,
    private readonly delivered: Delivered,
  ) {
    this.gone = new Promise((resolve) => (this.markGone = resolve));
    this.track(client);
    // Until the upstream is connected, no direction passes the client's leaving on.
    client.once('close', () => {
      if (this.directions.length === 0) this.destroy();
    });
  }

  /** Connects to the first candidate that accepts, in order; with none, the client's connection is destroyed. */
  connect(candidates: Address[]): void {
    const [next, ...rest] = candidates;
    if (this.over) return;
    if (!next) return this.destroy();
    const upstream = createConnection({ ...next, allowHalfOpen: true });
    // Read only once a direction says so, as the client is (the server pauses it on accepting).
    upstream.pause();
    this.track(upstream);
    const refused = () => this.connect(rest);
    upstream.once('error', refused);
    upstream.once('connect', () => {
      upstream.off('error', refused);
      this.directions = [
        new Direction(this.client, upstream, this.timing, (bytes) => (this.delivered.up += bytes)),
        new Direction(upstream, this.client, this.timing, (bytes) => (this.delivered.down += bytes)),
      ];
      for (const direction of this.directions) {
        if (this.stalled) direction.stall();
        else direction.start();
      }
    });
  }

  /** Nothing passes either way any more, and neither side is read (the client was not read before it connected). */
  stall(): void {
    this.stalled = true;
    for (const direction of this.directions) direction.stall();
  }

  reset(): void {
    this.end(reset);
  }

  destroy(): void {
    this.end((socket) => socket.destroy());
  }

  private end(close: (socket: Socket) => void): void {
    this.over = true;
    for (const direction of this.directions) direction.stop();
    for (const socket of this.sockets) close(socket);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    // A peer's reset or an upstream's refusal is part of the run, not a failure of the proxy: the socket closes.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      this.sockets.delete(socket);
      if (this.sockets.size > 0) return;
      for (const direction of this.directions) direction.stop();
      this.markGone();
    });
  }
}

interface Delivery {
  /** performance.now() at which it is written. */
  due: number;
  chunk?: Buffer;
  /** The source's end (passed on as an end) or abort (passed on by destroying the destination). */
  close?: 'end' | 'destroy';
}

/** One way of a link: what `from` sends, written to `to` when the fault says, in the order it was sent. */
class Direction {
  private readonly queue: Delivery[] = [];
  private queuedBytes = 0;
  private timer?: NodeJS.Timeout;
  private sourceEnded = false;
  private stalled = false;
  private stopped = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    timing: Timing,
    private readonly delivered: (bytes: number) => void,
  ) {
    from.on('data', (chunk: Buffer) => this.push({ chunk }, timing.data()));
    from.once('end', () => {
      this.sourceEnded = true;
      this.push({ close: 'end' }, timing.close());
    });
    // A source closed after its end has finished both ways (the other direction ended it); otherwise it aborted.
    from.once('close', (hadError) => {
      if (hadError || !this.sourceEnded) this.push({ close: 'destroy' }, timing.close());
    });
    to.on('drain', () => this.regulate());
    to.once('close', () => this.stop());
  }

  /** Starts reading the source. */
  start(): void {
    this.regulate();
  }

  stall(): void {
    this.stalled = true;
    this.clear();
    this.regulate();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private push(delivery: Omit<Delivery, 'due'>, delay: number): void {
    if (this.stopped || this.stalled) return;
    this.queue.push({ ...delivery, due: performance.now() + delay });
    this.queuedBytes += delivery.chunk?.length ?? 0;
    if (!this.timer) this.flush();
  }

  /** Writes what is due, in order: a chunk due early waits for the one read ahead of it. */
  private flush(): void {
    this.timer = undefined;
    while (this.queue.length > 0 && !this.timer) {
      const wait = this.queue[0].due - performance.now();
      if (wait > 0) this.timer = setTimeout(() => this.flush(), wait);
      else this.deliver(this.queue.shift()!);
    }
    this.regulate();
  }

  private deliver({ chunk, close }: Delivery): void {
    if (chunk) {
      this.queuedBytes -= chunk.length;
      this.to.write(chunk);
      this.delivered(chunk.length);
    } else if (close === 'end') this.to.end();
    else this.to.destroy();
  }

  /** Reads the source only while there is room: the destination drained and the queue below its bound. */
  private regulate(): void {
    if (this.stopped) return;
    if (this.stalled || this.to.writableNeedDrain || this.queuedBytes >= MAX_QUEUED_BYTES) this.from.pause();
    else this.from.resume();
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    this.queuedBytes = 0;
  }
}

/** Closes with an RST, so the peer reads ECONNRESET; a socket still connecting has no peer yet and is destroyed. */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.connecting) socket.destroy();
  else socket.resetAndDestroy();
}

function checkFault(name: string, fault: Fault | null): void {
  const durations =
    fault?.kind === 'latency' ? [fault.ms, fault.jitterMs ?? 0] : fault?.kind === 'slowClose' ? [fault.ms] : [];
  if (durations.some((ms) => !Number.isFinite(ms) || ms < 0))
    throw new Error(`fault proxy ${name}: ${JSON.stringify(fault)} needs durations of 0 ms or more`);
}

function parseAddress(address: string): Address {
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port)) throw new Error(`not host:port: ${address}`);
  return { host: address.slice(0, colon), port };
}
