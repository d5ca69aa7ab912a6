/** A fact decided by an aggregate: the type is the public event type (`product.created`). */
export interface DomainEvent<T extends string = string, D extends object = object> {
  type: T;
  data: D;
}

/**
 * An aggregate as a decider: pure functions, no I/O, no clock (time arrives in the command).
 * `decide` returns the events a command causes, or throws a DomainError and nothing is written.
 */
export interface Decider<Command, State, Event extends DomainEvent> {
  readonly initialState: State;
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
}

export function fold<S, E extends DomainEvent>(decider: Decider<unknown, S, E>, events: E[]): S {
  return events.reduce((s, e) => decider.evolve(s, e), decider.initialState);
}
