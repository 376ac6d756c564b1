// Append-only event log of one service schema: optimistic concurrency on
// (stream, version), read a stream, read all in a safe global order.
import { context, propagation } from '@opentelemetry/api';
import { newId } from '@mm/platform/ids';
import { sqlState, UNIQUE_VIOLATION, type Statement, type UnitOfWork } from '@mm/platform/database';
import { inStreamOrder, type StreamOrdered } from './stream-order';

/** The channel an append notifies (after its commit) with its schema, for the log readers (libs/platform/messaging). */
export const EVENTS_CHANNEL = 'mm_events';

export interface EventMetadata {
  projectId?: string;
  correlationId?: string;
  causationId?: string;
  idempotencyKey?: string;
  /** W3C trace context, so traces continue across the transport. */
  traceparent?: string;
  [key: string]: unknown;
}

export interface NewEvent<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
  metadata?: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> {
  eventId: string;
  /** The schema (service) whose log holds the event. */
  source: string;
  globalPosition: string;
  transactionId: string;
  streamId: string;
  streamVersion: number;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  recordedAt: string;
}

/** Expected version of a stream before an append: a number, or no stream yet, or anything. */
export type ExpectedVersion = number | 'no_stream' | 'any';

/** A position in a log: readers resume strictly after it. */
export interface Checkpoint {
  transactionId: string;
  globalPosition: string;
}

export const START: Checkpoint = { transactionId: '0', globalPosition: '0' };

export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
  ) {
    super(`stream ${streamId} was not at the expected version ${expected}`);
  }
}

interface EventRow {
  event_id: string;
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date;
}

const LOCK_STREAM = `SELECT pg_advisory_xact_lock(hashtextextended($1, 7346004))`;

/** An event's columns before its payload (data and metadata). */
const HEADER_COLUMNS =
  'event_id, global_position, transaction_id::text AS transaction_id, stream_id, stream_version, type';
const COLUMNS = `${HEADER_COLUMNS}, data, metadata, recorded_at`;
/**
 * COLUMNS for a reader that acts on the types in $4 only: the others' data (null) and metadata ({}) are
 * neither sent nor parsed, their positions still read. A third of the events the platform's reader read
 * under a deposit load had no handler (docs/performance.md, round seven).
 */
const COLUMNS_OF_TYPES = `${HEADER_COLUMNS}, CASE WHEN type = ANY($4::text[]) THEN data END AS data,
  CASE WHEN type = ANY($4::text[]) THEN metadata ELSE '{}'::jsonb END AS metadata, recorded_at`;

/**
 * The active trace, to continue wherever the events are handled (W3C traceparent in their metadata);
 * with tracing off the propagator is a no-op and adds nothing.
 */
function activeTraceContext(): Record<string, string> {
  const traceContext: Record<string, string> = {};
  propagation.inject(context.active(), traceContext);
  return traceContext;
}

/**
 * The VALUES rows (event_id, n, type, data, metadata) of `count` new events whose four parameters each (pushEvents)
 * follow the first `before` parameters; n numbers them from 1 within the append.
 */
function eventTuples(count: number, before: number): string {
  return Array.from({ length: count }, (_, i) => {
    const o = before + i * 4;
    return `($${o + 1}, ${i + 1}, $${o + 2}, $${o + 3}::jsonb, $${o + 4}::jsonb)`;
  }).join(', ');
}

export class EventStore {
  constructor(
    /** The database the log is in (a read model's rebuild writes through it: read-model-rebuild.ts). */
    readonly uow: UnitOfWork,
    readonly schema: string,
  ) {
    if (!/^[a-z_]+$/.test(schema)) throw new Error(`invalid schema name ${schema}`);
  }

  /**
   * One statement: the expected-version check and the insert; the NOTIFY that wakes log
   * readers (libs/platform/messaging) follows the commit (UnitOfWork.notifyOnCommit). Versions follow
   * the stream's current one, so there is never a gap; a stream that moved on (or a
   * concurrent append of the same version, caught by the unique constraint) is a
   * ConcurrencyError.
   */
  async append(streamId: string, expected: ExpectedVersion, events: NewEvent[]): Promise<RecordedEvent[]> {
    if (events.length === 0) return [];
    const expectedVersion = expected === 'any' ? null : expected === 'no_stream' ? 0 : expected;
    const { sql, values } = this.appendStatement(streamId, expectedVersion, events);
    let rows: EventRow[];
    try {
      rows = await this.uow.query<EventRow>(sql, values);
    } catch (error) {
      if (sqlState(error) === UNIQUE_VIOLATION) throw new ConcurrencyError(streamId, expected);
      throw error;
    }
    if (rows.length === 0) throw new ConcurrencyError(streamId, expected);
    await this.wakeReaders();
    return rows.map((r) => this.toRecorded(r));
  }

  /**
   * Appends at the stream's end whatever its version, with the transaction's next statement
   * (UnitOfWork.defer): for a stream only this transaction writes (a resource's partner events,
   * behind its own stream's lock), whose recorded events nobody needs back.
   */
  async appendDeferred(streamId: string, events: NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const values: unknown[] = [streamId];
    this.pushEvents(values, events);
    await this.uow.defer(this.appendAtEndSql(events.length), values);
    await this.wakeReaders();
  }

  /**
   * The first events of a stream whose id this command minted (a fresh TypeID), with the
   * transaction's next statement (UnitOfWork.defer): versions 1 to n, so a stream that existed after
   * all fails the unique (stream, version) constraint, which isRetryable retries. What the database
   * assigns on insert is not known here: the events answered carry no globalPosition or transactionId
   * (empty) and the caller's clock as recordedAt; use them for the stream's own projections only.
   */
  async appendNewStreamDeferred(streamId: string, events: NewEvent[]): Promise<RecordedEvent[]> {
    return this.appendAfterDeferred(streamId, 0, events);
  }

  /**
   * The next events of a stream this transaction holds the lock of (lockAndReadStream, or
   * lockAndReadStreamEnds) and read at `version` under it, with the transaction's next statement
   * (UnitOfWork.defer), as appendNewStreamDeferred: versions version + 1 onwards. Only for a stream
   * every writer of which takes its lock first, so that nothing can append between the read and this
   * insert; should one do so after all, the unique (stream, version) constraint refuses the insert and
   * isRetryable retries the command.
   */
  async appendAfterDeferred(streamId: string, version: number, events: NewEvent[]): Promise<RecordedEvent[]> {
    if (events.length === 0) return [];
    const traceContext = activeTraceContext();
    const recordedAt = new Date().toISOString();
    const values: unknown[] = [streamId];
    const recorded: RecordedEvent[] = events.map((event, i) => {
      const eventId = newId('event');
      const metadata = { ...traceContext, ...event.metadata };
      values.push(eventId, event.type, JSON.stringify(event.data), JSON.stringify(metadata));
      return {
        eventId,
        source: this.schema,
        globalPosition: '',
        transactionId: '',
        streamId,
        streamVersion: version + i + 1,
        type: event.type,
        data: event.data,
        metadata,
        recordedAt,
      };
    });
    values.push(version);
    await this.uow.defer(this.appendDeferredSql(events.length), values);
    await this.wakeReaders();
    return recorded;
  }

  /**
   * One statement: the expected-version check (none when null) and the insert.
   */
  private appendStatement(
    streamId: string,
    expectedVersion: number | null,
    events: NewEvent[],
  ): { sql: string; values: unknown[] } {
    const values: unknown[] = [streamId, expectedVersion];
    this.pushEvents(values, events);
    return { sql: this.appendSql(events.length), values };
  }

  /** Each event's id (new), type, data and metadata (the active trace context under its own), four values an event. */
  private pushEvents(values: unknown[], events: NewEvent[]): void {
    const traceContext = activeTraceContext();
    for (const event of events) {
      const metadata = { ...traceContext, ...event.metadata };
      values.push(newId('event'), event.type, JSON.stringify(event.data), JSON.stringify(metadata));
    }
  }

  /** The log readers hear of this log's new events once the transaction has committed. */
  private wakeReaders(): Promise<void> {
    return this.uow.notifyOnCommit(EVENTS_CHANNEL, this.schema);
  }

  /** Statement texts by kind and number (of events; the limit of a read): made once, so that naming the prepared statement finds a hashed string. */
  private readonly texts = new Map<string, string>();

  private text(
    kind: 'append' | 'at end' | 'deferred' | 'read' | 'read typed',
    count: number,
    make: () => string,
  ): string {
    const key = `${kind}:${count}`;
    let sql = this.texts.get(key);
    if (sql === undefined) this.texts.set(key, (sql = make()));
    return sql;
  }

  private appendSql(count: number): string {
    return this.text('append', count, () => {
      return `WITH current AS (SELECT coalesce(max(stream_version), 0) AS version FROM ${this.schema}.events WHERE stream_id = $1),
              appended AS (
                INSERT INTO ${this.schema}.events (event_id, stream_id, stream_version, type, data, metadata)
                SELECT e.event_id, $1, current.version + e.n, e.type, e.data, e.metadata
                  FROM current, (VALUES ${eventTuples(count, 2)}) AS e (event_id, n, type, data, metadata)
                 WHERE $2::integer IS NULL OR current.version = $2::integer
                RETURNING ${COLUMNS})
         SELECT * FROM appended ORDER BY stream_version`;
    });
  }

  /**
   * appendDeferred's statement: at the stream's end whatever its version, answering nothing (appendSql returns
   * every column of the rows, their data among them, which a deferred append's caller never reads).
   */
  private appendAtEndSql(count: number): string {
    return this.text('at end', count, () => {
      return `INSERT INTO ${this.schema}.events (event_id, stream_id, stream_version, type, data, metadata)
              SELECT e.event_id, $1, current.version + e.n, e.type, e.data, e.metadata
                FROM (SELECT coalesce(max(stream_version), 0) AS version FROM ${this.schema}.events WHERE stream_id = $1) AS current,
                     (VALUES ${eventTuples(count, 1)}) AS e (event_id, n, type, data, metadata)`;
    });
  }

  private appendDeferredSql(count: number): string {
    return this.text('deferred', count, () => {
      // The version the last parameter: one statement text per number of events, whatever the stream's version.
      const at = 1 + count * 4 + 1;
      const tuples = Array.from(
        { length: count },
        (_, i) =>
          `($${2 + i * 4}, $1, $${at}::integer + ${i + 1}, $${3 + i * 4}, $${4 + i * 4}::jsonb, $${5 + i * 4}::jsonb)`,
      );
      return `INSERT INTO ${this.schema}.events (event_id, stream_id, stream_version, type, data, metadata) VALUES ${tuples.join(', ')}`;
    });
  }

  /**
   * Queues this transaction behind any other writing the same stream, until
   * commit. Commands on one aggregate then run one after another instead of
   * failing their version check; the check stays as the safety net.
   */
  async lockStream(streamId: string): Promise<void> {
    await this.uow.query(LOCK_STREAM, [this.lockKey(streamId)]);
  }

  /** lockStream then readStream, in one round trip (the read's snapshot is taken after the lock). */
  async lockAndReadStream(streamId: string): Promise<RecordedEvent[]> {
    const [, rows] = await this.uow.batch([
      { sql: LOCK_STREAM, params: [this.lockKey(streamId)] },
      { sql: this.readStreamSql, params: [streamId] },
    ]);
    return (rows as unknown as EventRow[]).map((r) => this.toRecorded(r));
  }

  /**
   * lockStream then readStreamEnds, and with them any further reads the caller decides on (each
   * one's rows after the events), in one round trip.
   */
  async lockAndReadStreamEnds(
    streamId: string,
    alongside: Statement[] = [],
  ): Promise<{ events: RecordedEvent[]; alongside: Array<Array<Record<string, unknown>>> }> {
    const [, rows, ...rest] = await this.uow.batch([
      { sql: LOCK_STREAM, params: [this.lockKey(streamId)] },
      { sql: this.readStreamEndsSql, params: [streamId] },
      ...alongside,
    ]);
    return { events: (rows as unknown as EventRow[]).map((r) => this.toRecorded(r)), alongside: rest };
  }

  private lockKey(streamId: string): string {
    return `${this.schema}/${streamId}`;
  }

  private get readStreamEndsSql(): string {
    return `(SELECT ${COLUMNS} FROM ${this.schema}.events WHERE stream_id = $1 ORDER BY stream_version LIMIT 1)
       UNION
       (SELECT ${COLUMNS} FROM ${this.schema}.events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1)
       ORDER BY stream_version`;
  }

  private get readStreamSql(): string {
    return `SELECT ${COLUMNS} FROM ${this.schema}.events WHERE stream_id = $1 ORDER BY stream_version`;
  }

  /**
   * The first and the last event of a stream (one when it has one, none when it has none): enough
   * for an aggregate whose every event carries its whole state after it, such as a wallet's balance,
   * however long its history.
   */
  async readStreamEnds(streamId: string): Promise<RecordedEvent[]> {
    const rows = await this.uow.query<EventRow>(this.readStreamEndsSql, [streamId]);
    return rows.map((r) => this.toRecorded(r));
  }

  /** Whether the stream has an event: one index probe, no event read. */
  async streamExists(streamId: string): Promise<boolean> {
    const [row] = await this.uow.query<{ exists: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM ${this.schema}.events WHERE stream_id = $1) AS exists`,
      [streamId],
    );
    return row.exists;
  }

  /**
   * The streams whose id starts with `prefix`, in the order of their first events after `after` (a global
   * position): the aggregates of one kind, for a read model's rebuild (read-model-rebuild.ts).
   */
  async streamsStartingWith(
    prefix: string,
    after: string,
    limit: number,
  ): Promise<Array<{ streamId: string; globalPosition: string }>> {
    const rows = await this.uow.query<{ stream_id: string; global_position: string }>(
      `SELECT stream_id, global_position FROM ${this.schema}.events
        WHERE stream_version = 1 AND left(stream_id, length($1)) = $1 AND global_position > $2::bigint
        ORDER BY global_position LIMIT $3`,
      [prefix, after, limit],
    );
    return rows.map((r) => ({ streamId: r.stream_id, globalPosition: String(r.global_position) }));
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    const rows = await this.uow.query<EventRow>(this.readStreamSql, [streamId]);
    return rows.map((r) => this.toRecorded(r));
  }

  /**
   * Events after the checkpoint, in (transaction, position) order, and only those
   * no still-running transaction can precede: a reader that resumes from the last
   * event it saw never misses one.
   */
  async readAll(after: Checkpoint = START, limit = 500): Promise<RecordedEvent[]> {
    // Qualified column names throughout: a bare ORDER BY transaction_id would bind to the
    // text alias in the select list and sort "1000" before "962", skipping events.
    const rows = await this.uow.query<EventRow>(
      `SELECT ${COLUMNS} FROM ${this.schema}.events e
        WHERE (e.transaction_id, e.global_position) > ($1::xid8, $2::bigint)
          AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY e.transaction_id, e.global_position
        LIMIT $3`,
      [after.transactionId, after.globalPosition, limit],
    );
    return rows.map((r) => this.toRecorded(r));
  }

  /**
   * readAll as one statement to send with others (UnitOfWork.batch): the events after a subscription's
   * checkpoint, read from the checkpoint row itself, and none unless this transaction holds (or now
   * takes) the advisory lock `lockKey` names (a subscription's lock on this source). Rows for recorded().
   * With `types`, events of other types come without their data (null) and metadata (empty).
   */
  readAfterCheckpointStatement(
    subscription: string,
    lockKey: string,
    limit: number,
    types?: readonly string[],
  ): Statement {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`invalid read limit ${limit}`);
    // The limit a literal, not a parameter: for a parameter PostgreSQL's generic plan supposes a tenth of the
    // log is read, so it chose a custom plan at every poll (120-230 microseconds of planning a poll;
    // docs/performance.md, round eleven). One text per limit (the subscription's batch size, rarely twice it).
    const sql = this.text(types ? 'read typed' : 'read', limit, () => {
      // The checkpoint and the lock as uncorrelated scalar subqueries: each runs once, before the scan,
      // so the row comparison is an index condition as readAll's is. No checkpoint row: no events.
      const checkpoint = (column: string) =>
        `(SELECT c.${column} FROM platform.subscription_checkpoints c WHERE c.subscription = $1 AND c.source = $2)`;
      // `later`: the stream's previous version comes after this event in read order (inStreamOrder); one probe
      // of the (stream, version) index an event.
      return `SELECT ${types ? COLUMNS_OF_TYPES : COLUMNS},
                     e.stream_version > 1 AND EXISTS (
                       SELECT 1 FROM ${this.schema}.events p
                        WHERE p.stream_id = e.stream_id AND p.stream_version = e.stream_version - 1
                          AND (p.transaction_id, p.global_position) > (e.transaction_id, e.global_position)) AS later
                FROM ${this.schema}.events e
               WHERE (e.transaction_id, e.global_position) > (${checkpoint('transaction_id')}, ${checkpoint('global_position')})
                 AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                 AND (SELECT pg_try_advisory_xact_lock(hashtextextended($3, 7346003)))
               ORDER BY e.transaction_id, e.global_position
               LIMIT ${limit}`;
    });
    return { sql, params: types ? [subscription, this.schema, lockKey, types] : [subscription, this.schema, lockKey] };
  }

  /**
   * Rows of readAfterCheckpointStatement as the events to hand over now, each stream's in version order,
   * and how many of the rows they are (inStreamOrder).
   */
  recorded(rows: Array<Record<string, unknown>>): StreamOrdered {
    const read = rows as unknown as Array<EventRow & { later: boolean }>;
    return inStreamOrder(
      read.map((r) => this.toRecorded(r)),
      read.map((r) => r.later),
    );
  }

  /**
   * True when every committed event is readable through readAll. Transaction
   * ids are cluster-wide, so any transaction still running anywhere in the
   * PostgreSQL cluster can briefly hold the read horizon back.
   */
  async allVisible(): Promise<boolean> {
    const [row] = await this.uow.query<{ visible: boolean }>(
      `SELECT NOT EXISTS (SELECT 1 FROM ${this.schema}.events WHERE transaction_id >= pg_snapshot_xmin(pg_current_snapshot())) AS visible`,
    );
    return row.visible;
  }

  private toRecorded(row: EventRow): RecordedEvent {
    return {
      eventId: row.event_id,
      source: this.schema,
      globalPosition: String(row.global_position),
      transactionId: row.transaction_id,
      streamId: row.stream_id,
      streamVersion: row.stream_version,
      type: row.type,
      data: row.data,
      metadata: row.metadata,
      recordedAt: new Date(row.recorded_at).toISOString(),
    };
  }
}

export function checkpointOf(event: Pick<RecordedEvent, 'transactionId' | 'globalPosition'>): Checkpoint {
  return { transactionId: event.transactionId, globalPosition: event.globalPosition };
}
