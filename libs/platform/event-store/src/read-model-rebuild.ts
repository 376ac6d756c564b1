// Rebuilding a read model from its service's log (docs/operations.md, Rebuilding a read model): after a bug in
// a projection, or rows edited by hand, an operator has what the log says written again. Each aggregate the read
// model shows is rebuilt alone, in a transaction of its own, under the lock its commands take: its rows are
// deleted and written again from its whole history, so the service keeps answering throughout (a reader sees
// the aggregate as it was or as rebuilt, never half; a command on it waits the few milliseconds its rebuild
// holds the lock), and the rebuild never holds two locks a command could take in the other order. Rows that no
// stream made are deleted last.
import type { CommandContext } from './command-handler';
import type { EventStore, RecordedEvent } from './event-store';

export interface ReadModelDefinition {
  /** Its name in the operator's route and in `npm run rebuild -- <service> <name>`. */
  readonly name: string;
  /** The tables it writes, schema-qualified. */
  readonly tables: readonly string[];
  /** Stream ids of the aggregates it shows are this prefix and the aggregate's id. */
  readonly streamPrefix: string;
  /** In the aggregate's rebuild transaction: deletes what the read model holds for it. */
  clear(id: string): Promise<void>;
  /** Then writes it again from the aggregate's whole history, as its commands would have. */
  replay(events: RecordedEvent[], context: CommandContext): Promise<void>;
  /** Once every aggregate is rebuilt: deletes the rows whose aggregate has no stream; how many. */
  removeOrphans(): Promise<number>;
}

export interface ReadModelRebuilt {
  readModel: string;
  /** Aggregates rebuilt. */
  streams: number;
  /** Rows deleted because no stream made them. */
  orphansRemoved: number;
  tookMs: number;
}

/** A service's rebuildable read models, with the log they are rebuilt from. */
export interface ServiceReadModels {
  service: string;
  store: EventStore;
  readModels: readonly ReadModelDefinition[];
}

/** The read models of the services this process runs (every service in platform mode, one in distributed mode). */
export class ReadModels {
  private readonly services = new Map<string, ServiceReadModels>();

  /** `running`: the services of this process, whether or not they have read models to rebuild. */
  constructor(private readonly running: readonly string[]) {}

  register(entry: ServiceReadModels): void {
    const known = this.services.get(entry.service);
    this.services.set(
      entry.service,
      known ? { ...known, readModels: [...known.readModels, ...entry.readModels] } : entry,
    );
  }

  /** The service's read models; undefined for a service this process does not run. */
  of(service: string): readonly ReadModelDefinition[] | undefined {
    if (!this.running.includes(service)) return undefined;
    return this.services.get(service)?.readModels ?? [];
  }

  /** Each of the service's read models, or the one named, one after the other. */
  async rebuild(service: string, name?: string): Promise<ReadModelRebuilt[]> {
    const entry = this.services.get(service);
    if (!entry) return [];
    const chosen = entry.readModels.filter((m) => name === undefined || m.name === name);
    const rebuilt: ReadModelRebuilt[] = [];
    for (const readModel of chosen) rebuilt.push(await rebuildReadModel(entry.store, readModel));
    return rebuilt;
  }
}

/** How many stream ids one read of the log lists. */
const PAGE = 500;

/** Every aggregate of the read model, one transaction each, then the orphans (the header says why). */
export async function rebuildReadModel(store: EventStore, readModel: ReadModelDefinition): Promise<ReadModelRebuilt> {
  const { uow } = store;
  const startedAt = Date.now();
  let streams = 0;
  let after = '0';
  for (;;) {
    const page = await store.streamsStartingWith(readModel.streamPrefix, after, PAGE);
    for (const { streamId } of page) {
      await uow.run(async () => {
        // A row others refer to is deleted and written again: their references are checked at the commit.
        await uow.query('SET CONSTRAINTS ALL DEFERRED');
        const events = await store.lockAndReadStream(streamId);
        const id = streamId.slice(readModel.streamPrefix.length);
        // Every command records its project; a stream without one is left as it is rather than emptied.
        const projectId = events[0]?.metadata.projectId;
        if (!projectId) return;
        await readModel.clear(id);
        await readModel.replay(events, { projectId, id });
      });
    }
    streams += page.length;
    if (page.length < PAGE) break;
    after = page[page.length - 1].globalPosition;
  }
  const orphansRemoved = await uow.run(() => readModel.removeOrphans());
  return { readModel: readModel.name, streams, orphansRemoved, tookMs: Date.now() - startedAt };
}

/**
 * The statement that deletes a table's rows whose aggregate has no stream in the service's log: the row's
 * `idColumn` is the aggregate's id. A row is written in the transaction that appends its stream's first event,
 * so a statement that sees the row sees the event.
 */
export function orphanRows(
  store: EventStore,
  table: string,
  idColumn: string,
  streamPrefix: string,
): () => Promise<number> {
  return async () => {
    const rows = await store.uow.query(
      `DELETE FROM ${table} t WHERE NOT EXISTS
         (SELECT 1 FROM ${store.schema}.events e WHERE e.stream_id = $1 || t.${idColumn} AND e.stream_version = 1)
       RETURNING 1`,
      [streamPrefix],
    );
    return rows.length;
  };
}
