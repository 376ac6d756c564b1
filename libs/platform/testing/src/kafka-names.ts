// Tests remove the Kafka topics and consumer groups they make (issue 42): on a
// broker that several runs share (CONTRIBUTING.md, "Kafka in the tests") every
// name a run leaves stays there. A test's topics and groups all carry a prefix
// of its own (`<prefix>.<schema>.events`, `<prefix>.<service>`: ADR 0012), so
// what it made is what starts with `<prefix>.`, found with the broker's own
// ListTopics (Metadata) and ListGroups, and removed with DeleteTopics and
// DeleteGroups: the calls any stock broker answers (the test broker's proxy
// answers them for the mock, which has none of them).
import { Kafka, logLevel, type Admin } from 'kafkajs';

export interface KafkaNames {
  topics: string[];
  groups: string[];
}

/** A prefix of a test's own, for MM_KAFKA_TOPIC_PREFIX: letters, digits and dashes, unique across runs. */
export function kafkaTestPrefix(what: string): string {
  return `mm-${what}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

async function withAdmin<T>(brokers: readonly string[], use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({
    clientId: 'mm-test-cleanup',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    retry: { retries: 3 },
  }).admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

const underPrefix = (prefix: string) => (name: string) => name.startsWith(`${prefix}.`);

/** The topics and consumer groups on the broker whose names start with `<prefix>.`. */
export function kafkaNamesUnder(brokers: readonly string[], prefix: string): Promise<KafkaNames> {
  return withAdmin(brokers, async (admin) => namesUnder(admin, prefix));
}

async function namesUnder(admin: Admin, prefix: string): Promise<KafkaNames> {
  const mine = underPrefix(prefix);
  const [topics, { groups }] = await Promise.all([admin.listTopics(), admin.listGroups()]);
  return {
    topics: topics.filter(mine).sort(),
    groups: groups
      .map((g) => g.groupId)
      .filter(mine)
      .sort(),
  };
}

/**
 * Deletes the topics and consumer groups whose names start with `<prefix>.`, then checks that none is
 * left, and throws naming any that is. A group with a member still counted (a consumer killed without
 * leaving, until its session expires) is tried again until `timeoutMs` (the longest session the tests
 * use is 10 s) has passed. Run it once every process that used them has stopped.
 */
export async function removeKafkaNames(
  brokers: readonly string[],
  prefix: string,
  { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
): Promise<void> {
  await withAdmin(brokers, async (admin) => {
    const deadline = Date.now() + timeoutMs;
    let { topics, groups } = await namesUnder(admin, prefix);
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: Math.max(1_000, deadline - Date.now()) });
    while (groups.length > 0) {
      const refused = await admin.deleteGroups(groups).then(
        () => [],
        (error: { groups?: Array<{ groupId: string; error?: { type?: string } }> }) => {
          // kafkajs names each group that was not deleted: a group with members waits for their sessions.
          const failed = error.groups ?? [];
          const other = failed.find(
            (g) => g.error?.type !== 'NON_EMPTY_GROUP' && g.error?.type !== 'GROUP_ID_NOT_FOUND',
          );
          if (other || failed.length === 0) throw error;
          return failed.filter((g) => g.error?.type === 'NON_EMPTY_GROUP').map((g) => g.groupId);
        },
      );
      groups = refused;
      if (groups.length === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    ({ topics, groups } = await namesUnder(admin, prefix));
    if (topics.length + groups.length > 0) {
      throw new Error(
        `Kafka names of ${prefix} are still on the broker after ${timeoutMs / 1000} s: topics ${topics.join(', ') || 'none'}; groups ${groups.join(', ') || 'none'}`,
      );
    }
  });
}
