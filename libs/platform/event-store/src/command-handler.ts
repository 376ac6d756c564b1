// The one path every command takes, in every service (ARCHITECTURE: Inside one service): load the stream
// under its lock, decide, append, evolve, then what follows a decision in the same transaction (the read
// models, the partner events, the timers), always in that order. A context describes its aggregate once;
// its use cases only say which command to run on which stream.
import type { Decider, Event } from '@mm/platform/decider';
import type { EventStore, RecordedEvent } from './event-store';
import { decideAndAppend, type DecideOptions, type Decision, type InlineProjection } from './command-runner';
import { publishPartnerEvents, type PartnerResource } from './partner-events';

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
