import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { CollectionSpec, DocumentWrite } from '#read-store/read-store.port.js';

/** A read-model document. `_`-prefixed fields are internal and never leave the service. */
export type Doc = Record<string, unknown> & { id: string };

/** An event's documents already projected, by id: their state before and after it. */
export type RelatedDocs = ReadonlyMap<string, { before: Doc | null; after: Doc | null }>;

/** The runner stamps every document with the position of the last event applied to it. */
export const APPLIED_AT = '_position';

/**
 * A projector: a pure `(document, event) → document` function per document an event touches,
 * plus what the runner needs to find those documents.
 */
export interface Projection<D extends Doc = Doc> {
  /** Also the checkpoint name; `projections rebuild <name>` uses it. */
  readonly name: string;
  /**
   * For public resources: the stream category whose aggregate this projection renders
   * (`product` for streams `product-prod_…`). The event feed uses it for `data.object`.
   */
  readonly category?: string;
  /**
   * For public resources: the `object` name, which is also the prefix of the event types whose
   * `data.object` in the feed is this resource (`charge.paid` → the charge). Defaults to `category`.
   */
  readonly object?: string;
  /** The collection `project` writes to, and any others `derive` writes to. */
  readonly collection: string;
  readonly collections: CollectionSpec[];
  /** Ids (in `collection`) of the documents this event changes; [] when it does not concern this projection. */
  documentIds(event: RecordedEvent): string[];
  /**
   * The document after the event; null deletes it. Must be pure. `related`: the event's documents
   * projected before this one (in `documentIds`' order), before and after it, for a document whose
   * change follows from theirs (a day's totals from a subscription's change). A document the event
   * had already reached (redelivery) is absent from it, as is the document itself.
   */
  project(doc: D | null, event: RecordedEvent, id: string, related?: RelatedDocs): D | null;
  /** Further documents that follow from the change (pure as well), e.g. the public event entry. */
  derive?(event: RecordedEvent, after: D | null, before: D | null, related?: RelatedDocs): DocumentWrite[];
}

/**
 * The projections a service runs, for its composition root to hand to the platform: the list, and
 * the module a pipeline thread loads the same list from (it exports `allProjections()`).
 */
export interface ServiceProjections {
  all(): Projection[];
  /** URL of the module exporting `allProjections` (its own `import.meta.url`). */
  module: string;
}

/** A document as the API shows it: internal `_` fields removed. */
export function toPublic<T extends Record<string, unknown>>(doc: T): T {
  const out: Record<string, unknown> = {};
  for (const k in doc) if (k.charCodeAt(0) !== 95 /* _ */ && Object.prototype.hasOwnProperty.call(doc, k)) out[k] = doc[k];
  return out as T;
}
