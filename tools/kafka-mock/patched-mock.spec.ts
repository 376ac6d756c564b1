// The mock broker built from source with the project's patches (tools/kafka-mock/build.sh patched, what the test
// suite and `npm run chaos` run over where it can be built): a Fetch at any offset answers what the released
// mock answers, the message set that holds the offset, from the first to one past the last; and a consumer
// group member that joins again while its earlier join waits is answered, where the release aborts the whole
// broker; and each new member is given an id no member had before, where the release names a member by its
// address, which a member joining after another left is soon given. Skipped where that build cannot be made (no
// network for the source).
import { createConnection, type Socket } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { buildMockBroker, startMockBroker, type MockBroker, type MockBuild } from '../jest/kafka-broker';
import { joinedV0, joinGroupV0, kafkaString, request } from './kafka-frames';
import { startStockBrokerProxy } from './stock-broker-proxy';

jest.setTimeout(60_000);

const absent = buildMockBroker('patched') ?? buildMockBroker();
if (absent) process.stderr.write(`patched-mock.spec: skipped: ${absent}\n`);
const withBoth = absent ? it.skip : it;

const TOPIC = 'patched-lookup';
const SENDS = 300;
const PER_SEND = 3;

/** Produces SENDS message sets of PER_SEND messages to partition 0 of TOPIC, through a stock-broker proxy. */
async function fill(mock: MockBroker): Promise<void> {
  const proxy = await startStockBrokerProxy({ upstream: mock.address, log: () => undefined });
  const kafka = new Kafka({ brokers: [proxy.address], clientId: 'patched-mock-spec', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true });
    await mock.retained(TOPIC);
    await producer.connect();
    for (let i = 0; i < SENDS; i++) {
      const messages = Array.from({ length: PER_SEND }, (_, j) => ({ partition: 0, value: `m${i * PER_SEND + j}` }));
      await producer.send({ topic: TOPIC, messages });
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
    await proxy.close();
  }
}

/** A Fetch v4 of partition 0 at `offset`, straight to the mock: its error code and the first batch's base offset. */
async function fetchAt(mock: MockBroker, offset: number): Promise<{ error: number; firstBatch?: number }> {
  const topic = Buffer.from(TOPIC);
  const body = Buffer.alloc(4 + 4 + 4 + 4 + 1 + 4 + 2 + topic.length + 4 + 4 + 8 + 4);
  let at = 0;
  at = body.writeInt32BE(-1, at); // replica id
  at = body.writeInt32BE(0, at); // max wait: answer at once
  at = body.writeInt32BE(1, at); // min bytes
  at = body.writeInt32BE(1_000_000, at); // max bytes
  at = body.writeInt8(0, at); // isolation: read uncommitted
  at = body.writeInt32BE(1, at); // one topic
  at = body.writeInt16BE(topic.length, at);
  at += topic.copy(body, at);
  at = body.writeInt32BE(1, at); // one partition
  at = body.writeInt32BE(0, at);
  at = Number(body.writeBigInt64BE(BigInt(offset), at));
  body.writeInt32BE(1_000_000, at);
  const answer = await roundTrip(mock.address, request(1, 4, 7, body));
  // correlation id, throttle, one topic (name), one partition: id, error, high watermark, last stable offset,
  // aborted transactions (an array, -1 for none), then the records' size and the first batch's base offset.
  let read = 4 + 4 + 4;
  read += 2 + answer.readInt16BE(read);
  read += 4 + 4;
  const error = answer.readInt16BE(read);
  read += 2 + 8 + 8;
  const aborted = answer.readInt32BE(read);
  read += 4 + Math.max(aborted, 0) * 16;
  const size = answer.readInt32BE(read);
  return size > 0 ? { error, firstBatch: Number(answer.readBigInt64BE(read + 4)) } : { error };
}

function roundTrip(address: string, request: Buffer, opened?: (socket: Socket) => void): Promise<Buffer> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port: Number(port) });
    opened?.(socket);
    let received = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the connection closed unanswered')));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4 && received.length >= 4 + received.readInt32BE(0)) {
        socket.destroy();
        resolve(received.subarray(4, 4 + received.readInt32BE(0)));
      }
    });
    socket.write(request);
  });
}

/** Each offset's answer from a mock of the given build, filled the same way. */
async function answers(build: MockBuild, offsets: number[]): Promise<Array<{ error: number; firstBatch?: number }>> {
  const mock = await startMockBroker(() => undefined, build);
  if (!mock) throw new Error(`the ${build} mock broker did not start`);
  try {
    await fill(mock);
    const found = [];
    for (const offset of offsets) found.push(await fetchAt(mock, offset));
    return found;
  } finally {
    await mock.stop();
  }
}

withBoth('finds the message set holding any offset, as the released mock does', async () => {
  const end = SENDS * PER_SEND;
  const offsets = [0, 1, 2, 3, 4, 5, 450, 451, 452, end - 3, end - 2, end - 1, end, end + 1];
  const patched = await answers('patched', offsets);
  // Each offset in the batch that holds it; the end answers nothing; past it, OFFSET_OUT_OF_RANGE (1).
  const expected = offsets.map((offset) =>
    offset < end
      ? { error: 0, firstBatch: offset - (offset % PER_SEND) }
      : offset === end
        ? { error: 0 }
        : { error: 1 },
  );
  expect(patched).toEqual(expected);
  expect(await answers('system', offsets)).toEqual(patched);
});

withBoth('answers a member that joins again while its earlier join waits (the release aborts the broker)', async () => {
  const mock = await startMockBroker(() => undefined, 'patched');
  if (!mock) throw new Error('the patched mock broker did not start');
  const sockets: Socket[] = [];
  const keep = (socket: Socket) => sockets.push(socket);
  try {
    // Two members join at once (straight to the mock, no proxy to keep them apart); one rebalance answers both.
    const [a, b] = await Promise.all([
      roundTrip(mock.address, joinGroupV0('rejoin', '', 7), keep),
      roundTrip(mock.address, joinGroupV0('rejoin', '', 7), keep),
    ]);
    expect([joinedV0(a).error, joinedV0(b).error]).toEqual([0, 0]);
    const member = joinedV0(a).memberId;
    // The first member joins again: the mock holds it for the other member, which never joins again.
    const first = roundTrip(mock.address, joinGroupV0('rejoin', member, 7), keep);
    first.catch(() => undefined);
    // A round trip on a connection opened after it: the mock handles a poll's connections in the order they were
    // opened, so the join is held once this is answered.
    await roundTrip(mock.address, request(18, 0, 8));
    // ...and again, as a client that gave up on the first does: the earlier is given up, the later answered.
    const again = await roundTrip(mock.address, joinGroupV0('rejoin', member, 7), keep);
    expect(joinedV0(again)).toMatchObject({ error: 0, memberId: member });
    // And the broker is still there.
    const versions = await roundTrip(mock.address, request(18, 0, 9));
    expect(versions.readInt32BE(0)).toBe(9);
  } finally {
    for (const socket of sockets) socket.destroy();
    await mock.stop();
  }
});

/** The ids a mock of this build gives new members of `groups` groups, each joining and leaving `rounds` times. */
async function memberIds(build: MockBuild, groups: number, rounds: number): Promise<string[]> {
  const mock = await startMockBroker(() => undefined, build);
  if (!mock) throw new Error(`the ${build} mock broker did not start`);
  try {
    const ids: string[] = [];
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        Array.from({ length: groups }, async (_, g) => {
          const joined = joinedV0(await roundTrip(mock.address, joinGroupV0(`ids-${g}`, '', 1)));
          expect(joined.error).toBe(0);
          ids.push(joined.memberId);
          // LeaveGroup v0: the member is gone, and what the mock held of it freed.
          const leave = request(13, 0, 2, Buffer.concat([kafkaString(`ids-${g}`), kafkaString(joined.memberId)]));
          expect((await roundTrip(mock.address, leave)).readInt16BE(4)).toBe(0);
        }),
      );
    }
    return ids;
  } finally {
    await mock.stop();
  }
}

withBoth("gives each new member an id no member had before (the release reuses a freed member's)", async () => {
  // Members come and go (a consumer that crashes and starts again is a new member), each group's first join
  // waiting the mock's 3 s: the release gives the first ids freed to members joining after them, so that a client
  // still using its id after the broker dropped it (a session that expired meanwhile) shares it with a new one.
  const ids = await memberIds('patched', 8, 3);
  expect(ids).toHaveLength(24);
  expect(new Set(ids).size).toBe(ids.length);
});
