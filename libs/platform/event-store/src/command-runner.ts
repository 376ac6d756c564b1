// load stream -> decide -> append (ARCHITECTURE: Inside one service).
import { fold, type Decider, type Event } from '@mm/platform/decider';
import { DEADLOCK_DETECTED, sqlState, UNIQUE_VIOLATION, type UnitOfWork } from '@mm/platform/database';
import { EVENTS_STREAM_VERSION_UNIQUE } from './events-table.migration';
import { ConcurrencyError, type EventMetadata, type EventStore, type RecordedEvent } from './event-store';

export interface Decision<E extends Event, State, Row = void> {
  /** State before the command. */
  before: State;
  /** State after the new events. */
  state: State;
  events: Array<RecordedEvent<E['type'], E['data']>>;
  version: number;
  /** The read-model row the inline projection last returned, so the caller need not read it back. */
  row?: Row;
}

/** Updates the service's own read models from one new event, in the command's transaction; may return the row it wrote. */
export type InlineProjection<E extends Event, Row = void> = (
  event: RecordedEvent<E['type'], E['data']> & E,
) => Promise<Row | void>;

export interface DecideOptions {
  /**
   * The stream id was minted for this command (a fresh TypeID): there is no history
   * to lock or read, and the append is refused if the stream exists after all.
   */
  newStream?: boolean;
  /**
   * The append travels with the transaction's next statement instead of alone, for a command whose
   * projections need only the events' data and versions: with newStream, as the stream's first events
   * (EventStore.appendNewStreamDeferred); else after the history read under the stream's lock
   * (EventStore.appendAfterDeferred), for a stream every writer of which takes that lock.
   */
  deferAppend?: boolean;
  /**
   * Called once the stream's lock and history read are queued and before they are sent: statements it
   * queues at once travel in the same round trip, after them (so under the stream's lock).
   */
  alongsideRead?: () => void;
  /**
   * The stream as the caller already read it under the stream's lock, in this transaction: for an aggregate
   * whose every event carries what its state needs from the ones before (a wallet's balance), read by its
   * first and last events rather than whole. `version` is the stream's last version, which the append follows.
   */
  read?: { events: RecordedEvent[]; version: number };
}

export async function decideAndAppend<Command, E extends Event, State, Row = void>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, E, State>,
  /** The command, or how to make it from the stream's current state (read under the stream's lock). */
  command: Command | ((state: State) => Command),
  metadata: EventMetadata,
  project?: InlineProjection<E, Row>,
  options: DecideOptions = {},
): Promise<Decision<E, State, Row>> {
  let history: RecordedEvent[] = [];
  let version = 0;
  if (options.read) {
    ({ events: history, version } = options.read);
  } else if (!options.newStream) {
    const read = store.lockAndReadStream(streamId);
    options.alongsideRead?.();
    history = await read;
    version = history.length;
  }
  const before = fold(decider, history as unknown as E[]);
  const decided = decider.decide(
    typeof command === 'function' ? (command as (state: State) => Command)(before) : command,
    before,
  );
  const newEvents = decided.map((e) => ({ type: e.type, data: e.data, metadata }));
  const events = options.deferAppend
    ? await store.appendAfterDeferred(streamId, version, newEvents)
    : await store.append(streamId, version === 0 ? 'no_stream' : version, newEvents);
  let row: Row | undefined;
  for (const event of events) row = (await project?.(event as RecordedEvent<E['type'], E['data']> & E)) ?? row;
  return {
    before,
    state: decided.reduce(decider.evolve, before),
    events: events as Decision<E, State, Row>['events'],
    version: version + decided.length,
    row,
  };
}

/** The current state of a stream, or undefined if it has no events. */
export async function loadState<E extends Event, State>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, E, State>, 'initialState' | 'evolve'>,
): Promise<{ state: State; version: number } | undefined> {
  const history = await store.readStream(streamId);
  if (history.length === 0) return undefined;
  return { state: fold(decider, history as unknown as E[]), version: history.length };
}

/**
 * A lost version race (also one of a deferred append, met by whichever statement it travelled
 * with), or a deadlock PostgreSQL broke by aborting this transaction: running again may succeed.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ConcurrencyError || sqlState(error) === DEADLOCK_DETECTED) return true;
  return (
    sqlState(error) === UNIQUE_VIOLATION &&
    (error as { constraint?: unknown }).constraint === EVENTS_STREAM_VERSION_UNIQUE
  );
}

/**
 * Runs fn in its own transaction, again from the start when another writer
 * appended to the same stream first. Inside an outer transaction it joins it and
 * leaves the retry to the outer owner (a failed statement aborts the whole transaction).
 */
export async function runCommand<T>(uow: UnitOfWork, fn: () => Promise<T>, attempts = 5): Promise<T> {
  if (uow.inTransaction) return fn();
  for (let attempt = 1; ; attempt++) {
    try {
      return await uow.run(fn);
    } catch (error) {
      if (!isRetryable(error) || attempt >= attempts) throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}
