// How far each log reader of this process trails the log it reads (docs/metrics.md), in its /metrics:
//   mm_reader_lag_events{reader,source}   committed events of the log past the reader's checkpoint
//   mm_reader_lag_seconds{reader,source}  how long the oldest of them has waited (0 when there is none)
// A reader is a checkpointed subscription: a service's consumer group on the PostgreSQL log transport, or a
// service's relay of its own log to Kafka. Read at each scrape from the checkpoint and the log, in the order
// the reader reads (transaction id, then position), so an event that committed late is counted too.
import { Gauge, type Registry } from 'prom-client';
import type { UnitOfWork } from '@mm/platform/database';

/** Past this many unread events a reader is reported at this many: counting further would cost the scrape. */
export const READER_LAG_CAP = 100_000;

interface Lag {
  labels: { reader: string; source: string };
  events: number;
  seconds: number;
}

export class ReaderLagMetrics {
  private readonly readers: Array<{ reader: string; source: string }> = [];

  constructor(
    private readonly uow: UnitOfWork,
    registry: Registry,
  ) {
    // The two gauges of one scrape share one read, for a second.
    let last: { at: number; lags: Promise<Lag[]> } | undefined;
    const read = () => {
      if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), lags: this.read() };
      return last.lags;
    };
    new Gauge({
      name: 'mm_reader_lag_events',
      help: "Committed events of the log past the reader's checkpoint (at most 100000)",
      labelNames: ['reader', 'source'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const lag of await read()) this.set(lag.labels, lag.events);
      },
    });
    new Gauge({
      name: 'mm_reader_lag_seconds',
      help: "Seconds the oldest event past the reader's checkpoint has waited; 0 when the reader is at the log's end",
      labelNames: ['reader', 'source'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const lag of await read()) this.set(lag.labels, lag.seconds);
      },
    });
  }

  /** A reader of this process: its subscription's name and the schemas of the logs it reads. */
  watch(reader: string, sources: readonly string[]): void {
    for (const source of sources) this.readers.push({ reader, source });
  }

  private async read(): Promise<Lag[]> {
    const lags = await Promise.all(this.readers.map((r) => this.lagOf(r.reader, r.source)));
    return lags.filter((lag): lag is Lag => lag !== undefined);
  }

  /** Undefined where the log cannot be read now (another service's not created yet, the database away). */
  private async lagOf(reader: string, source: string): Promise<Lag | undefined> {
    try {
      // No checkpoint yet: the reader has read nothing.
      const [row] = await this.uow.query<{ events: number; seconds: number | null }>(
        `SELECT count(*)::int AS events, extract(epoch FROM clock_timestamp() - min(recorded_at))::float8 AS seconds
           FROM (SELECT e.recorded_at
                   FROM ${source}.events e
                  WHERE (e.transaction_id, e.global_position) > (
                        SELECT COALESCE(max(c.transaction_id), '0'::xid8), COALESCE(max(c.global_position), 0)
                          FROM platform.subscription_checkpoints c
                         WHERE c.subscription = $1 AND c.source = $2)
                  ORDER BY e.transaction_id, e.global_position
                  LIMIT ${READER_LAG_CAP}) unread`,
        [reader, source],
      );
      return { labels: { reader, source }, events: row.events, seconds: Math.max(0, row.seconds ?? 0) };
    } catch {
      return undefined;
    }
  }
}
