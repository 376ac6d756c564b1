// Where a platform that does not settle is behind: for a fault run that ends `not-settled`, the run's report
// says which log readers trail their logs (PostgreSQL checkpoints against each log's last position) and which
// Kafka consumer groups trail their topics (committed offsets against each partition's end). Read from the
// database and the broker directly, once the run is over: a diagnosis for the engineer, not a check (the
// checker reads only through the API).
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';

export interface ReaderLag {
  /** `postgres` for a checkpointed subscription, `kafka` for a consumer group. */
  kind: 'postgres' | 'kafka';
  reader: string;
  source: string;
  behind: number;
}

/** Each PostgreSQL subscription whose checkpoint trails the last position of the log it reads. */
async function checkpointLag(databaseUrl: string): Promise<ReaderLag[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: checkpoints } = await client.query<{ subscription: string; source: string; position: string }>(
      `SELECT subscription, source, global_position::text AS position FROM platform.subscription_checkpoints`,
    );
    const ends = new Map<string, bigint>();
    for (const source of new Set(checkpoints.map((c) => c.source))) {
      const { rows } = await client.query<{ end: string | null }>(
        `SELECT max(global_position)::text AS end FROM ${client.escapeIdentifier(source)}.events`,
      );
      ends.set(source, BigInt(rows[0]?.end ?? 0));
    }
    return checkpoints
      .map((c) => ({
        kind: 'postgres' as const,
        reader: c.subscription,
        source: c.source,
        behind: Number(ends.get(c.source)! - BigInt(c.position)),
      }))
      .filter((lag) => lag.behind > 0);
  } finally {
    await client.end();
  }
}

/** The consumer groups' names, from what they processed (a mock broker cannot list groups): `<prefix>.<group>`. */
async function consumerGroups(databaseUrl: string, prefix: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ group: string }>(
      `SELECT DISTINCT consumer_group AS group FROM platform.processed_events`,
    );
    return rows.map((r) => `${prefix}.${r.group}`);
  } finally {
    await client.end();
  }
}

/** Each consumer group of the run whose committed offsets trail the end of a topic it reads. */
async function consumerLag(brokers: string, prefix: string, groups: readonly string[]): Promise<ReaderLag[]> {
  const admin = new Kafka({ brokers: [brokers], clientId: 'chaos-lag', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`));
    const ends = new Map<string, Map<number, bigint>>();
    for (const topic of topics)
      ends.set(topic, new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)])));
    const lags: ReaderLag[] = [];
    for (const groupId of groups) {
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId, topics })) {
        // Nothing committed on any partition: a topic the group does not read.
        if (partitions.every((p) => BigInt(p.offset) < 0n)) continue;
        let behind = 0n;
        for (const { partition, offset } of partitions) {
          const end = ends.get(topic)?.get(partition) ?? 0n;
          // -1: nothing committed yet, the whole partition is ahead.
          behind += end - (BigInt(offset) < 0n ? 0n : BigInt(offset));
        }
        if (behind > 0n) lags.push({ kind: 'kafka', reader: groupId, source: topic, behind: Number(behind) });
      }
    }
    return lags;
  } finally {
    await admin.disconnect();
  }
}

/** Every reader that trails, or a line saying why it could not be read. */
export async function readerLag(
  databaseUrl: string,
  brokers: string,
  prefix: string,
): Promise<Array<ReaderLag | string>> {
  const results = await Promise.allSettled([
    checkpointLag(databaseUrl),
    consumerGroups(databaseUrl, prefix).then((groups) => consumerLag(brokers, prefix, groups)),
  ]);
  return results.flatMap((r, i): Array<ReaderLag | string> =>
    r.status === 'fulfilled' ? r.value : [`${i === 0 ? 'checkpoints' : 'consumer groups'}: ${String(r.reason)}`],
  );
}
