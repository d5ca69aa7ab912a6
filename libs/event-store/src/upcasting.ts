import type { EventMetadata, EventStore, NewEvent, ReadAllOptions, RecordedEvent } from './event-store.port.js';
import { EventStoreDecorator } from './event-store-decorator.js';

/**
 * Event versions (docs/event-versions.md). Every stored event carries the schema version of its
 * data in `metadata.schema_version` (an integer; an event stored before versions existed has none and
 * reads as version 1). A type's shape changes by bumping its current version and registering an
 * upcaster from the previous one; reads bring every older event up to the current shape, one step at a
 * time, so deciders, projectors, `as_of`, the feed and webhooks only ever see the current shape.
 * Stored events are never rewritten.
 */

/** Where an event's schema version lives. */
export const SCHEMA_VERSION = 'schema_version';

/** One step of one type's shape: version `from` → `from + 1`. */
export interface Upcaster {
  type: string;
  from: number;
  to: number;
  /** The data in the next version's shape. Gets a copy it may change; must be pure and deterministic (replay). */
  up(data: Record<string, unknown>, metadata: EventMetadata): Record<string, unknown>;
}

export class EventVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventVersionError';
  }
}

/** The version an event says it was written in: 1 when it says none (stored before versions existed). */
export function storedVersion(metadata: EventMetadata): number {
  const v = metadata[SCHEMA_VERSION];
  return typeof v === 'number' ? v : 1;
}

/**
 * The current version of each event type (1 unless listed) and the upcasters that reach it. Checked
 * whole when built (at start-up): every step 1→2→…→current of a listed type present exactly once, no
 * step beyond the current version, none for an unlisted type; a gap refuses to start.
 */
export class EventVersions {
  /** Per type with a version above 1: its steps, index `from - 1`. */
  private readonly chains = new Map<string, Upcaster[]>();
  private readonly current = new Map<string, number>();

  constructor(current: Readonly<Record<string, number>>, upcasters: readonly Upcaster[]) {
    for (const [type, version] of Object.entries(current)) {
      if (!Number.isInteger(version) || version < 1) throw new EventVersionError(`${type}: current version must be an integer ≥ 1 (got ${String(version)})`);
      this.current.set(type, version);
    }
    for (const u of upcasters) {
      const version = this.current.get(u.type) ?? 1;
      if (!Number.isInteger(u.from) || u.from < 1 || u.to !== u.from + 1) throw new EventVersionError(`${u.type}: an upcaster goes from one version to the next (got ${u.from}→${u.to})`);
      if (u.to > version) throw new EventVersionError(`${u.type}: upcaster ${u.from}→${u.to} goes beyond the current version ${version}`);
      const chain = this.chains.get(u.type) ?? [];
      if (chain[u.from - 1]) throw new EventVersionError(`${u.type}: two upcasters ${u.from}→${u.to}`);
      chain[u.from - 1] = u;
      this.chains.set(u.type, chain);
    }
    for (const [type, version] of this.current) {
      const chain = this.chains.get(type) ?? [];
      for (let from = 1; from < version; from++) {
        if (!chain[from - 1]) throw new EventVersionError(`${type}: current version ${version} but no upcaster ${from}→${from + 1}`);
      }
    }
  }

  /** The version new events of `type` are written in. */
  currentVersion(type: string): number {
    return this.current.get(type) ?? 1;
  }

  /** The event as it is to be stored: stamped with its type's current version unless it already says one. */
  stamp<E extends NewEvent>(event: E): E {
    if (event.metadata[SCHEMA_VERSION] !== undefined) return event;
    return { ...event, metadata: { ...event.metadata, [SCHEMA_VERSION]: this.current.get(event.type) ?? 1 } };
  }

  /**
   * The event in its type's current shape: the same object when it already is (a type without
   * upcasters costs one map lookup), else a new one whose metadata says the current version.
   * An event of a version newer than this process knows is refused (written by a newer release).
   */
  upcast<E extends RecordedEvent>(event: E): E {
    const chain = this.chains.get(event.type);
    if (!chain) return event;
    const target = chain.length + 1;
    const from = storedVersion(event.metadata);
    if (from === target) return event;
    if (from > target || from < 1 || !Number.isInteger(from)) {
      throw new EventVersionError(`${event.type} ${event.streamId}@${event.revision}: stored as version ${String(from)}, this release reads up to ${target}`);
    }
    let data = structuredClone(event.data);
    for (let v = from; v < target; v++) data = chain[v - 1].up(data, event.metadata);
    return { ...event, data, metadata: { ...event.metadata, [SCHEMA_VERSION]: target } };
  }

  /** `upcast` over a read; the same array when nothing changed. */
  upcastAll<E extends RecordedEvent>(events: E[], parseOnly?: ReadonlySet<string>): E[] {
    if (this.chains.size === 0) return events;
    let out: E[] | null = null;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      // A type outside the reader's hint may come back unparsed (`{}`): nothing to upcast.
      if (parseOnly && !parseOnly.has(e.type)) continue;
      const up = this.upcast(e);
      if (up !== e) (out ??= [...events])[i] = up;
    }
    return out ?? events;
  }
}

/**
 * The event store port with event versions: appends stamp each event's schema version (the one place
 * every appender passes through), reads bring older events to the current shape. The adapter under it
 * (`inner`, see `storedEventStore`) keeps the events exactly as they were stored.
 */
export class UpcastingEventStore extends EventStoreDecorator {
  constructor(
    inner: EventStore,
    readonly versions: EventVersions,
  ) {
    super(inner);
  }

  protected written(events: NewEvent[]): NewEvent[] {
    return events.map((e) => this.versions.stamp(e));
  }

  protected read(events: RecordedEvent[], options?: ReadAllOptions): RecordedEvent[] {
    return this.versions.upcastAll(events, options?.parseOnly);
  }
}
