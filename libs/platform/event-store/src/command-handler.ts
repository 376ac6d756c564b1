// The one path every command takes, in every service (ARCHITECTURE: Inside one service): load the stream
// under its lock, decide, append, evolve, then what follows a decision in the same transaction (the read
// models, the partner events, the timers), always in that order. A context describes its aggregate once;
// its use cases only say which command to run on which stream.
import type { Decider, Event } from '@mm/platform/decider';
import type { EventStore, RecordedEvent } from './event-store';
import { decideAndAppend, type DecideOptions, type Decision, type InlineProjection } from './command-runner';
import { publishPartnerEvents, type PartnerResource } from './partner-events';
import { orphanRows, type ReadModelDefinition } from './read-model-rebuild';

/** Where a command ran: the tenant and the aggregate's own id (not its stream id). */
export interface CommandContext {
  projectId: string;
  id: string;
}

/** One thing a decision that made events sets off, in the command's transaction. */
export type AfterDecision<E extends Event, State, Row = void> = (
  decision: Decision<E, State, Row>,
  context: CommandContext,
) => Promise<void>;

export interface CommandHandlerDefinition<Command, E extends Event, State, Row = void> {
  decider: Decider<Command, E, State>;
  streamId(id: string): string;
  /** Per new event, right after the append; the row it returns comes back as Decision.row. */
  project?: InlineProjection<E, Row>;
  /** Once the events are appended and projected, in order; skipped when the command decided nothing. */
  then?: ReadonlyArray<AfterDecision<E, State, Row>>;
  /** Options every command of this aggregate takes (a caller's options add to them). */
  options?: DecideOptions;
}

/** A read model that an aggregate's commands write, one row per aggregate, as a rebuild replays it. */
export interface AggregateReadModel<E extends Event, State, Row> {
  /** Its name in the operator's route and in `npm run rebuild`. */
  name: string;
  /** Its table, schema-qualified, and the column that holds the aggregate's id (`id` by default). */
  table: string;
  idColumn?: string;
  /** The inline projection (`project`) writes it, event by event. */
  inline?: boolean;
  /** This step of `then` writes it: given the whole history as one decision from the start. */
  step?: AfterDecision<E, State, Row>;
}

const IDENTIFIER = /^[a-z_]+(\.[a-z_]+)?$/;

/** The command, or how to make it from the stream's current state (read under the stream's lock). */
export type CommandOf<Command, State> = Command | ((state: State) => Command);

export class CommandHandler<Command, E extends Event, State, Row = void> {
  constructor(
    private readonly store: EventStore,
    private readonly definition: CommandHandlerDefinition<Command, E, State, Row>,
  ) {}

  /** Joins the caller's transaction (runCommand owns retries); the decision, with the state after it. */
  async handle(
    projectId: string,
    id: string,
    command: CommandOf<Command, State>,
    options: DecideOptions = {},
  ): Promise<Decision<E, State, Row>> {
    const { decider, streamId, project, then = [] } = this.definition;
    const decision = await decideAndAppend(this.store, streamId(id), decider, command, { projectId }, project, {
      ...this.definition.options,
      ...options,
    });
    if (decision.events.length === 0) return decision;
    for (const step of then) await step(decision, { projectId, id });
    return decision;
  }

  /**
   * One of the read models these commands write, for its rebuild from the log (read-model-rebuild.ts): the
   * aggregate's row deleted, then written again by the same code its commands run, so that what a rebuild
   * writes is what the commands wrote.
   */
  readModel({ name, table, idColumn = 'id', inline, step }: AggregateReadModel<E, State, Row>): ReadModelDefinition {
    if (!IDENTIFIER.test(table) || !IDENTIFIER.test(idColumn)) throw new Error(`invalid table ${table}.${idColumn}`);
    const { decider, streamId, project } = this.definition;
    const streamPrefix = streamId('');
    return {
      name,
      tables: [table],
      streamPrefix,
      clear: async (id) => {
        await this.store.uow.query(`DELETE FROM ${table} WHERE ${idColumn} = $1`, [id]);
      },
      replay: async (events, context) => {
        const history = events as Decision<E, State, Row>['events'];
        let row: Row | undefined;
        if (inline && project)
          for (const event of history) row = (await project(event as Parameters<typeof project>[0])) ?? row;
        if (!step) return;
        const before = decider.initialState();
        const state = history.reduce((s, e) => decider.evolve(s, e as unknown as E), before);
        await step({ before, state, events: history, version: events[events.length - 1].streamVersion, row }, context);
      },
      removeOrphans: orphanRows(this.store, table, idColumn, streamPrefix),
    };
  }
}

/**
 * The partner events of a decision whose resource's partner shape is a function of its state: each event is
 * published with the resource as it stood right after that event (spec: Events; ADR 0018). `extra` adds
 * what an event's envelope needs beyond the shape (changed fields, names that depend on the change).
 */
export function publishStateViews<E extends Event, State>(
  store: EventStore,
  decider: Pick<Decider<unknown, E, State>, 'evolve'>,
  view: (state: State) => Record<string, unknown>,
  extra?: (event: RecordedEvent & E, before: State, after: State) => Partial<PartnerResource>,
): AfterDecision<E, State, unknown> {
  return async (decision, { id }) => {
    const resources = new Map<string, PartnerResource>();
    let state = decision.before;
    for (const event of decision.events as unknown as Array<RecordedEvent & E>) {
      const before = state;
      state = decider.evolve(state, event);
      resources.set(event.eventId, { resourceId: id, data: view(state), ...extra?.(event, before, state) });
    }
    await publishPartnerEvents(store, decision.events, async (event) => resources.get(event.eventId));
  };
}
