// Kafka protocol frames written and read by hand, for the tests that speak to the test broker (the mock, or the
// stock-broker proxy in front of it) below what a client library lets them do.

export function int32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(value);
  return bytes;
}

export function kafkaString(value: string): Buffer {
  const bytes = Buffer.from(value);
  const length = Buffer.alloc(2);
  length.writeInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A request frame: size, api key, version, correlation id, client id, body. */
export function request(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  body: Buffer = Buffer.alloc(0),
): Buffer {
  const header = Buffer.alloc(8);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  const frame = Buffer.concat([header, kafkaString('raw'), body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(frame.length);
  return Buffer.concat([size, frame]);
}

/** A JoinGroup v0 of a consumer (6 s session, the range protocol, no metadata); memberId '' for a new member. */
export function joinGroupV0(group: string, memberId: string, correlationId: number): Buffer {
  const body = [kafkaString(group), int32(6_000), kafkaString(memberId), kafkaString('consumer')];
  return request(11, 0, correlationId, Buffer.concat([...body, int32(1), kafkaString('range'), int32(0)]));
}

/** A JoinGroup v0 answer: its error, generation and the member id it gave (after the protocol and the leader). */
export function joinedV0(answer: Buffer): { error: number; generation: number; memberId: string } {
  let at = 10;
  const read = () => {
    const value = answer.toString('utf8', at + 2, at + 2 + answer.readInt16BE(at));
    at += 2 + Buffer.byteLength(value);
    return value;
  };
  read(); // protocol
  read(); // leader
  return { error: answer.readInt16BE(4), generation: answer.readInt32BE(6), memberId: read() };
}
