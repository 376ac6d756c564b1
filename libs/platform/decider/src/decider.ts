// The decider pattern (emmett): an aggregate is initialState + evolve + decide,
// pure functions with no I/O and no clock of their own.

export interface Event<Type extends string = string, Data = unknown> {
  type: Type;
  data: Data;
}

export interface Decider<Command, E extends Event, State> {
  initialState: () => State;
  evolve: (state: State, event: E) => State;
  /** Returns the new events, or throws the context's domain error. */
  decide: (command: Command, state: State) => E[];
}

export function fold<E extends Event, State>(
  decider: Pick<Decider<unknown, E, State>, 'initialState' | 'evolve'>,
  events: E[],
): State {
  return events.reduce(decider.evolve, decider.initialState());
}

/**
 * given(events).when(command).then(events) / thenThrows(error): decider
 * specifications that read like the spec's state tables.
 */
export function specFor<Command, E extends Event, State>(decider: Decider<Command, E, State>) {
  return (given: E[]) => ({
    when: (command: Command) => {
      const run = () => decider.decide(command, fold(decider, given));
      return {
        then: (expected: E[]) => expect(run()).toEqual(expected),
        thenThrows: (match: (error: unknown) => boolean) => {
          let thrown: unknown;
          try {
            run();
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeDefined();
          expect(match(thrown)).toBe(true);
        },
      };
    },
  });
}

/**
 * The default of a `decide` switch that has a case for every command: it does not compile while a command of
 * the union has no case, and throws should a value outside the union reach it at run time.
 */
export function unknownCommand(command: never): never {
  throw new Error(`unknown command ${JSON.stringify(command)}`);
}

/**
 * The default of an `evolve` switch that has a case for every event: it does not compile while an event of the
 * union has no case. A stream holds only its own decider's events, so at run time it is unreachable.
 */
export function unknownEvent<State>(_event: never, state: State): State {
  return state;
}
