// How far a process's Kafka consumer group trails the topics it reads (docs/metrics.md), on /metrics:
//   mm_kafka_consumer_lag_messages{group,topic}  messages of the topic past the group's committed offsets, summed
//                                                over its partitions (a partition the group never committed counts
//                                                from its oldest retained message)
// Asked of the broker at a scrape, at most once a second, through an admin client of its own (the two offset
// requests every broker answers, ListOffsets and OffsetFetch). A broker that does not answer within two seconds
// leaves the figure out of that scrape rather than show a wrong one; the outage has its own metrics.
import type { Admin, Kafka } from 'kafkajs';
import { Gauge, type Registry } from 'prom-client';

/** How long a scrape waits for the broker. */
const ANSWER_MS = 2_000;

export interface KafkaConsumerLagOptions {
  /** The consumer group, as the broker knows it. */
  groupId: string;
  topics: readonly string[];
  /** A client of its own for the admin requests. */
  kafka: Kafka;
  registry: Registry;
}

export class KafkaConsumerLag {
  private admin?: Promise<Admin>;
  private last?: { at: number; lag: Promise<Map<string, number> | undefined> };

  constructor(private readonly options: KafkaConsumerLagOptions) {
    const read = () => this.read();
    new Gauge({
      name: 'mm_kafka_consumer_lag_messages',
      help: "Messages of a topic past the consumer group's committed offsets",
      labelNames: ['group', 'topic'] as const,
      registers: [options.registry],
      async collect() {
        this.reset();
        for (const [topic, messages] of (await read()) ?? []) this.set({ group: options.groupId, topic }, messages);
      },
    });
  }

  /** By topic, the messages past the group's offsets; undefined when the broker does not answer in time. */
  read(): Promise<Map<string, number> | undefined> {
    if (!this.last || Date.now() - this.last.at > 1000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ANSWER_MS)));
      const lag = Promise.race([this.ask().catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
      this.last = { at: Date.now(), lag };
    }
    return this.last.lag;
  }

  /** Disconnects its admin client; one still connecting to a broker that does not answer is left to fail. */
  async stop(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ANSWER_MS)));
    const connected = await Promise.race([admin?.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
    await connected?.disconnect();
  }

  private async ask(): Promise<Map<string, number>> {
    const { groupId, topics, kafka } = this.options;
    if (!this.admin) {
      const admin = kafka.admin({ retry: { retries: 0 } });
      this.admin = admin.connect().then(() => admin);
      // A failed connection is tried again at the next scrape.
      this.admin.catch(() => (this.admin = undefined));
    }
    const admin = await this.admin;
    const [ends, committed] = await Promise.all([
      Promise.all(topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) }))),
      admin.fetchOffsets({ groupId, topics: [...topics] }),
    ]);
    const lag = new Map<string, number>();
    for (const { topic, partitions } of ends) {
      const offsets = committed.find((c) => c.topic === topic)?.partitions ?? [];
      let behind = 0;
      for (const { partition, high, low } of partitions) {
        const offset = Number(offsets.find((o) => o.partition === partition)?.offset ?? -1);
        behind += Math.max(0, Number(high) - (offset >= 0 ? offset : Number(low)));
      }
      lag.set(topic, behind);
    }
    return lag;
  }
}
