// Checkpointed subscriptions: a named consumer reads one or more events logs in
// order and handles each event in the same transaction that advances its
// checkpoint, so a crash replays nothing twice and loses nothing. A
// transaction-scoped advisory lock per (subscription, source) lets one
// instance work a source at a time, in order, across processes. Unlike a row
// lock it takes no transaction id, so an idle poll does not itself hold back
// the read horizon of every reader in the cluster (ADR 0001). A log that does
// not exist yet (another service's, before that service's first start has
// created its schema: distributed mode, where each service migrates its own)
// is an empty log until it does, then read from its start (issue 42: a reader
// that started first failed every poll on the missing table).
import type { UnitOfWork } from '@mm/platform/database';
import { START, type Checkpoint, type EventStore, type RecordedEvent } from './event-store';

export type EventHandler = (event: RecordedEvent) => Promise<void>;

export interface SubscriptionOptions {
  batchSize?: number;
  idlePollMs?: number;
  /**
   * After a wake-up, how long to let further commits gather before reading (10 ms):
   * under load one poll then reads many commits instead of one poll per commit, each
   * poll being several round trips on the same database the commands write to.
   */
  coalesceMs?: number;
  onError?: (error: unknown, event?: RecordedEvent) => void;
  /** The logs found not to exist yet (told once each): read as empty until they do. */
  onAbsent?: (schemas: string[]) => void;
  /**
   * The event types the handler acts on: events of other types reach it without their data (null) and
   * metadata (empty), which are then neither sent by PostgreSQL nor parsed; their positions still move the
   * checkpoint. Every event whole when omitted.
   */
  types?: readonly string[];
}

export class Subscription {
  private running = false;
  private wakePending = false;
  /** Logs to read at the next poll; all of them at the first. */
  private readonly dirty = new Set<string>();
  private allDirty = true;
  private lastFullPoll = 0;
  /**
   * A larger read for a log whose last read was full and handled nothing: its first event waits for its
   * stream's previous version, read later than the whole batch (inStreamOrder).
   */
  private readonly limits = new Map<string, number>();
  /** Sources whose checkpoint row is known to exist. */
  private readonly ensured = new Set<string>();
  /** Sources whose events table is known to exist (tables are never dropped), and those told absent. */
  private readonly present = new Set<string>();
  private readonly toldAbsent = new Set<string>();
  private timer?: NodeJS.Timeout;
  private wakeUp?: () => void;
  private endPause?: () => void;
  private loop?: Promise<void>;

  constructor(
    private readonly uow: UnitOfWork,
    readonly name: string,
    private readonly sources: EventStore[],
    private readonly handler: EventHandler,
    private readonly options: SubscriptionOptions = {},
  ) {}

  /** Handles at most one batch from each source; returns how many events it handled. */
  async pollOnce(): Promise<number> {
    this.allDirty = true;
    return (await this.poll()).handled;
  }

  private async poll(): Promise<{ handled: number; more: boolean }> {
    let handled = 0;
    let more = false;
    // Only the logs told of new events since the last poll (every log after a quiet interval or an
    // unnamed wake-up): a commit to one log costs no read of the others.
    // Every log at least once an idle interval even under constant wake-ups, so that a lost
    // notification or a failed poll costs latency, never an event.
    const all = this.allDirty || Date.now() - this.lastFullPoll >= (this.options.idlePollMs ?? 200);
    const targets = all ? this.sources : this.sources.filter((s) => this.dirty.has(s.schema));
    if (all) this.lastFullPoll = Date.now();
    this.allDirty = false;
    this.dirty.clear();
    for (const [store, read] of await this.pollSources(targets)) {
      handled += read.handled;
      if (read.full) {
        more = true;
        this.dirty.add(store.schema);
      }
    }
    return { handled, more };
  }

  /** Polls until every source is drained (tests, and catch-up on start). */
  async drain(): Promise<void> {
    for (;;) {
      this.allDirty = true;
      const { handled, more } = await this.poll();
      if (handled === 0 && !more) return;
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wakeUp?.();
    this.endPause?.();
    await this.loop;
  }

  /** Something was appended (to the log of `schema`, or to any): poll now instead of at the next tick (also when a poll is under way). */
  wake(schema?: string): void {
    if (schema === undefined) this.allDirty = true;
    else this.dirty.add(schema);
    this.wakePending = true;
    this.wakeUp?.();
  }

  /** Rebuild: the next poll reads every source from the beginning. */
  async reset(): Promise<void> {
    await this.uow.query(`DELETE FROM platform.subscription_checkpoints WHERE subscription = $1`, [this.name]);
    this.ensured.clear();
  }

  async checkpoint(store: EventStore): Promise<Checkpoint> {
    const [row] = await this.uow.query<{ transaction_id: string; global_position: string }>(
      `SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
         FROM platform.subscription_checkpoints WHERE subscription = $1 AND source = $2`,
      [this.name, store.schema],
    );
    return row ? { transactionId: row.transaction_id, globalPosition: row.global_position } : START;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let more = false;
      this.wakePending = false;
      try {
        more = (await this.poll()).more;
      } catch (error) {
        this.options.onError?.(error);
      }
      if (!this.running) break;
      // A full batch: the log has more right now.
      if (more) continue;
      if (!this.wakePending) {
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.timer = setTimeout(() => {
            // Quiet for a whole interval: read every log, in case a notification was lost.
            this.allDirty = true;
            resolve();
          }, this.options.idlePollMs ?? 200);
        });
      }
      const coalesceMs = this.options.coalesceMs ?? 10;
      if (this.running && coalesceMs > 0) {
        // Not cut short by wake(): under load notifications never stop. stop() ends it.
        await new Promise<void>((resolve) => {
          this.endPause = resolve;
          this.timer = setTimeout(resolve, coalesceMs);
        });
      }
    }
  }

  /**
   * One transaction for the logs polled together, in two round trips: every log's lock (BEGIN travels
   * with them), whether its checkpoint row is there, and its events after the checkpoint, in one batch;
   * then the checkpoints' updates with the COMMIT. Each log's events are handled under a savepoint of
   * their own, so a handler failing on one log rolls back that log's work alone, and the others move on.
   * Returns how many events of each log were handled, and whether its read was full (it has more now).
   */
  private async pollSources(stores: EventStore[]): Promise<Map<EventStore, { handled: number; full: boolean }>> {
    const handled = new Map<EventStore, { handled: number; full: boolean }>();
    const limit = (store: EventStore) => this.limits.get(store.schema) ?? this.options.batchSize ?? 100;
    const missing = stores.filter((store) => !this.ensured.has(store.schema));
    const unknown = stores.filter((store) => !this.present.has(store.schema));
    if (missing.length > 0 || unknown.length > 0) {
      // The checkpoint rows a first poll makes, and which logs exist, in one round trip.
      const answers = await this.uow.batch([
        ...missing.map((store) => ({
          sql: `INSERT INTO platform.subscription_checkpoints (subscription, source) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
          params: [this.name, store.schema],
        })),
        ...(unknown.length > 0
          ? [
              {
                sql: `SELECT s AS schema FROM unnest($1::text[]) AS s WHERE to_regclass(format('%I.events', s)) IS NOT NULL`,
                params: [unknown.map((store) => store.schema)],
              },
            ]
          : []),
      ]);
      for (const store of missing) this.ensured.add(store.schema);
      if (unknown.length > 0)
        for (const row of answers[answers.length - 1] as Array<{ schema: string }>) this.present.add(row.schema);
      const absent = unknown
        .filter((store) => !this.present.has(store.schema) && !this.toldAbsent.has(store.schema))
        .map((store) => store.schema);
      if (absent.length > 0) {
        for (const schema of absent) this.toldAbsent.add(schema);
        this.options.onAbsent?.(absent);
      }
      stores = stores.filter((store) => this.present.has(store.schema));
    }
    if (stores.length === 0) return handled;
    let failure: unknown;
    await this.uow.run(async () => {
      // Each log's lock, whether its checkpoint row is there, and its events after it, read only under the
      // lock (each statement its own snapshot, taken after the lock).
      const lockKey = (store: EventStore) => `${this.name}\n${store.schema}`;
      const answers = await this.uow.batch(
        stores.flatMap((store) => [
          {
            sql: `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7346003)) AS locked,
                         EXISTS (SELECT 1 FROM platform.subscription_checkpoints WHERE subscription = $2 AND source = $3) AS present`,
            params: [lockKey(store), this.name, store.schema],
          },
          store.readAfterCheckpointStatement(this.name, lockKey(store), limit(store), this.options.types),
        ]),
      );
      for (const [i, store] of stores.entries()) {
        const [{ locked, present }] = answers[2 * i] as Array<{ locked: boolean; present: boolean }>;
        if (!locked) continue; // another instance holds this source
        if (!present) {
          // Deleted behind our back (a rebuild by hand): the next poll recreates it at the start.
          this.ensured.delete(store.schema);
          continue;
        }
        const read = answers[2 * i + 1];
        // Each stream's events in version order; the read may end early, at an event whose stream's previous
        // version is beyond the read horizon or this read's limit (inStreamOrder): the checkpoint moves past
        // `count` rows only. What the horizon holds back waits for it to move; what the limit cut off is read
        // at the next poll, a read twice as large when this one could hand over nothing.
        const { events, count } = store.recorded(read);
        const full = read.length >= limit(store);
        if (count === 0) {
          if (full) this.limits.set(store.schema, 2 * limit(store));
          handled.set(store, { handled: 0, full });
          continue;
        }
        this.limits.delete(store.schema);
        const last = read[count - 1] as { transaction_id: string; global_position: string };
        try {
          await this.uow.savepoint(async () => {
            for (const event of events) {
              try {
                await this.handler(event);
              } catch (error) {
                this.options.onError?.(error, event);
                throw error;
              }
            }
            // With the COMMIT (UnitOfWork.defer): nothing waits on its answer.
            await this.uow.defer(
              `UPDATE platform.subscription_checkpoints
                  SET transaction_id = $3::xid8, global_position = $4, updated_at = now()
                WHERE subscription = $1 AND source = $2`,
              [this.name, store.schema, last.transaction_id, last.global_position],
            );
          });
          handled.set(store, { handled: count, full });
        } catch (error) {
          // This log is read again from its checkpoint at the next poll; the others' work commits.
          failure ??= error;
        }
      }
    });
    // Said once the others' work has committed: the loop reports it and tries again after a pause.
    if (failure !== undefined) throw failure;
    return handled;
  }
}
