// The stock-broker proxy (ADR 0012) in front of a mock broker of its own: the
// rules of a stock Kafka broker it holds clients to, seen through kafkajs as
// the platform uses it. Skipped where the mock cannot be built.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { Kafka, logLevel, type Admin, type Consumer, type KafkaConfig } from 'kafkajs';
import { FaultProxy } from '../chaos/fault-proxy';
import { buildMockBroker, startMockBroker, type MockBroker } from '../jest/kafka-broker';
import { int32, joinedV0, joinGroupV0, kafkaString, request } from './kafka-frames';
import { startStockBrokerProxy, type StockBrokerProxy } from './stock-broker-proxy';

jest.setTimeout(60_000);

const unbuildable = buildMockBroker();
if (unbuildable) process.stderr.write(`stock-broker-proxy.spec: skipped: no mock broker (${unbuildable})\n`);
const withMock = unbuildable ? it.skip : it;

let mock: MockBroker | undefined;
let proxy: StockBrokerProxy;
let kafka: Kafka;
let admin: Admin;
const refusals: string[] = [];
const consumers: Consumer[] = [];

beforeAll(async () => {
  if (unbuildable) return;
  mock = await startMockBroker((line) => process.stderr.write(`stock-broker-proxy.spec: ${line}\n`));
  if (!mock) throw new Error('the mock broker did not start');
  proxy = await startStockBrokerProxy({ upstream: mock.address, log: (line) => refusals.push(line) });
  kafka = new Kafka({
    brokers: [proxy.address],
    clientId: 'stock-broker-proxy-spec',
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
  });
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  for (const consumer of consumers) await consumer.disconnect();
  await admin?.disconnect();
  await proxy?.close();
  await mock?.stop();
});

const unique = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;

/** A consumer of a new group on the topic; resolves once kafkajs' run() has (it crashes inside when refused). */
async function joinGroup(
  sessionTimeout: number,
  topic: string,
): Promise<{ crash?: { error: Error; restart: boolean }; joined: boolean; brokers: Set<string> }> {
  const consumer = kafka.consumer({
    groupId: unique('group'),
    sessionTimeout,
    rebalanceTimeout: sessionTimeout,
    heartbeatInterval: 1_000,
  });
  consumers.push(consumer);
  const seen: { crash?: { error: Error; restart: boolean }; joined: boolean; brokers: Set<string> } = {
    joined: false,
    brokers: new Set(),
  };
  consumer.on(
    consumer.events.CRASH,
    ({ payload }) => (seen.crash = { error: payload.error, restart: payload.restart }),
  );
  consumer.on(consumer.events.GROUP_JOIN, () => (seen.joined = true));
  consumer.on(consumer.events.REQUEST, ({ payload }) => seen.brokers.add(payload.broker));
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async () => undefined });
  return seen;
}

describe('the stock-broker proxy in front of the mock broker', () => {
  withMock('refuses a session timeout outside 6 s to 5 min with INVALID_SESSION_TIMEOUT, and takes 6 s', async () => {
    const topic = unique('sessions');
    await admin.createTopics({ topics: [{ topic }] });

    for (const sessionTimeout of [3_000, 300_001]) {
      const refused = await joinGroup(sessionTimeout, topic);
      expect(refused.joined).toBe(false);
      expect(refused.crash).toMatchObject({ error: { type: 'INVALID_SESSION_TIMEOUT' }, restart: false });
    }
    expect(refusals).toEqual([
      expect.stringContaining('session timeout 3000 ms is outside [6000, 300000]'),
      expect.stringContaining('session timeout 300001 ms'),
    ]);

    const accepted = await joinGroup(6_000, topic);
    expect(accepted.crash).toBeUndefined();
    expect(accepted.joined).toBe(true);
    // Every request went to the proxy: the coordinator and the brokers it names are the proxy's address.
    expect([...accepted.brokers]).toEqual([proxy.address]);
  });

  withMock('never creates a topic on a metadata request, even from a client that allows it', async () => {
    const topic = unique('never-created');
    await expect(admin.fetchTopicMetadata({ topics: [topic] })).rejects.toMatchObject({
      type: 'UNKNOWN_TOPIC_OR_PARTITION',
    });
    const producer = kafka.producer({ allowAutoTopicCreation: true, retry: { retries: 1 } });
    await producer.connect();
    try {
      await expect(producer.send({ topic, messages: [{ value: 'x' }] })).rejects.toThrow(
        /does not host this topic-partition/,
      );
    } finally {
      await producer.disconnect();
    }
    // A request naming it beside an existing topic answers for both, and still creates nothing.
    const existing = unique('existing');
    await admin.createTopics({ topics: [{ topic: existing }] });
    await expect(admin.fetchTopicMetadata({ topics: [existing, topic] })).rejects.toMatchObject({
      type: 'UNKNOWN_TOPIC_OR_PARTITION',
    });
    expect(await admin.listTopics()).toContain(existing);
    expect(await admin.listTopics()).not.toContain(topic);
  });

  withMock(
    'creates topics with CreateTopics: TOPIC_ALREADY_EXISTS for one that exists, a refusal for more replicas than brokers',
    async () => {
      const topic = unique('created');
      expect(await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })).toBe(true);
      const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
      expect(metadata.partitions.length).toBeGreaterThan(0);
      expect(metadata.partitions.every((p) => p.leader >= 0)).toBe(true);

      // kafkajs reports "all of them existed already" (TOPIC_ALREADY_EXISTS) as false.
      expect(await admin.createTopics({ topics: [{ topic }] })).toBe(false);
      await expect(
        admin.createTopics({ topics: [{ topic: unique('replicated'), replicationFactor: 3 }] }),
      ).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_REPLICATION_FACTOR' })],
      });

      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      try {
        const [sent] = await producer.send({ topic, messages: [{ key: 'k', value: 'v' }] });
        expect(sent.errorCode).toBe(0);
      } finally {
        await producer.disconnect();
      }
    },
  );

  withMock('names itself as the broker, so clients stay behind it after bootstrap', async () => {
    const { brokers } = await admin.describeCluster();
    expect(brokers.map((b) => `${b.host}:${b.port}`)).toEqual([proxy.address]);
  });

  withMock('names itself as the group coordinator too', async () => {
    // kafkajs finds the coordinator's address among the brokers Metadata names; other clients use FindCoordinator's.
    const [answer] = await exchange([request(10, 0, 7, kafkaString(unique('group')))]);
    const host = answer.toString('utf8', 12, 12 + answer.readInt16BE(10));
    const port = answer.readInt32BE(12 + host.length);
    expect({ error: answer.readInt16BE(4), address: `${host}:${port}` }).toEqual({ error: 0, address: proxy.address });
  });

  withMock(
    "gives a member that syncs after its group is stable that generation's assignment, as a broker does (the mock refuses it)",
    async () => {
      // A group of one: its leader's SyncGroup assigns it and makes the group stable; the second,
      // with no assignments, is a follower's that comes late. JoinGroup v0 waits out the first rebalance.
      const group = unique('late-sync');
      const [answer] = await exchange([joinGroupV0(group, '', 1)]);
      const { error, generation, memberId } = joinedV0(answer);
      expect(error).toBe(0);
      const sync = (assignments: Buffer[]) =>
        request(
          14,
          0,
          2,
          Buffer.concat([
            kafkaString(group),
            int32(generation),
            kafkaString(memberId),
            int32(assignments.length),
            ...assignments,
          ]),
        );
      const assignment = Buffer.from('partitions of the member');
      const assigned = Buffer.concat([kafkaString(memberId), int32(assignment.length), assignment]);

      for (const answer of [...(await exchange([sync([assigned])])), ...(await exchange([sync([])]))]) {
        expect({
          error: answer.readInt16BE(4),
          assignment: answer.subarray(10, 10 + answer.readInt32BE(6)).toString(),
        }).toEqual({ error: 0, assignment: assignment.toString() });
      }
    },
  );

  withMock(
    'answers a member that joins again while its earlier join waits for the rest of the group, as a broker does (the mock aborts)',
    async () => {
      const group = unique('rejoin');
      const join = (memberId: string, correlationId: number) => joinGroupV0(group, memberId, correlationId);
      const joined = (answer: Buffer) => {
        const { error, memberId } = joinedV0(answer);
        return { error, memberId };
      };
      // Two members join at once; the first rebalance answers both.
      const [[a], [b]] = await Promise.all([exchange([join('', 1)]), exchange([join('', 2)])]);
      expect([joined(a).error, joined(b).error]).toEqual([0, 0]);
      const member = joined(a).memberId;
      // The first member joins again, twice, on two connections: whichever reaches the mock first waits there
      // for the other member (which never joins again, until its session ends); the second is a join of a
      // member whose join is waiting.
      const again = await Promise.all([exchange([join(member, 3)]), exchange([join(member, 4)])]);
      expect(again.map(([answer]) => joined(answer))).toEqual([
        { error: 0, memberId: member },
        { error: 0, memberId: member },
      ]);
      // And the broker is still there.
      expect(await admin.listTopics()).toEqual(expect.any(Array));
    },
  );

  withMock(
    "answers a member's join sent on an older connection right after its waiting join's connection closed (the mock aborted)",
    async () => {
      const group = unique('closed-rejoin');
      const join = (memberId: string, correlationId: number) => joinGroupV0(group, memberId, correlationId);
      // A connection opened first, so that the mock polls it before the one opened later.
      const older = await RawConnection.open(proxy.address);
      const newer = await RawConnection.open(proxy.address);
      try {
        await older.ask(request(18, 0, 100));
        const [[a], [b]] = await Promise.all([exchange([join('', 1)]), exchange([join('', 2)])]);
        const member = joinedV0(a).memberId;
        expect([joinedV0(a).error, joinedV0(b).error]).toEqual([0, 0]);
        // The mock is stopped whenever a request must wait in its socket for the next poll: what it has read
        // (nothing left unread) it has handled, each request in the poll that read it.
        const port = Number(mock!.address.split(':')[1]);
        const stopped = async (step: () => Promise<void>) => {
          process.kill(mock!.pid, 'SIGSTOP');
          try {
            await step();
          } finally {
            process.kill(mock!.pid, 'SIGCONT');
          }
        };
        const established = () => mockSockets(port).filter((s) => s.state === TCP_ESTABLISHED).length;
        const unread = () => mockSockets(port).some((s) => s.state === TCP_ESTABLISHED && s.received > 0);
        // The member joins again on the newer connection, and the mock holds the answer for the other member.
        await stopped(async () => {
          void newer.ask(join(member, 3)).catch(() => undefined);
          await eventually(unread);
        });
        await eventually(() => !unread());
        // The newer connection closes and the member joins on the older one: both reach the mock in one poll,
        // the join first (the mock polls its connections in the order they were opened), while the mock still
        // holds the member's earlier answer.
        let answer!: Promise<Buffer>;
        await stopped(async () => {
          const open = established();
          newer.close();
          // The proxy has closed its connection to the mock (a FIN or a reset reached the mock's socket).
          await eventually(() => established() < open);
          answer = older.ask(join(member, 5));
          await eventually(unread);
        });
        // Answered once the other member's session has ended, as a broker answers it.
        expect(joinedV0(await answer)).toEqual(expect.objectContaining({ error: 0, memberId: member }));
        expect(await admin.listTopics()).toEqual(expect.any(Array));
      } finally {
        older.close();
        newer.close();
      }
    },
  );

  withMock(
    'answers a waiting fetch as soon as records are produced to its topic, as a broker does (the mock waits out the wait)',
    async () => {
      const topic = unique('long-poll');
      await admin.createTopics({ topics: [{ topic }] });
      // A wait longer than the test: the record must come in the fetch that was waiting when it was produced.
      const consumer = kafka.consumer({
        groupId: unique('group'),
        sessionTimeout: 6_000,
        heartbeatInterval: 1_000,
        maxWaitTimeInMs: 120_000,
      });
      let fetchesStarted = 0;
      consumer.on(consumer.events.FETCH_START, () => (fetchesStarted += 1));
      let received: (value: string) => void;
      const message = new Promise<string>((resolve) => (received = resolve));
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message: m }) => received(m.value!.toString()) });
      await eventually(() => fetchesStarted > 0);
      const startedBeforeProducing = fetchesStarted;

      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await producer.connect();
      try {
        await producer.send({ topic, acks: -1, messages: [{ value: 'now' }] });
        expect(await message).toBe('now');
        expect(fetchesStarted).toBe(startedBeforeProducing);
        // A consumer stops once its fetch is answered: another record ends the wait of the one it has asked since.
        const stopping = consumer.disconnect();
        await producer.send({ topic, acks: -1, messages: [{ value: 'wake' }] });
        await stopping;
      } finally {
        await producer.disconnect();
      }
    },
  );

  withMock('holds a fetch that finds nothing for its whole wait, so an idle consumer does not spin', async () => {
    const topic = unique('idle');
    await admin.createTopics({ topics: [{ topic }] });
    const consumer = kafka.consumer({
      groupId: unique('group'),
      sessionTimeout: 6_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 400,
    });
    consumers.push(consumer);
    const durations: number[] = [];
    consumer.on(consumer.events.FETCH, ({ payload }) => durations.push(payload.duration));
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    await eventually(() => durations.length >= 2);
    // Each empty fetch took at least its wait (a lower bound only: a busy machine makes it longer).
    expect(Math.min(...durations.slice(0, 2))).toBeGreaterThanOrEqual(390);
  });

  withMock(
    'deletes topics and empty groups, and lists the groups, as a broker does (the mock has none of the three)',
    async () => {
      const topic = unique('deleted');
      await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
      const groupId = unique('group');
      const consumer = kafka.consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 1_000 });
      let joined = false;
      consumer.on(consumer.events.GROUP_JOIN, () => (joined = true));
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await eventually(() => joined);
      expect((await admin.listGroups()).groups).toContainEqual({ groupId, protocolType: 'consumer' });

      // A group with a member is not deleted; once its member has left, it is.
      await expect(admin.deleteGroups([groupId])).rejects.toMatchObject({
        groups: [expect.objectContaining({ groupId, error: expect.objectContaining({ type: 'NON_EMPTY_GROUP' }) })],
      });
      await consumer.disconnect();
      expect(await admin.deleteGroups([groupId])).toEqual([expect.objectContaining({ groupId, errorCode: 0 })]);
      expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain(groupId);
      await expect(admin.deleteGroups([groupId])).rejects.toMatchObject({
        groups: [expect.objectContaining({ error: expect.objectContaining({ type: 'GROUP_ID_NOT_FOUND' }) })],
      });

      // A deleted topic is gone from every answer: the list, its metadata, all topics' metadata.
      await admin.deleteTopics({ topics: [topic] });
      expect(await admin.listTopics()).not.toContain(topic);
      await expect(admin.fetchTopicMetadata({ topics: [topic] })).rejects.toMatchObject({
        type: 'UNKNOWN_TOPIC_OR_PARTITION',
      });
      expect((await admin.fetchTopicMetadata()).topics.map((t) => t.name)).not.toContain(topic);
      await expect(admin.deleteTopics({ topics: [topic] })).rejects.toThrow(/does not host this topic-partition/);
      // The mock keeps its records, so the name stays taken (TOPIC_ALREADY_EXISTS, as while a broker's deletion is under way).
      expect(await admin.createTopics({ topics: [{ topic }] })).toBe(false);
      expect(await admin.listTopics()).not.toContain(topic);
    },
  );

  withMock(
    'counts a member that went away without leaving until its session has expired, as a broker does',
    async () => {
      const groupId = unique('group');
      // A member that joins on a connection which then closes without a LeaveGroup, as a killed process's does.
      const [answer] = await exchange([
        request(
          11,
          0,
          1,
          Buffer.concat([
            kafkaString(groupId),
            int32(6_000),
            kafkaString(''),
            kafkaString('consumer'),
            int32(1),
            kafkaString('range'),
            int32(0),
          ]),
        ),
      ]);
      const gone = Date.now();
      expect(answer.readInt16BE(4)).toBe(0);
      await expect(admin.deleteGroups([groupId])).rejects.toMatchObject({
        groups: [expect.objectContaining({ error: expect.objectContaining({ type: 'NON_EMPTY_GROUP' }) })],
      });
      await eventuallyAsync(() =>
        admin.deleteGroups([groupId]).then(
          () => true,
          () => false,
        ),
      );
      expect(Date.now() - gone).toBeGreaterThanOrEqual(6_000);
    },
  );

  withMock('can be taken away and brought back on the same address, its topics kept', async () => {
    const topic = unique('outage');
    await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
    await proxy.suspend();
    const [host, port] = proxy.address.split(':');
    const refused = await new Promise<string>((resolve) =>
      createConnection({ host, port: Number(port) }).on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? '')),
    );
    expect(refused).toBe('ECONNREFUSED');
    await proxy.resume();
    expect(await admin.listTopics()).toContain(topic);
  });

  withMock("keeps every message, as a stock broker's retention does over a run, not the mock's last 5 MB", async () => {
    const topic = unique('retained');
    await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
    await mock!.retained(topic);
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      // 8 MB in 80 sends to one partition (one key): the mock as built would have dropped the first 30 or so.
      const value = Buffer.alloc(100_000, 'x');
      for (let i = 0; i < 80; i++) await producer.send({ topic, messages: [{ key: 'one', value }] });
    } finally {
      await producer.disconnect();
    }
    const partitions = await admin.fetchTopicOffsets(topic);
    expect(partitions.filter((p) => p.high !== '0')).toEqual([expect.objectContaining({ low: '0', high: '80' })]);
  });

  withMock('reads frames whole however TCP cuts or joins them', async () => {
    // Two ApiVersions v0 requests in one stream, sent a byte at a time.
    const answers = await exchange([request(18, 0, 1), request(18, 0, 2)], { byteByByte: true });
    expect(answers.map((a) => a.readInt32BE(0))).toEqual([1, 2]);
    // CreateTopics (19), DeleteTopics (20), ListGroups (16) and DeleteGroups (42) are advertised: the proxy rewrote the mock's answer.
    for (const answer of answers) {
      const apiKeys = Array.from({ length: answer.readInt32BE(6) }, (_, i) => answer.readInt16BE(10 + i * 6));
      expect(apiKeys).toEqual(expect.arrayContaining([19, 20, 16, 42]));
    }
  });
});

describe('listeners and a proxy without the rules', () => {
  /** A client that gives up soon, so that a link taken down shows as a failure within the test. */
  const impatient = (brokers: string[]): KafkaConfig => ({
    brokers,
    clientId: 'stock-broker-proxy-spec',
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 300 },
  });

  withMock(
    'keeps a client bootstrapped at a fault proxy before a listener behind it, and its faults with it',
    async () => {
      // The fault run's order: the listener first, the fault proxy in front of it, then the listener told its address.
      const listener = await proxy.addListener();
      const link = await FaultProxy.start({ name: 'kafka:spec', upstreams: [listener.address] });
      listener.advertise(link.address);
      const client = new Kafka(impatient([link.address]));
      const linkAdmin = client.admin();
      const producer = client.producer({ allowAutoTopicCreation: false });
      try {
        await Promise.all([linkAdmin.connect(), producer.connect()]);
        const topic = unique('behind-a-link');
        await linkAdmin.createTopics({ topics: [{ topic }], waitForLeaders: true });
        expect((await linkAdmin.describeCluster()).brokers.map((b) => `${b.host}:${b.port}`)).toEqual([link.address]);
        await producer.send({ topic, messages: [{ key: 'one partition', value: 'before' }] });

        // Down, the link cuts the client off, though the proxy and the mock run on; healed, it is back.
        await link.set({ kind: 'down' });
        await expect(producer.send({ topic, messages: [{ key: 'one partition', value: 'cut off' }] })).rejects.toThrow(
          `connect ECONNREFUSED ${link.address}`,
        );
        await link.set(null);
        await producer.send({ topic, messages: [{ key: 'one partition', value: 'after' }] });
        const consumed = await consume(client, topic, 2);
        expect(consumed.values).toEqual(['before', 'after']);
        // Every request of the consumer, its group's included, went through the link.
        expect([...consumed.brokers]).toEqual([link.address]);
      } finally {
        await Promise.all([linkAdmin.disconnect(), producer.disconnect()]);
        await link.close();
        await listener.close();
      }
    },
  );

  withMock('takes every listener away with the proxy, and brings each back on its address', async () => {
    const listener = await proxy.addListener();
    try {
      await proxy.suspend();
      expect(await connectError(listener.address)).toBe('ECONNREFUSED');
      await proxy.resume();
      const [answer] = await exchange([request(18, 0, 1)], { address: listener.address });
      expect(answer.readInt32BE(0)).toBe(1);
    } finally {
      await listener.close();
    }
    expect(await connectError(listener.address)).toBe('ECONNREFUSED');
  });

  withMock(
    'passes everything through without the rules, naming its own listener as the broker: in front of the proxy',
    async () => {
      // client → outer (no rules) → the proxy (the rules) → the mock
      const outer = await startStockBrokerProxy({ upstream: proxy.address, rules: false });
      const listener = await outer.addListener();
      const client = new Kafka(impatient([listener.address]));
      const outerAdmin = client.admin();
      const producer = client.producer({ allowAutoTopicCreation: false });
      try {
        await Promise.all([outerAdmin.connect(), producer.connect()]);
        const topic = unique('chained');
        expect(await outerAdmin.createTopics({ topics: [{ topic }], waitForLeaders: true })).toBe(true);
        const { brokers } = await outerAdmin.describeCluster();
        expect(brokers.map((b) => `${b.host}:${b.port}`)).toEqual([listener.address]);
        await producer.send({ topic, messages: [{ value: 'through both' }] });
        const consumed = await consume(client, topic, 1);
        expect(consumed.values).toEqual(['through both']);
        expect([...consumed.brokers]).toEqual([listener.address]);
      } finally {
        await Promise.all([outerAdmin.disconnect(), producer.disconnect()]);
        await outer.close();
      }
    },
  );

  withMock('answers nothing itself without the rules: in front of the mock, CreateTopics is not offered', async () => {
    const bare = await startStockBrokerProxy({ upstream: mock!.address, rules: false });
    try {
      const [answer] = await exchange([request(18, 0, 1)], { address: bare.address });
      const apiKeys = Array.from({ length: answer.readInt32BE(6) }, (_, i) => answer.readInt16BE(10 + i * 6));
      expect(apiKeys).toContain(3); // Metadata
      expect(apiKeys).not.toContain(19);
    } finally {
      await bare.close();
    }
  });
});

/** Consumes the topic from its beginning in a new group until `count` records came; the brokers it asked, too. */
async function consume(
  client: Kafka,
  topic: string,
  count: number,
): Promise<{ values: string[]; brokers: Set<string> }> {
  const consumer = client.consumer({ groupId: unique('group'), sessionTimeout: 6_000, heartbeatInterval: 1_000 });
  const brokers = new Set<string>();
  consumer.on(consumer.events.REQUEST, ({ payload }) => brokers.add(payload.broker));
  const values: string[] = [];
  let done: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
        if (values.length === count) done();
      },
    });
    await all;
  } finally {
    await consumer.disconnect();
  }
  return { values, brokers };
}

/** The error code a connect to `address` fails with. */
function connectError(address: string): Promise<string | undefined> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = createConnection({ host, port: Number(port) });
    socket.on('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code));
  });
}

/** Resolves once `done()` holds, looking every 20 ms; the test's own timeout bounds it. */
async function eventually(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function eventuallyAsync(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 200));
}

const TCP_ESTABLISHED = 1;

/** The mock's side of its TCP connections (local port `port`), as the kernel lists them: state and bytes unread. */
function mockSockets(port: number): Array<{ state: number; received: number }> {
  const lines = readFileSync('/proc/net/tcp', 'utf8').trim().split('\n').slice(1);
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local]) => parseInt(local.split(':')[1], 16) === port)
    .map(([, , , state, queues]) => ({ state: parseInt(state, 16), received: parseInt(queues.split(':')[1], 16) }))
    .filter((socket) => socket.state !== 10); // not the listener
}

/** One connection kept open across requests, each answer matched by its correlation id. */
class RawConnection {
  private received = Buffer.alloc(0);
  private readonly waiting = new Map<number, { resolve(answer: Buffer): void; reject(error: Error): void }>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      while (this.received.length >= 4 && this.received.length >= 4 + this.received.readInt32BE(0)) {
        const answer = this.received.subarray(4, 4 + this.received.readInt32BE(0));
        this.received = this.received.subarray(4 + answer.length);
        this.waiting.get(answer.readInt32BE(0))?.resolve(answer);
        this.waiting.delete(answer.readInt32BE(0));
      }
    });
    socket.on('close', () => {
      for (const { reject } of this.waiting.values()) reject(new Error('the connection closed'));
      this.waiting.clear();
    });
    socket.on('error', () => undefined);
  }

  static open(address: string): Promise<RawConnection> {
    const [host, port] = address.split(':');
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host, port: Number(port) }, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a request frame (its correlation id at byte 8) and resolves with its answer. */
  ask(frame: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting.set(frame.readInt32BE(8), { resolve, reject });
      this.socket.write(frame);
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Sends the frames on one connection to the proxy (or `address`) and resolves with as many answers (without their size). */
async function exchange(frames: Buffer[], options: { byteByByte?: boolean; address?: string } = {}): Promise<Buffer[]> {
  const [host, port] = (options.address ?? proxy.address).split(':');
  const socket = createConnection({ host, port: Number(port) });
  const answers: Buffer[] = [];
  let received: Buffer = Buffer.alloc(0);
  const done = new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 4 && received.length >= 4 + received.readInt32BE(0)) {
        answers.push(received.subarray(4, 4 + received.readInt32BE(0)));
        received = received.subarray(4 + answers[answers.length - 1].length);
      }
      if (answers.length === frames.length) resolve();
    });
  });
  const bytes = Buffer.concat(frames);
  if (options.byteByByte) {
    for (const byte of bytes) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
  } else socket.write(bytes);
  try {
    await done;
  } finally {
    socket.destroy();
  }
  return answers;
}
