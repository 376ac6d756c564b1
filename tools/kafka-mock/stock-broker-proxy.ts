// A Kafka-protocol proxy in front of the test broker (librdkafka's mock
// cluster, tools/kafka-mock) that holds clients to the rules of a stock Apache
// Kafka broker which the mock does not enforce (ADR 0012), so the tests prove
// the platform keeps to them instead of trusting that it does:
//   - JoinGroup with a session timeout outside [6000, 300000] ms is answered
//     INVALID_SESSION_TIMEOUT (26), as group.min.session.timeout.ms and
//     group.max.session.timeout.ms (300000 before Kafka 2.3) make a broker do;
//   - Metadata never creates a topic, as on a broker with
//     auto.create.topics.enable=false: the mock (librdkafka 2.0) speaks
//     Metadata up to v2, which has no allow_auto_topic_creation and creates
//     every topic it is asked about, so the proxy asks only about the topics
//     that exist and answers UNKNOWN_TOPIC_OR_PARTITION (3) for the others;
//   - CreateTopics, which the mock lacks, is answered here and advertised in
//     ApiVersions: a topic is created on the mock by asking it for the topic's
//     metadata, on a connection of the proxy's own; an existing one is
//     TOPIC_ALREADY_EXISTS (36). The mock gives every topic 4 partitions,
//     whatever was asked;
//   - the mock's address in Metadata and FindCoordinator answers becomes the
//     listener's advertised address (below), so clients stay behind the proxy
//     after bootstrap (the mock has one broker);
//   - a follower's SyncGroup that reaches the mock after the leader's gets its
//     assignment, as from a broker whose group is stable: the mock answers it
//     INVALID_REQUEST, which kafkajs cannot recover from, so a consumer that
//     joined a running group a moment late would never consume;
//   - a Fetch that finds no records is answered as soon as records are produced
//     to one of its topics, or when its wait is over, as a broker's fetch
//     purgatory does (fetch.min.bytes 1): the mock answers an empty fetch only
//     at the end of its wait, so every event would wait for it, and consumers
//     set a short wait and spin. The proxy asks the mock with no wait, holds an
//     empty answer, and asks again when a Produce to one of the fetch's topics
//     has been answered (a Produce with acks 0, which has no answer, is seen
//     at the end of the wait). Only full fetches are held (no fetch session,
//     which kafkajs does not use);
//   - a member's JoinGroup or SyncGroup reaches the mock only once the mock
//     has answered the member's previous one: the mock holds such an answer
//     until the rest of the group has joined or synced, and aborts (an
//     assertion in librdkafka 2.0) when the member joins again meanwhile, as a
//     client does after a broker restart or a request it gave up on; a broker
//     answers it. The later request waits until the earlier is answered or its
//     connection to the mock has closed; one still unanswered after the
//     member's session has its connection closed by the proxy (the client gave
//     up on it). The mock reads nothing more from a connection whose group
//     request it holds, a FIN included, so the proxy closes such a connection
//     with a reset, which the mock sees in its next poll; and a request after
//     a close goes once one round trip on its own connection is answered (the
//     mock handles one poll's events in the order its connections were opened,
//     and clears a member's held answer only when it handles the close);
//   - DeleteTopics, ListGroups and DeleteGroups, which the mock lacks, are
//     answered here, so tests can remove what they made and check that they
//     did: a deleted topic is gone from every Metadata answer (the mock keeps
//     its records, so its name cannot be used again: CreateTopics answers it
//     as a broker does while a deletion is under way); the groups are those
//     a JoinGroup or an OffsetCommit named, and a group is deleted only once
//     it has no member (NON_EMPTY_GROUP otherwise). A member is a connection
//     that joined the group and neither left it nor closed more than its
//     session timeout ago, as a broker counts a member until its session expires.
// Everything else passes through unchanged, byte for byte. Of the APIs it
// reads, only the versions before each API's flexible encoding are understood
// (they cover kafkajs 2.2.4), and ApiVersions advertises no others. A
// connection's requests reach the mock in the order they were sent; answers
// the proxy makes itself may overtake the mock's, and clients match answers
// by correlation id.
//
// Listeners. The proxy listens on its address, and addListener() opens more
// ports into the same proxy (the same groups, held fetches and deleted topics),
// for the fault run (tools/chaos), which puts a TCP fault proxy between each
// process and the broker. A listener's answers name its advertised address as
// the broker's: its own, or the one given to advertise(), such as the fault
// proxy's in front of it, so that a client bootstrapped there stays behind the
// fault proxy instead of connecting to the broker's address it learns. The
// listener is opened first, since the fault proxy needs its address as its
// upstream, and is then told the fault proxy's with advertise(). suspend(),
// resume() and close() act on every listener.
//
// Without the rules (rules: false), for a proxy in front of a broker that is
// not the mock (a real single broker, or another stock-broker proxy, which
// keeps the rules itself), none of the above is enforced or answered here:
// every request passes through byte for byte, and only the broker's address in
// Metadata and FindCoordinator answers is rewritten to the listener's
// advertised address. Every broker a Metadata answer names is rewritten,
// whatever address it gives (a real broker gives its own host name), so a
// cluster of more than one broker is not supported: all of them would be named
// as one address, and the proxy closes the connection instead. To be able to
// rewrite them, ApiVersions still advertises only the versions of Metadata and
// FindCoordinator it reads, and an ApiVersions it cannot read is answered here
// with the versions it can, as a broker does.
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** What a stock broker accepts as a consumer's session timeout (group.min/max.session.timeout.ms). */
export const SESSION_TIMEOUT_RANGE_MS = { min: 6_000, max: 300_000 } as const;

const API = {
  Produce: 0,
  Fetch: 1,
  Metadata: 3,
  OffsetCommit: 8,
  FindCoordinator: 10,
  JoinGroup: 11,
  LeaveGroup: 13,
  SyncGroup: 14,
  ListGroups: 16,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  DeleteGroups: 42,
} as const;
/** The APIs the proxy answers itself: advertised in ApiVersions whatever the mock says. */
const ANSWERED = [API.CreateTopics, API.DeleteTopics, API.ListGroups, API.DeleteGroups] as const;
const API_NAMES: Record<number, string> = Object.fromEntries(Object.entries(API).map(([name, key]) => [key, name]));
/** The versions of the APIs that name the broker, or tell which versions there are, that it rewrites. */
const ADDRESS_VERSIONS: Record<number, readonly [number, number]> = {
  [API.Metadata]: [1, 7], // in v0, no topics means all
  [API.FindCoordinator]: [0, 2],
  [API.ApiVersions]: [0, 2],
};
/** The versions of the APIs it reads or rewrites that it understands. */
const VERSIONS: Record<number, readonly [number, number]> = {
  ...ADDRESS_VERSIONS,
  [API.JoinGroup]: [0, 5],
  [API.SyncGroup]: [0, 3],
  [API.CreateTopics]: [0, 4],
  [API.DeleteTopics]: [0, 3],
  [API.ListGroups]: [0, 2],
  [API.DeleteGroups]: [0, 1],
};
/** The versions of Produce and Fetch it reads (both before their flexible encodings); others pass through unread. */
const PRODUCE_VERSIONS = [3, 8] as const;
const FETCH_VERSIONS = [4, 11] as const;
const ERROR = {
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  INVALID_TOPIC_EXCEPTION: 17,
  INVALID_SESSION_TIMEOUT: 26,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REQUEST: 42,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
} as const;
/** The request a rewritten answer belongs to. */
interface Rewrite {
  apiKey: number;
  apiVersion: number;
  /** Metadata: the topics to name unknown. */
  unknownTopics?: string[];
  /** SyncGroup: the member's assignment in the generation its leader synced, should the mock refuse it. */
  assignment?: () => Buffer | null | undefined;
}
/** What a proxy reads and answers: a stock broker's rules, or (rules: false) no more than the broker's address. */
interface Mode {
  rules: boolean;
  /** The versions of the APIs it reads or rewrites: ApiVersions advertises no others of these. */
  versions: Record<number, readonly [number, number]>;
  /** The APIs it answers itself, advertised in ApiVersions whatever the upstream says. */
  answered: readonly number[];
}
const RULES: Mode = { rules: true, versions: VERSIONS, answered: ANSWERED };
const ADDRESS_ONLY: Mode = { rules: false, versions: ADDRESS_VERSIONS, answered: [] };
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const MAX_FRAME_BYTES = 100 * 1024 * 1024;
const MOCK_TIMEOUT_MS = 10_000;

export interface StockBrokerProxyOptions {
  /** The mock broker, host:port (with rules false: any single broker, or another stock-broker proxy). */
  upstream: string;
  /** Where to listen: 127.0.0.1 and a free port by default (for every listener; each added one on a free port). */
  host?: string;
  port?: number;
  /** One line per refusal (a session timeout out of range, a request it cannot read). */
  log?: (line: string) => void;
  /** false: no stock-broker rule is kept, only the broker's address rewritten (see the header). true by default. */
  rules?: boolean;
}

export interface StockBrokerProxy {
  /** host:port, for KAFKA_BROKERS. */
  readonly address: string;
  /**
   * One more port into the same proxy, whose answers name `advertise` (host:port; by default its own address) as
   * the broker's. Suspended, resumed and closed with the proxy.
   */
  addListener(options?: { advertise?: string }): Promise<StockBrokerListener>;
  /**
   * Takes the broker away, as a broker that stops does: it stops listening (a client's connect is
   * refused) and closes every connection. What the mock holds (topics, offsets, groups) stays.
   */
  suspend(): Promise<void>;
  /** Brings it back on the same address. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** A port into a stock-broker proxy, added by addListener(). */
export interface StockBrokerListener {
  /** host:port it listens on. */
  readonly address: string;
  /** The address (host:port) its answers name as the broker's from now on: what its clients connect through. */
  advertise(address: string): void;
  /** Stops listening and closes its connections; the proxy and its other listeners go on. */
  close(): Promise<void>;
}

export async function startStockBrokerProxy(options: StockBrokerProxyOptions): Promise<StockBrokerProxy> {
  const shared: Shared = {
    upstream: parseAddress(options.upstream),
    log: options.log ?? (() => undefined),
    mode: options.rules === false ? ADDRESS_ONLY : RULES,
    assignments: new Map(),
    fetches: new HeldFetches(),
    deletedTopics: new Set(),
    groups: new Groups(),
    turns: new MemberTurns(),
  };
  const host = options.host ?? '127.0.0.1';
  const listeners = new Set<Listener>();
  const open = async (port: number, advertise?: string) => {
    const listener = new Listener(host, shared);
    if (advertise) listener.advertise(advertise);
    await listener.listen(port);
    listeners.add(listener);
    return listener;
  };
  const everyListener = async (action: (listener: Listener) => Promise<void>) => {
    await Promise.all([...listeners].map(action));
  };
  const first = await open(options.port ?? 0);
  return {
    address: first.address,
    addListener: async ({ advertise } = {}) => {
      const listener = await open(0, advertise);
      return {
        address: listener.address,
        advertise: (address) => listener.advertise(address),
        close: () => {
          listeners.delete(listener);
          return listener.suspend();
        },
      };
    },
    suspend: () => everyListener((listener) => listener.suspend()),
    resume: () => everyListener((listener) => listener.resume()),
    close: () => everyListener((listener) => listener.suspend()),
  };
}

interface Address {
  host: string;
  port: number;
}

/** What every connection to a proxy shares, whichever listener it came in on. */
interface Shared {
  upstream: Address;
  log: (line: string) => void;
  mode: Mode;
  /** Each group's latest generation, as its leader's SyncGroup assigned it: member id to assignment. */
  assignments: Map<string, { generation: number; members: Map<string, Buffer | null> }>;
  fetches: HeldFetches;
  /** Topics a DeleteTopics removed: the mock still has them, the clients never see them again. */
  deletedTopics: Set<string>;
  groups: Groups;
  turns: MemberTurns;
}

interface Context extends Shared {
  /** The broker's address in the answers the connection gets: its listener's advertised address, as it is now. */
  advertised: () => Address;
}

/** A port into the proxy, and the address its answers name as the broker's. */
class Listener {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private own!: Address;
  private advertised?: Address;

  constructor(
    private readonly host: string,
    shared: Shared,
  ) {
    this.server = createServer((client) => {
      const mock = createConnection(shared.upstream);
      for (const socket of [client, mock]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
      }
      proxyConnection(client, mock, { ...shared, advertised: () => this.advertised ?? this.own });
    });
  }

  get address(): string {
    return `${this.own.host}:${this.own.port}`;
  }

  /** Listens on `port` (0: a free one), the listener's port from then on. */
  async listen(port: number): Promise<void> {
    await listen(this.server, port, this.host);
    this.own = { host: this.host, port: (this.server.address() as AddressInfo).port };
  }

  advertise(address: string): void {
    this.advertised = parseAddress(address);
  }

  /** Stops listening (a client's connect is refused) and closes every connection, as a broker that stops does. */
  suspend(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }

  /** Listens again on its own port. */
  resume(): Promise<void> {
    return listen(this.server, this.own.port, this.host);
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The consumer groups clients made, and their members, for ListGroups and DeleteGroups. */
class Groups {
  /** Each group's protocol type, and its members: a joining connection, with its session timeout. */
  private readonly groups = new Map<
    string,
    { protocolType: string; members: Map<Socket, { sessionTimeout: number; expiry?: NodeJS.Timeout }> }
  >();

  /** A group named by a JoinGroup or an OffsetCommit exists, as on a broker; the joining connection is a member. */
  seen(groupId: string, protocolType: string, member?: { connection: Socket; sessionTimeout: number }): void {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = { protocolType, members: new Map() }));
    if (!member) return;
    clearTimeout(group.members.get(member.connection)?.expiry);
    group.members.set(member.connection, { sessionTimeout: member.sessionTimeout });
  }

  left(groupId: string, connection: Socket): void {
    const member = this.groups.get(groupId)?.members.get(connection);
    clearTimeout(member?.expiry);
    this.groups.get(groupId)?.members.delete(connection);
  }

  /** A connection closed without leaving: its membership lasts its session, as a broker waits for a crashed member. */
  closed(connection: Socket): void {
    for (const group of this.groups.values()) {
      const member = group.members.get(connection);
      if (!member || member.expiry) continue;
      member.expiry = setTimeout(() => group.members.delete(connection), member.sessionTimeout);
      member.expiry.unref();
    }
  }

  list(): Array<{ groupId: string; protocolType: string }> {
    return [...this.groups].map(([groupId, { protocolType }]) => ({ groupId, protocolType }));
  }

  delete(groupId: string): number {
    const group = this.groups.get(groupId);
    if (!group) return ERROR.GROUP_ID_NOT_FOUND;
    if (group.members.size > 0) return ERROR.NON_EMPTY_GROUP;
    this.groups.delete(groupId);
    return ERROR.NONE;
  }
}

/** A member's group request at the mock, until the mock answers it or its connection closes. */
interface Turn {
  /** Settles when it ends: `answered` when the mock answered, `closed` when its connection to the mock closed. */
  ended: Promise<'answered' | 'closed'>;
  end(how: 'answered' | 'closed'): void;
  /** Closes the connection it is on (both sides), which ends it `closed`. */
  abandon(): void;
}

/** Each consumer group member's JoinGroup or SyncGroup at the mock, one at a time (see the header). */
class MemberTurns {
  private readonly current = new Map<string, Turn>();
  /** Each member's session timeout, from its latest JoinGroup: how long its earlier request is waited for. */
  private readonly sessions = new Map<string, number>();
  /**
   * Members whose latest request ended with its connection closing and who have sent none since. The mock
   * clears a member's held answer when it handles that close, which may come after a request on a connection
   * it polls first: the next request goes after a round trip.
   */
  private readonly closedSince = new Set<string>();

  /**
   * Waits until no earlier request of the member is at the mock, then takes the member's turn on the
   * connection `abandon` closes. Resolves with the turn and whether the member's previous request ended by its
   * connection closing (the caller then makes sure the mock has seen that close before it sends).
   */
  async take(
    member: string,
    abandon: () => void,
    sessionTimeout?: number,
  ): Promise<{ turn: Turn; afterClose: boolean }> {
    if (sessionTimeout !== undefined) this.sessions.set(member, sessionTimeout);
    for (let earlier = this.current.get(member); earlier; earlier = this.current.get(member)) {
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => {
        timer = setTimeout(() => resolve('expired'), (this.sessions.get(member) ?? 10_000) + 1_000);
      });
      const how = await Promise.race([earlier.ended, expired]);
      clearTimeout(timer);
      // Unanswered past the member's session: the client gave up on it. Its connection is closed rather than
      // the mock trusted to have dropped the member by now (its session timer runs late under load).
      if (how === 'expired') {
        earlier.abandon();
        await earlier.ended;
      }
    }
    const afterClose = this.closedSince.delete(member);
    let end!: (how: 'answered' | 'closed') => void;
    const ended = new Promise<'answered' | 'closed'>((resolve) => (end = resolve));
    const turn: Turn = {
      ended,
      end: (how) => {
        if (this.current.get(member) === turn) {
          this.current.delete(member);
          if (how === 'closed') this.closedSince.add(member);
        }
        end(how);
      },
      abandon,
    };
    this.current.set(member, turn);
    return { turn, afterClose };
  }
}

/** A client's Fetch that found no records yet, and its wait not over. */
interface HeldFetch {
  /** The request as the mock gets it: the client's, with no wait. */
  frame: Buffer;
  apiVersion: number;
  topics: string[];
  /** Asked of the mock and not answered yet. */
  asking: boolean;
  /** Records were produced to one of its topics while it was being asked: ask again. */
  produced: boolean;
  /** The client's wait is over: its next answer, empty or not, goes to the client. */
  expired: boolean;
  /** The mock's latest empty answer, kept for the end of the wait. */
  empty?: Buffer;
  deadline?: NodeJS.Timeout;
  /** Asks the mock again. */
  ask(): void;
}

/** The held fetches of every connection, by topic, woken by a Produce's answer. */
class HeldFetches {
  private readonly byTopic = new Map<string, Set<HeldFetch>>();

  wait(fetch: HeldFetch): void {
    for (const topic of fetch.topics) {
      let held = this.byTopic.get(topic);
      if (!held) this.byTopic.set(topic, (held = new Set()));
      held.add(fetch);
    }
  }

  forget(fetch: HeldFetch): void {
    for (const topic of fetch.topics) {
      const held = this.byTopic.get(topic);
      held?.delete(fetch);
      if (held?.size === 0) this.byTopic.delete(topic);
    }
  }

  /** Records are in these topics now: each fetch of them asks the mock again (once its current question is answered). */
  produced(topics: readonly string[]): void {
    const woken = new Set<HeldFetch>();
    for (const topic of topics) for (const fetch of this.byTopic.get(topic) ?? []) woken.add(fetch);
    for (const fetch of woken) {
      if (fetch.asking) fetch.produced = true;
      else {
        this.forget(fetch);
        fetch.ask();
      }
    }
  }
}

function parseAddress(address: string): Address {
  const colon = address.lastIndexOf(':');
  const port = Number(address.slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port)) throw new Error(`not host:port: ${address}`);
  return { host: address.slice(0, colon), port };
}

function proxyConnection(client: Socket, mock: Socket, context: Context): void {
  /** The requests whose answers are rewritten, by correlation id. */
  const rewrites = new Map<number, Rewrite>();
  /** Fetches held until records arrive or their wait ends, by correlation id. */
  const held = new Map<number, HeldFetch>();
  /** Produces not answered yet: the topics they write to, by correlation id. */
  const producing = new Map<number, string[]>();
  /** Members' group requests at the mock, by correlation id: each ends its member's turn when answered. */
  const turns = new Map<number, Turn>();
  /** The proxy's own round trips to the mock on this connection (negative correlation ids), by correlation id. */
  const probes = new Map<number, () => void>();
  let nextProbe = -1;
  /** One round trip on this connection: whatever reached the mock before it (a close on another) has been seen. */
  const roundTrip = () =>
    new Promise<void>((resolve) => {
      const correlationId = nextProbe--;
      probes.set(correlationId, resolve);
      const header = new Writer().int16(API.ApiVersions).int16(0).int32(correlationId).string('stock-broker-proxy');
      if (mock.destroyed) resolve();
      else mock.write(sized(header.build()));
    });
  /** Forwards a member's JoinGroup or SyncGroup once the member's earlier one is no longer at the mock. */
  const forwardInTurn = async (
    frame: Buffer,
    request: RequestHeader,
    member: string,
    sessionTimeout?: number,
    rewrite: Omit<Rewrite, 'apiKey' | 'apiVersion'> = {},
  ) => {
    const { turn, afterClose } = await context.turns.take(member, () => close(), sessionTimeout);
    if (afterClose) await roundTrip();
    if (mock.destroyed) return turn.end('closed');
    turns.set(request.correlationId, turn);
    forward(frame, request, rewrite);
  };
  const release = () => {
    for (const fetch of held.values()) {
      clearTimeout(fetch.deadline);
      context.fetches.forget(fetch);
    }
    held.clear();
  };
  // The mock stops reading a connection whose JoinGroup or SyncGroup it holds, so it would not see a FIN on it
  // until it writes the answer, and would keep the member's answer meanwhile: such a connection is reset, which
  // the mock sees in its next poll whatever it reads.
  const closeMock = () => (turns.size > 0 ? mock.resetAndDestroy() : mock.destroy());
  const close = (error?: unknown) => {
    if (error)
      context.log(
        `stock-broker proxy: closing a client connection: ${error instanceof Error ? error.message : String(error)}`,
      );
    release();
    client.destroy();
    closeMock();
  };
  const answer = (frame: Buffer) => {
    if (!client.destroyed) client.write(sized(frame));
  };
  const forward = (frame: Buffer, request: RequestHeader, rewrite: Omit<Rewrite, 'apiKey' | 'apiVersion'> = {}) => {
    const { apiKey, apiVersion, correlationId } = request;
    if (apiKey in context.mode.versions) rewrites.set(correlationId, { apiKey, apiVersion, ...rewrite });
    if (!mock.destroyed) mock.write(sized(frame));
  };

  /** Forwards, rewrites or answers one request; resolves once it has gone to the mock or been answered. */
  const onRequest = async (frame: Buffer): Promise<void> => {
    const request = readRequestHeader(frame);
    const { apiKey, apiVersion, correlationId } = request;
    const range = context.mode.versions[apiKey];
    if (range && (apiVersion < range[0] || apiVersion > range[1])) {
      // A broker answers an ApiVersions it cannot read in version 0, naming the versions it can.
      if (apiKey === API.ApiVersions) return answer(apiVersionsUnsupported(correlationId));
      throw new Error(
        `${API_NAMES[apiKey]} v${apiVersion} is not a version this proxy reads (${range[0]} to ${range[1]})`,
      );
    }
    // Without the rules, a request is only forwarded (the answers naming the broker are rewritten on their way back).
    if (!context.mode.rules) return forward(frame, request);
    switch (apiKey) {
      case API.JoinGroup: {
        const body = new Reader(frame, request.bodyOffset);
        const groupId = body.string();
        const sessionTimeout = body.int32();
        if (sessionTimeout < SESSION_TIMEOUT_RANGE_MS.min || sessionTimeout > SESSION_TIMEOUT_RANGE_MS.max) {
          if (apiVersion >= 1) body.int32(); // rebalance timeout
          const memberId = body.string() ?? '';
          context.log(
            `stock-broker proxy: JoinGroup of group ${groupId} refused: session timeout ${sessionTimeout} ms is outside [${SESSION_TIMEOUT_RANGE_MS.min}, ${SESSION_TIMEOUT_RANGE_MS.max}] (INVALID_SESSION_TIMEOUT)`,
          );
          return answer(joinGroupRefusal(correlationId, apiVersion, memberId));
        }
        if (apiVersion >= 1) body.int32(); // rebalance timeout
        const memberId = body.string() ?? '';
        if (apiVersion >= 5) body.string(); // group instance id
        context.groups.seen(groupId ?? '', body.string() ?? '', { connection: client, sessionTimeout });
        // A new member (no id yet) is a new member at the mock too: nothing of it can be waiting there.
        if (!memberId) return forward(frame, request);
        return forwardInTurn(frame, request, `${groupId}\u0000${memberId}`, sessionTimeout);
      }
      case API.LeaveGroup: {
        context.groups.left(new Reader(frame, request.bodyOffset).string() ?? '', client);
        return forward(frame, request);
      }
      case API.OffsetCommit: {
        // Offsets committed without joining make a group too (one a broker lists with no protocol type).
        context.groups.seen(new Reader(frame, request.bodyOffset).string() ?? '', '');
        return forward(frame, request);
      }
      case API.Metadata: {
        const body = new Reader(frame, request.bodyOffset);
        const topics = body.array(() => body.string() ?? '');
        // All of them (null), with none deleted, creates none.
        if (!topics && context.deletedTopics.size === 0) return forward(frame, request);
        // No topics named: none.
        if (topics?.length === 0) return forward(frame, request);
        const existing = (await mockMetadata(context.upstream, null)).topics;
        const exists = (topic: string) => existing.has(topic) && !context.deletedTopics.has(topic);
        const unknown = topics ? topics.filter((topic) => !exists(topic)) : [];
        if (topics && unknown.length === 0) return forward(frame, request);
        // Asked only about the topics that exist (all of them: each named but the deleted ones), the mock
        // creates none and shows no deleted one; the answer names the others unknown.
        const rewritten = new Writer()
          .raw(frame.subarray(0, request.bodyOffset))
          .array(
            topics ? topics.filter((topic) => !unknown.includes(topic)) : [...existing.keys()].filter(exists),
            (w, topic) => w.string(topic),
          );
        if (apiVersion >= 4) rewritten.int8(0).raw(body.rest().subarray(1)); // allow_auto_topic_creation, and what follows
        return forward(rewritten.build(), request, { unknownTopics: unknown });
      }
      case API.SyncGroup: {
        const body = new Reader(frame, request.bodyOffset);
        const groupId = body.string() ?? '';
        const generation = body.int32();
        const memberId = body.string() ?? '';
        if (apiVersion >= 3) body.string(); // group instance id
        const assigned = body.array(() => [body.string() ?? '', body.bytes()] as const) ?? [];
        // The leader's request carries every member's assignment.
        if (assigned.length > 0) context.assignments.set(groupId, { generation, members: new Map(assigned) });
        return forwardInTurn(frame, request, `${groupId}\u0000${memberId}`, undefined, {
          assignment: () => {
            const synced = context.assignments.get(groupId);
            return synced?.generation === generation ? synced.members.get(memberId) : undefined;
          },
        });
      }
      case API.CreateTopics:
        return answer(await createTopics(frame, request, context));
      case API.DeleteTopics:
        return answer(await deleteTopics(frame, request, context));
      case API.ListGroups: {
        const w = new Writer().int32(correlationId);
        if (apiVersion >= 1) w.int32(0); // throttle_time_ms
        w.int16(ERROR.NONE).array(context.groups.list(), (a, group) =>
          a.string(group.groupId).string(group.protocolType),
        );
        return answer(w.build());
      }
      case API.DeleteGroups: {
        const body = new Reader(frame, request.bodyOffset);
        const results = (body.array(() => body.string() ?? '') ?? []).map((groupId) => {
          const code = context.groups.delete(groupId);
          if (code === ERROR.NONE) context.assignments.delete(groupId);
          return { groupId, code };
        });
        const w = new Writer().int32(correlationId).int32(0); // throttle_time_ms
        return answer(w.array(results, (a, result) => a.string(result.groupId).int16(result.code)).build());
      }
      case API.Produce: {
        if (apiVersion >= PRODUCE_VERSIONS[0] && apiVersion <= PRODUCE_VERSIONS[1]) {
          const produce = readProduce(frame, request);
          if (produce.acks !== 0) producing.set(correlationId, produce.topics);
        }
        return forward(frame, request);
      }
      case API.Fetch: {
        const fetch =
          apiVersion >= FETCH_VERSIONS[0] && apiVersion <= FETCH_VERSIONS[1] ? readFetch(frame, request) : undefined;
        if (!fetch || fetch.maxWaitMs <= 0 || fetch.sessionEpoch !== -1) return forward(frame, request);
        const asked = Buffer.from(frame);
        asked.writeInt32BE(0, fetch.maxWaitOffset);
        const holding: HeldFetch = {
          frame: asked,
          apiVersion,
          topics: fetch.topics,
          asking: false,
          produced: false,
          expired: false,
          ask: () => {
            holding.asking = true;
            holding.produced = false;
            if (!mock.destroyed) mock.write(sized(holding.frame));
          },
        };
        held.set(correlationId, holding);
        holding.deadline = setTimeout(() => {
          holding.expired = true;
          if (!holding.asking) finishFetch(correlationId, holding.empty!);
        }, fetch.maxWaitMs);
        return holding.ask();
      }
      default:
        return forward(frame, request);
    }
  };

  // One request at a time per connection, so they reach the mock in the client's order.
  let queue = Promise.resolve();
  client.on(
    'data',
    frames((frame) => {
      queue = queue.then(() => onRequest(frame)).catch(close);
    }, close),
  );
  const finishFetch = (correlationId: number, frame: Buffer) => {
    const fetch = held.get(correlationId);
    if (fetch) {
      held.delete(correlationId);
      clearTimeout(fetch.deadline);
      context.fetches.forget(fetch);
    }
    answer(frame);
  };
  mock.on(
    'data',
    frames((frame) => {
      const correlationId = frame.readInt32BE(0);
      const probe = probes.get(correlationId);
      if (probe) {
        probes.delete(correlationId);
        return probe();
      }
      turns.get(correlationId)?.end('answered');
      turns.delete(correlationId);
      const fetch = held.get(correlationId);
      if (fetch) {
        fetch.asking = false;
        if (fetch.expired || !fetchFoundNothing(frame, fetch.apiVersion)) return finishFetch(correlationId, frame);
        fetch.empty = frame;
        if (fetch.produced) return fetch.ask();
        return context.fetches.wait(fetch);
      }
      const produced = producing.get(correlationId);
      if (produced) {
        producing.delete(correlationId);
        context.fetches.produced(produced);
      }
      const request = rewrites.get(correlationId);
      if (request) {
        rewrites.delete(correlationId);
        frame = rewriteResponse(frame, request, context.advertised(), context.mode);
      }
      answer(frame);
    }, close),
  );
  client.on('close', () => {
    release();
    context.groups.closed(client);
    closeMock();
  });
  mock.on('close', () => {
    release();
    for (const turn of turns.values()) turn.end('closed');
    turns.clear();
    for (const probe of probes.values()) probe();
    probes.clear();
    client.destroy();
  });
  // A reset on either side closes both; the client sees its connection drop, as with a broker.
  client.on('error', () => close());
  mock.on('error', () => close());
}

/** Cuts a TCP stream into Kafka frames (int32 size, then that many bytes), however the chunks fall. */
function frames(onFrame: (frame: Buffer) => void, onError: (error: unknown) => void): (chunk: Buffer) => void {
  let buffered: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    try {
      while (buffered.length >= 4) {
        const size = buffered.readInt32BE(0);
        if (size < 0 || size > MAX_FRAME_BYTES) throw new Error(`a frame of ${size} bytes`);
        if (buffered.length < 4 + size) break;
        const frame = buffered.subarray(4, 4 + size);
        buffered = buffered.subarray(4 + size);
        onFrame(frame);
      }
    } catch (error) {
      onError(error);
    }
  };
}

function sized(frame: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(frame.length);
  return Buffer.concat([size, frame]);
}

interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  bodyOffset: number;
}

function readRequestHeader(frame: Buffer): RequestHeader {
  const r = new Reader(frame);
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  r.string(); // client id
  return { apiKey, apiVersion, correlationId, bodyOffset: r.offset };
}

/** A Produce request's (v3 to v8) acks and the topics it writes to. */
function readProduce(frame: Buffer, request: RequestHeader): { acks: number; topics: string[] } {
  const r = new Reader(frame, request.bodyOffset);
  r.string(); // transactional_id
  const acks = r.int16();
  r.int32(); // timeout_ms
  const topics =
    r.array(() => {
      const topic = r.string() ?? '';
      r.array(() => {
        r.int32(); // partition
        r.skip(Math.max(0, r.int32())); // records
      });
      return topic;
    }) ?? [];
  return { acks, topics };
}

/** A Fetch request's (v4 to v11) wait, where the wait is written, its fetch session's epoch and its topics. */
function readFetch(
  frame: Buffer,
  request: RequestHeader,
): { maxWaitMs: number; maxWaitOffset: number; sessionEpoch: number; topics: string[] } {
  const { apiVersion } = request;
  const r = new Reader(frame, request.bodyOffset);
  r.int32(); // replica_id
  const maxWaitOffset = r.offset;
  const maxWaitMs = r.int32();
  r.int32(); // min_bytes
  r.int32(); // max_bytes
  r.int8(); // isolation_level
  let sessionEpoch = -1;
  if (apiVersion >= 7) {
    r.int32(); // session_id
    sessionEpoch = r.int32();
  }
  // Each partition: partition, current_leader_epoch (v9), fetch_offset, log_start_offset (v5), partition_max_bytes.
  const partitionBytes = 4 + (apiVersion >= 9 ? 4 : 0) + 8 + (apiVersion >= 5 ? 8 : 0) + 4;
  const topics =
    r.array(() => {
      const topic = r.string() ?? '';
      r.array(() => r.skip(partitionBytes));
      return topic;
    }) ?? [];
  return { maxWaitMs, maxWaitOffset, sessionEpoch, topics };
}

/** Whether a Fetch answer (v4 to v11) has no records and no error, the answer a broker would hold. */
function fetchFoundNothing(frame: Buffer, apiVersion: number): boolean {
  const r = new Reader(frame, 4);
  r.int32(); // throttle_time_ms
  if (apiVersion >= 7) {
    if (r.int16() !== ERROR.NONE) return false;
    r.int32(); // session_id
  }
  let nothing = true;
  r.array(() => {
    r.string(); // topic
    r.array(() => {
      r.int32(); // partition_index
      if (r.int16() !== ERROR.NONE) nothing = false;
      r.skip(8 + 8 + (apiVersion >= 5 ? 8 : 0)); // high_watermark, last_stable_offset, log_start_offset (v5)
      r.array(() => r.skip(16)); // aborted_transactions
      if (apiVersion >= 11) r.int32(); // preferred_read_replica
      const records = r.int32();
      if (records > 0) {
        nothing = false;
        r.skip(records);
      }
    });
  });
  return nothing;
}

/** An answer as the client gets it: naming `broker` as the broker, offering the versions `mode` reads. */
function rewriteResponse(frame: Buffer, request: Rewrite, broker: Address, mode: Mode): Buffer {
  const { apiKey, apiVersion } = request;
  const r = new Reader(frame, 4);
  const w = new Writer().int32(frame.readInt32BE(0));
  switch (apiKey) {
    case API.ApiVersions: {
      const errorCode = r.int16();
      if (errorCode !== ERROR.NONE) return frame;
      const offered = r.array(() => ({ apiKey: r.int16(), min: r.int16(), max: r.int16() })) ?? [];
      const apis = offered.flatMap((api) => {
        const range = mode.versions[api.apiKey];
        if (mode.answered.includes(api.apiKey)) return [];
        if (!range) return [api];
        const min = Math.max(api.min, range[0]);
        const max = Math.min(api.max, range[1]);
        return min <= max ? [{ apiKey: api.apiKey, min, max }] : [];
      });
      for (const apiKey of mode.answered) apis.push({ apiKey, min: VERSIONS[apiKey][0], max: VERSIONS[apiKey][1] });
      w.int16(errorCode).array(apis, (a, api) => a.int16(api.apiKey).int16(api.min).int16(api.max));
      return w.raw(r.rest()).build(); // throttle_time_ms from v1
    }
    case API.Metadata: {
      if (apiVersion >= 3) w.int32(r.int32()); // throttle_time_ms
      const brokers = r.array(() => ({ nodeId: r.int32(), host: r.string(), port: r.int32(), rack: r.string() })) ?? [];
      // Whatever address the broker gives (a real one gives its host name), clients are to reach it through the listener.
      if (brokers.length > 1)
        throw new Error(`the upstream names ${brokers.length} brokers; this proxy fronts a cluster of one`);
      w.array(brokers, (a, b) => a.int32(b.nodeId).string(broker.host).int32(broker.port).string(b.rack));
      if (apiVersion >= 2) w.string(r.string()); // cluster_id
      w.int32(r.int32()); // controller_id
      // The topics come last (up to v7): append the unknown ones.
      const unknown = request.unknownTopics ?? [];
      w.int32(r.int32() + unknown.length).raw(r.rest());
      for (const topic of unknown) w.int16(ERROR.UNKNOWN_TOPIC_OR_PARTITION).string(topic).int8(0).int32(0); // not internal, no partitions
      return w.build();
    }
    case API.FindCoordinator: {
      if (apiVersion >= 1) w.int32(r.int32()); // throttle_time_ms
      const errorCode = r.int16();
      w.int16(errorCode);
      if (apiVersion >= 1) w.string(r.string()); // error_message
      const nodeId = r.int32();
      r.string();
      r.int32();
      if (errorCode !== ERROR.NONE) return frame;
      return w.int32(nodeId).string(broker.host).int32(broker.port).raw(r.rest()).build();
    }
    case API.SyncGroup: {
      if (apiVersion >= 1) w.int32(r.int32()); // throttle_time_ms
      if (r.int16() !== ERROR.INVALID_REQUEST) return frame;
      const assignment = request.assignment?.();
      if (assignment === undefined) return frame;
      return w.int16(ERROR.NONE).bytes(assignment).build();
    }
  }
  return frame;
}

function apiVersionsUnsupported(correlationId: number): Buffer {
  const [min, max] = VERSIONS[API.ApiVersions];
  return new Writer()
    .int32(correlationId)
    .int16(ERROR.UNSUPPORTED_VERSION)
    .array([API.ApiVersions], (a, key) => a.int16(key).int16(min).int16(max))
    .build();
}

/** A JoinGroup answer (v0 to v5) with an error and no member. */
function joinGroupRefusal(correlationId: number, apiVersion: number, memberId: string): Buffer {
  const w = new Writer().int32(correlationId);
  if (apiVersion >= 2) w.int32(0); // throttle_time_ms
  return w.int16(ERROR.INVALID_SESSION_TIMEOUT).int32(-1).string('').string('').string(memberId).int32(0).build();
}

interface TopicRequest {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: number;
}

/** CreateTopics (v0 to v4), done on the mock with Metadata requests of the proxy's own. */
async function createTopics(frame: Buffer, request: RequestHeader, context: Context): Promise<Buffer> {
  const { apiVersion, correlationId } = request;
  const r = new Reader(frame, request.bodyOffset);
  const topics: TopicRequest[] =
    r.array(() => {
      const topic = { name: r.string() ?? '', numPartitions: r.int32(), replicationFactor: r.int16() };
      const assignments = r.array(() => [r.int32(), r.array(() => r.int32())])?.length ?? 0;
      r.array(() => [r.string(), r.string()]); // configs: the mock's topics have none
      return { ...topic, assignments };
    }) ?? [];
  r.int32(); // timeout_ms
  const validateOnly = apiVersion >= 1 && r.int8() !== 0;

  const known = await mockMetadata(context.upstream, null);
  const results = new Map<string, { code: number; message: string | null }>();
  const toCreate: string[] = [];
  for (const topic of topics) {
    const refusal = refuseTopic(topic, known.brokers);
    if (refusal) results.set(topic.name, refusal);
    else if (context.deletedTopics.has(topic.name)) {
      // Its records are still on the mock: a broker answers so while a deletion is under way, and here it never ends.
      results.set(topic.name, {
        code: ERROR.TOPIC_ALREADY_EXISTS,
        message: `Topic '${topic.name}' is marked for deletion.`,
      });
    } else if (known.topics.has(topic.name))
      results.set(topic.name, { code: ERROR.TOPIC_ALREADY_EXISTS, message: `Topic '${topic.name}' already exists.` });
    else {
      results.set(topic.name, { code: ERROR.NONE, message: null });
      if (!validateOnly) toCreate.push(topic.name);
    }
  }
  if (toCreate.length > 0) {
    const created = await mockMetadata(context.upstream, toCreate);
    for (const name of toCreate) {
      const code = created.topics.get(name);
      if (code !== ERROR.NONE && code !== ERROR.LEADER_NOT_AVAILABLE)
        results.set(name, { code: code ?? ERROR.INVALID_REQUEST, message: 'the mock broker did not create it' });
    }
  }

  const w = new Writer().int32(correlationId);
  if (apiVersion >= 2) w.int32(0); // throttle_time_ms
  w.array([...results], (a, [name, { code, message }]) => {
    a.string(name).int16(code);
    if (apiVersion >= 1) a.string(message);
  });
  return w.build();
}

/** DeleteTopics (v0 to v3): the topics leave every answer of the proxy's; the mock keeps them. */
async function deleteTopics(frame: Buffer, request: RequestHeader, context: Context): Promise<Buffer> {
  const { apiVersion, correlationId } = request;
  const r = new Reader(frame, request.bodyOffset);
  const topics = r.array(() => r.string() ?? '') ?? [];
  const existing = (await mockMetadata(context.upstream, null)).topics;
  const results = topics.map((topic) => {
    if (!existing.has(topic) || context.deletedTopics.has(topic))
      return { topic, code: ERROR.UNKNOWN_TOPIC_OR_PARTITION };
    context.deletedTopics.add(topic);
    return { topic, code: ERROR.NONE };
  });
  const w = new Writer().int32(correlationId);
  if (apiVersion >= 1) w.int32(0); // throttle_time_ms
  return w.array(results, (a, result) => a.string(result.topic).int16(result.code)).build();
}

function refuseTopic(topic: TopicRequest, brokers: number): { code: number; message: string } | undefined {
  if (!TOPIC_NAME.test(topic.name) || topic.name === '.' || topic.name === '..')
    return { code: ERROR.INVALID_TOPIC_EXCEPTION, message: `'${topic.name}' is not a valid topic name` };
  if (topic.assignments > 0)
    return { code: ERROR.INVALID_REQUEST, message: 'replica assignments are not supported by the test broker' };
  if (topic.numPartitions !== -1 && topic.numPartitions < 1)
    return { code: ERROR.INVALID_PARTITIONS, message: 'Number of partitions must be larger than 0.' };
  if (topic.replicationFactor !== -1 && (topic.replicationFactor < 1 || topic.replicationFactor > brokers)) {
    return {
      code: ERROR.INVALID_REPLICATION_FACTOR,
      message: `Replication factor: ${topic.replicationFactor} larger than available brokers: ${brokers}.`,
    };
  }
  return undefined;
}

/**
 * Metadata v1 from the mock on a connection of its own: its broker count and each topic's error code.
 * Named topics that do not exist are created (the mock auto-creates on every Metadata request
 * before v4); null names every existing topic and creates none.
 */
function mockMetadata(
  upstream: Address,
  topics: string[] | null,
): Promise<{ brokers: number; topics: Map<string, number> }> {
  const request = new Writer().int16(API.Metadata).int16(1).int32(1).string('stock-broker-proxy');
  if (topics) request.array(topics, (w, topic) => w.string(topic));
  else request.int32(-1);
  return new Promise((resolve, reject) => {
    const socket = createConnection(upstream);
    const fail = (error: unknown) => {
      socket.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    socket.setTimeout(MOCK_TIMEOUT_MS, () =>
      fail(new Error(`the mock broker did not answer Metadata within ${MOCK_TIMEOUT_MS} ms`)),
    );
    socket.on('error', fail);
    socket.on(
      'data',
      frames((frame) => {
        socket.destroy();
        const r = new Reader(frame, 4);
        const brokers = r.array(() => [r.int32(), r.string(), r.int32(), r.string()])?.length ?? 0;
        r.int32(); // controller_id
        const codes = new Map<string, number>();
        r.array(() => {
          const code = r.int16();
          const name = r.string() ?? '';
          r.int8(); // is_internal
          r.array(() => [r.int16(), r.int32(), r.int32(), r.array(() => r.int32()), r.array(() => r.int32())]);
          codes.set(name, code);
        });
        resolve({ brokers, topics: codes });
      }, fail),
    );
    socket.write(sized(request.build()));
  });
}

/** Reads Kafka's non-flexible encodings: big-endian integers, int16-length strings, int32-length arrays. */
class Reader {
  constructor(
    private readonly buffer: Buffer,
    public offset = 0,
  ) {}

  int8(): number {
    return this.buffer.readInt8(this.advance(1));
  }

  int16(): number {
    return this.buffer.readInt16BE(this.advance(2));
  }

  int32(): number {
    return this.buffer.readInt32BE(this.advance(4));
  }

  string(): string | null {
    const length = this.int16();
    if (length < 0) return null;
    const start = this.advance(length);
    return this.buffer.toString('utf8', start, start + length);
  }

  bytes(): Buffer | null {
    const length = this.int32();
    if (length < 0) return null;
    const start = this.advance(length);
    return Buffer.from(this.buffer.subarray(start, start + length));
  }

  array<T>(item: () => T): T[] | null {
    const length = this.int32();
    if (length < 0) return null;
    const items: T[] = [];
    for (let i = 0; i < length; i++) items.push(item());
    return items;
  }

  rest(): Buffer {
    return this.buffer.subarray(this.offset);
  }

  skip(bytes: number): void {
    this.advance(bytes);
  }

  private advance(bytes: number): number {
    const at = this.offset;
    if (at + bytes > this.buffer.length) throw new Error('a frame ends early');
    this.offset += bytes;
    return at;
  }
}

class Writer {
  private readonly parts: Buffer[] = [];

  int8(value: number): this {
    const b = Buffer.alloc(1);
    b.writeInt8(value);
    return this.raw(b);
  }

  int16(value: number): this {
    const b = Buffer.alloc(2);
    b.writeInt16BE(value);
    return this.raw(b);
  }

  int32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(value);
    return this.raw(b);
  }

  string(value: string | null): this {
    if (value === null) return this.int16(-1);
    const bytes = Buffer.from(value, 'utf8');
    return this.int16(bytes.length).raw(bytes);
  }

  bytes(value: Buffer | null): this {
    if (value === null) return this.int32(-1);
    return this.int32(value.length).raw(value);
  }

  array<T>(items: readonly T[], write: (w: this, item: T) => unknown): this {
    this.int32(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  raw(bytes: Buffer): this {
    this.parts.push(bytes);
    return this;
  }

  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}
