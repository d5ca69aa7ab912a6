import type { EventStore, NewEvent, RecordedEvent } from '#event-store/event-store.port.js';
import { EventStoreDecorator } from '#event-store/event-store-decorator.js';
import type { CustomerKeyring } from './customer-keys.js';
import { decryptPii, encryptPii, isPiiValue, type PiiValue, placeholderFor } from './pii-cipher.js';
import { PERSONAL_DATA, type PersonalDataEntry } from './personal-data-registry.js';

/** The event that records an erasure (its data: `{ id: "cus_…", erased_at }`). */
export const CUSTOMER_ERASED = 'customer.erased';
export const BUYER_FORGOTTEN = 'checkout_buyer.forgotten';

/**
 * The event store as the service sees it (docs/personal-data.md): on append, each personal value of
 * an event (PERSONAL_DATA) is replaced by its ciphertext under the customer's data key; on read, each
 * such value is opened again, or replaced by its placeholder once the key is destroyed. Deciders,
 * projectors, the feed and webhooks see plaintext (or placeholders) without knowing; the adapter, its
 * files and the audit chain only ever hold ciphertext. Events of other types pass untouched.
 */
export class PersonalDataEventStore extends EventStoreDecorator {
  constructor(
    /** The store it decorates: the events as stored (what the audit chain hashes). */
    inner: EventStore,
    readonly keys: CustomerKeyring,
  ) {
    super(inner);
  }

  protected written(events: NewEvent[]): Promise<NewEvent[]> {
    return this.sealEvents(events);
  }

  protected read(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    return this.openEvents(events);
  }

  private async sealEvents(events: NewEvent[]): Promise<NewEvent[]> {
    let out: NewEvent[] | null = null;
    for (let i = 0; i < events.length; i++) {
      const entry = PERSONAL_DATA.get(events[i].type);
      if (!entry) continue;
      const sealed = await this.sealEvent(events[i], entry);
      if (sealed !== events[i]) (out ??= [...events])[i] = sealed;
    }
    return out ?? events;
  }

  private async sealEvent(event: NewEvent, entry: PersonalDataEntry): Promise<NewEvent> {
    const subject = entry.customer(event.data);
    if (!subject) return event;
    if (entry.placeholderWhenErased && (await this.keys.isErased(subject))) return { ...event, data: placeholdersAt(event.data, entry) };
    let data: Record<string, unknown> | null = null;
    for (const { path, placeholder } of entry.paths) {
      if (!hasValueAt(data ?? event.data, path)) continue;
      const key = await this.keys.keyForWrite(subject);
      data ??= structuredClone(event.data);
      replaceAt(data, path, (value) => encryptPii(key, subject, value, placeholder));
    }
    return data ? { ...event, data } : event;
  }

  private async openEvents(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    let out: RecordedEvent[] | null = null;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.type === CUSTOMER_ERASED && typeof e.data.id === 'string') {
        this.keys.forgetErased(e.data.id);
        for (const subject of Array.isArray(e.data.subjects) ? e.data.subjects : []) if (typeof subject === 'string') this.keys.forgetErased(subject);
      }
      // A hosted checkout's session never tied to a customer, its key destroyed on schedule (buyerDataDeadline).
      if (e.type === BUYER_FORGOTTEN && typeof e.data.id === 'string') this.keys.forgetErased(e.data.id);
      // Only the registered types are walked; a type registered later still opens (its old events hold plaintext).
      const entry = PERSONAL_DATA.get(e.type);
      if (!entry) continue;
      let data = await this.openValue(e.data);
      // Written in clear before encryption existed: an erased subject's values read as placeholders all the same.
      const subject = entry.customer(e.data);
      if (subject && (await this.keys.erasedForRead(subject))) data = placeholdersAt(data as Record<string, unknown>, entry);
      if (data !== e.data) (out ??= [...events])[i] = { ...e, data: data as Record<string, unknown> };
    }
    return out ?? events;
  }

  /** The value with every encrypted part opened (or its placeholder); the same object when it holds none. */
  private async openValue(value: unknown): Promise<unknown> {
    if (!value || typeof value !== 'object') return value;
    if (isPiiValue(value)) return this.openPii(value);
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const v = await this.openValue(value[i]);
        if (v !== value[i]) (out ??= [...value])[i] = v;
      }
      return out ?? value;
    }
    let out: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(value)) {
      const opened = await this.openValue(v);
      if (opened !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = opened;
    }
    return out ?? value;
  }

  private async openPii(value: PiiValue): Promise<unknown> {
    const key = await this.keys.keyForRead(value.c);
    return key ? decryptPii(key, value) : placeholderFor(value);
  }
}

/** The values at the entry's paths replaced by their placeholders (a copy when any was there). */
function placeholdersAt(data: Record<string, unknown>, entry: PersonalDataEntry): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const { path, placeholder } of entry.paths) {
    if (!hasValueAt(out ?? data, path)) continue;
    out ??= structuredClone(data);
    replaceAt(out, path, () => (placeholder && typeof placeholder === 'object' ? {} : placeholder));
  }
  return out ?? data;
}

/** A path's segment `*` stands for every element of an array. */
function hasValueAt(at: unknown, path: readonly string[]): boolean {
  if (path.length === 0) return at !== undefined && at !== null && !isPiiValue(at);
  if (!at || typeof at !== 'object') return false;
  const [k, ...rest] = path;
  if (k === '*') return Array.isArray(at) && at.some((v) => hasValueAt(v, rest));
  return !Array.isArray(at) && hasValueAt((at as Record<string, unknown>)[k], rest);
}

/** Replaces, in place, each present value (neither null nor already encrypted) the path reaches. */
function replaceAt(at: unknown, path: readonly string[], replace: (value: unknown) => unknown): void {
  if (!at || typeof at !== 'object') return;
  const [k, ...rest] = path;
  const keys = k === '*' ? (Array.isArray(at) ? at.map((_, i) => i) : []) : Array.isArray(at) ? [] : [k];
  for (const key of keys) {
    const holder = at as Record<string | number, unknown>;
    if (rest.length === 0) {
      const value = holder[key];
      if (value !== undefined && value !== null && !isPiiValue(value)) holder[key] = replace(value);
    } else replaceAt(holder[key], rest, replace);
  }
}

/** The adapter under any decorators of the port: the events as stored (ciphertext), for the audit chain and the files. */
export function storedEventStore(events: EventStore): EventStore {
  let at = events as EventStore & { inner?: EventStore };
  while (at.inner) at = at.inner as EventStore & { inner?: EventStore };
  return at;
}
