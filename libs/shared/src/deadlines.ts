/**
 * What the scheduler reads: every document that time will act on carries `_clock` (its test clock,
 * '' for real time), `_due_at` (ISO 8601; NO_DEADLINE when none) and `_due_kind`. Deadlines are
 * derived from events by the projectors, so they are as durable as the events and a rebuild brings
 * them back; one that passed while the service was down is simply due at the next start.
 */
export const NO_DEADLINE = '9999-12-31T23:59:59.999Z';

export interface Deadline {
  kind: string;
  at: string;
}

export interface DeadlineFields {
  _clock: string;
  _due_at: string;
  _due_kind: string | null;
  /**
   * Every pending deadline of the document, earliest first (`_due_at`/`_due_kind` are the first).
   * When the first decides nothing in a run, the scheduler runs the next one due at its own time
   * instead of hiding the document. Absent (a source with one deadline per document): only the first.
   */
  _deadlines?: Deadline[];
}

export const DEADLINE_INDEX = { fields: ['_clock', '_due_at'] };

export function deadlineFields(clock: string | null | undefined, deadline: Deadline | null): DeadlineFields {
  return { _clock: clock ?? '', _due_at: deadline?.at ?? NO_DEADLINE, _due_kind: deadline?.kind ?? null };
}

/** The deadline fields of a document with several candidate deadlines: all kept once, in time order (a tie keeps the candidates' order). */
export function deadlinesFields(clock: string | null | undefined, candidates: (Deadline | null)[]): Required<DeadlineFields> {
  const pending = candidates
    .filter((d, i): d is Deadline => d !== null && !candidates.slice(0, i).some((c) => c?.kind === d.kind && c.at === d.at))
    .map(({ kind, at }) => ({ kind, at }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { ...deadlineFields(clock, pending[0] ?? null), _deadlines: pending };
}

/** The earlier of two deadlines. */
export function earliest<T extends { at: string }>(a: T | null, b: T | null): T | null {
  if (!a) return b;
  if (!b) return a;
  return b.at < a.at ? b : a;
}
