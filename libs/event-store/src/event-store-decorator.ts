import type { AppendResult, EventStore, ExpectedRevision, NewEvent, ReadAllOptions, RecordedEvent, StreamAppend } from './event-store.port.js';

/**
 * An event store that changes what goes down to the store it wraps (`inner`) and what comes up from
 * it, and passes everything else through: the service's personal-data and event-version layers
 * (`storedEventStore` walks `inner` down to the adapter).
 */
export abstract class EventStoreDecorator implements EventStore {
  readonly deleteStreamsOlderThan?: EventStore['deleteStreamsOlderThan'];

  constructor(readonly inner: EventStore) {
    if (inner.deleteStreamsOlderThan) this.deleteStreamsOlderThan = (prefix, before, limit) => inner.deleteStreamsOlderThan!(prefix, before, limit);
  }

  /** The events as the store below is given them. */
  protected abstract written(events: NewEvent[]): NewEvent[] | Promise<NewEvent[]>;

  /** The events as the callers above are given them (`options`: a readAll's, with its parseOnly hint). */
  protected abstract read(events: RecordedEvent[], options?: ReadAllOptions): RecordedEvent[] | Promise<RecordedEvent[]>;

  get kind(): string {
    return this.inner.kind;
  }

  get atomicMultiStream(): boolean {
    return this.inner.atomicMultiStream;
  }

  get auditChain() {
    return this.inner.auditChain;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(streamId, await this.written(events), expected);
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    const out: StreamAppend[] = [];
    for (const a of appends) out.push({ ...a, events: await this.written(a.events) });
    return this.inner.appendMany(out);
  }

  async readStream(streamId: string, fromRevision?: number): Promise<RecordedEvent[]> {
    return this.read(await this.inner.readStream(streamId, fromRevision));
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.read(await this.inner.readAll(options), options);
  }

  headPosition(): Promise<string | null> {
    return this.inner.headPosition();
  }

  onAppended(listener: () => void): () => void {
    return this.inner.onAppended(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
