import { expect } from '@jest/globals';
import { Decider, DomainEvent, fold } from '../decider.js';
import { DomainError } from '../errors.js';

/** Given-when-then for deciders: given(decider, past).when(command).then(expected) or .thenRejects(code). */
export function given<C, S, E extends DomainEvent>(decider: Decider<C, S, E>, past: E[] = []) {
  const state = fold(decider as Decider<unknown, S, E>, past);
  return {
    when(command: C) {
      const run = () => decider.decide(command, state);
      return {
        events: run,
        then(expected: E[] | ((events: E[]) => void)) {
          const events = run();
          if (typeof expected === 'function') expected(events);
          else expect(events).toEqual(expected);
          return events;
        },
        thenRejects(code: string, param?: string | null) {
          let error: unknown;
          try {
            run();
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe(code);
          if (param !== undefined) expect((error as DomainError).param).toBe(param);
          return error as DomainError;
        },
      };
    },
  };
}
