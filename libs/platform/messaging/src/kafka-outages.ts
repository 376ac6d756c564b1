// A Kafka broker that goes away is one event for the person reading a
// service's log, not hundreds of lines (issue 42: a 45 s outage logged 299
// error lines, kafkajs' expected reconnects). Each process has one
// KafkaOutages. Its Kafka clients (the relay's producer, the consumer) report
// what they find: `unreachable` when a connection to the broker fails,
// `reached` whenever the broker answers one of their requests. The first
// failure begins an outage, said once as a warning; the outage ends when every
// client that failed has had an answer again, said once (info) with its
// duration, which `mm_kafka_outage_seconds` also counts. In between, kafkajs'
// own lines are debug (the platform's kafkajs logger asks `ongoing`). A
// failure can be told after the answers that end the outage (kafkajs' producer
// logs the failed attempt of a send once it has reconnected), so the end is
// said only when no failure follows the answers for a moment (`settleMs`); one
// that does continues the outage rather than beginning another.
// Nothing is lost meanwhile: the events wait in the services' logs, whose
// relays send them from their checkpoints once the broker is back (ADR 0006).
import { Gauge, Histogram, type Registry } from 'prom-client';

/** The lines an outage writes, in the platform's log (pino's signature: fields, then the message). */
export interface OutageLog {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

/** One Kafka client's reports: the KafkaOutages of its process, under the client's name. */
export interface KafkaReachability {
  /** A connection to the broker failed; `reason` says how (ECONNREFUSED, a timeout...). */
  unreachable(reason: string): void;
  /** The broker answered a request. Called for every answer: cheap when no outage is under way. */
  reached(): void;
  /** Whether the process's broker is unreachable now (its other clients' failures count). */
  ongoing(): boolean;
}

export const OUTAGE_METRIC = 'mm_kafka_outage_seconds';
export const UNREACHABLE_METRIC = 'mm_kafka_broker_unreachable_seconds';

export class KafkaOutages {
  /** The clients that failed since the outage began and have had no answer since, with the first reason. */
  private readonly failing = new Map<string, string>();
  private since?: number;
  /** Every failed client has had an answer: the outage ends unless a failure comes before this timer. */
  private ending?: { at: number; client: string; timer: NodeJS.Timeout };
  private readonly outages?: Histogram;

  constructor(
    private readonly log: OutageLog,
    registry?: Registry,
    private readonly settleMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {
    if (!registry) return;
    this.outages = new Histogram({
      name: OUTAGE_METRIC,
      help: "Kafka outages this process lived through and how long each lasted, from its first failed connection to the last of its clients' first answer after it",
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers: [registry],
    });
    const unreachableFor: Gauge = new Gauge({
      name: UNREACHABLE_METRIC,
      help: 'How long the Kafka broker has been unreachable from this process, 0 while it answers',
      registers: [registry],
      collect: () =>
        unreachableFor.set(this.since === undefined ? 0 : ((this.ending?.at ?? this.now()) - this.since) / 1000),
    });
  }

  get ongoing(): boolean {
    return this.since !== undefined;
  }

  /** The reports of one client (a Kafka instance: its producers, consumers and admin share them). */
  client(name: string): KafkaReachability {
    return {
      unreachable: (reason) => this.unreachable(name, reason),
      reached: () => {
        if (this.since !== undefined) this.reached(name);
      },
      ongoing: () => this.ongoing,
    };
  }

  private unreachable(client: string, reason: string): void {
    if (!this.failing.has(client)) this.failing.set(client, reason);
    if (this.ending) {
      clearTimeout(this.ending.timer);
      this.ending = undefined;
    }
    if (this.since !== undefined) return;
    this.since = this.now();
    this.log.warn(
      { context: 'kafka', kafkaOutage: 'began', client, reason },
      `the Kafka broker is unreachable (${reason}); the events wait in the services' logs and go out, and are consumed, once it is back. Until then its connection errors are logged at debug`,
    );
  }

  private reached(client: string): void {
    if (!this.failing.delete(client) || this.failing.size > 0 || this.since === undefined || this.ending) return;
    const ending = { at: this.now(), client, timer: setTimeout(() => this.end(ending), this.settleMs) };
    // An outage under way keeps no process alive that is otherwise done.
    ending.timer.unref();
    this.ending = ending;
  }

  private end(ending: { at: number; client: string }): void {
    if (this.ending !== ending || this.since === undefined) return;
    const seconds = (ending.at - this.since) / 1000;
    this.since = this.ending = undefined;
    this.outages?.observe(seconds);
    this.log.info(
      { context: 'kafka', kafkaOutage: 'ended', client: ending.client, outageSeconds: seconds },
      `the Kafka broker answers again, after an outage of ${seconds.toFixed(1)} s`,
    );
  }
}

/** Errors and log lines that mean the broker could not be reached at all, not that it refused something. */
const UNREACHABLE =
  /KafkaJSConnection(Closed)?Error|KafkaJSNoBrokerAvailableError|KafkaJSRequestTimeoutError|Connection error|Connection timeout|Closed connection|Failed to connect|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|ENOTFOUND|EAI_AGAIN/;

/** Whether a kafkajs log line (its message and stack) says the broker could not be reached. */
export function saysUnreachable(text: string): boolean {
  return UNREACHABLE.test(text);
}

/** Why an error means the broker could not be reached, its cause chain included; undefined when it does not. */
export function unreachableReason(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; depth++) {
    if (UNREACHABLE.test(`${e.name} ${e.message}`)) return e.message;
    e = (e as { cause?: unknown; originalError?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return undefined;
}
