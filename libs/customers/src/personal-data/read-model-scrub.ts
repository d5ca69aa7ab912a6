import type { ReadStore, Scalar } from '#read-store/read-store.port.js';
import { FEED_COLLECTION } from '#events/read-models/event.read-model.js';
import { ERASED_TEXT } from './pii-cipher.js';
import { erasedCustomerFields } from './placeholders.js';

/**
 * After an erasure (docs/personal-data.md): the read models that copied the customer's personal data
 * before its key was destroyed show the placeholders, exactly as a rebuild from the events — which
 * now read as placeholders — would write them (test/http/customer-erasure.http.spec.ts rebuilds and
 * compares). The customers' own documents are scrubbed by their projector on `customer.erased`;
 * here: the feed's entries whose `data.object` is the customer or one of its subscriptions, the
 * subscriptions' shipping, and the mail outbox's messages to it (the outbox is no projection: its
 * messages keep their amounts and references, the personal strings become the placeholder).
 *
 * Each document is replaced by a compare-and-set on what was read (the feed's `_seq`, a projection's
 * `_position`), so a pipeline commit racing with it wins and the document is read and scrubbed again.
 */
export interface ScrubbedCounts {
  feed: number;
  subscriptions: number;
  collections: number;
  checkout: number;
  outbox: number;
}

type Doc = Record<string, unknown> & { id: string };
const PAGE = 500;

/** The feed entry's object as a rebuild shows it: a customer's personal fields, a subscription's shipping. */
export function scrubbedObject(object: Record<string, unknown>): Record<string, unknown> {
  if (object.object === 'customer') return { ...object, ...erasedCustomerFields(object as Parameters<typeof erasedCustomerFields>[0]) };
  if (object.object === 'subscription' && object.shipping !== null && object.shipping !== undefined) return { ...object, shipping: null };
  if (object.object === 'checkout_session') return scrubbedSession(object);
  if (object.object === 'collection' && object.billing_address !== null && object.billing_address !== undefined) return { ...object, billing_address: null };
  return object;
}

/** A hosted checkout's session: the custom field values entered, the shipping address, the consent's IP address and user agent. */
export function scrubbedSession<T extends object>(doc: T): T {
  return scrubbedSessionDoc(doc as unknown as Record<string, unknown>) as unknown as T;
}

function scrubbedSessionDoc<T extends Record<string, unknown>>(doc: T): T {
  const fields = Array.isArray(doc.custom_fields) ? (doc.custom_fields as Array<Record<string, unknown>>) : null;
  const consent = doc.consent && typeof doc.consent === 'object' ? (doc.consent as Record<string, unknown>) : null;
  const erasedText = (v: unknown) => (v === null || v === undefined ? v : ERASED_TEXT);
  return {
    ...doc,
    ...(consent ? { consent: { ...consent, ip_address: erasedText(consent.ip_address), user_agent: erasedText(consent.user_agent) } } : {}),
    ...(fields ? { custom_fields: fields.map((c) => (c.value === null || c.value === undefined ? c : { ...c, value: ERASED_TEXT })) } : {}),
    ...(doc.shipping_address !== undefined ? { shipping_address: null } : {}),
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function scrubText(text: unknown, personal: readonly string[]): unknown {
  if (typeof text !== 'string') return text;
  let out = text;
  for (const p of personal) if (p) out = out.split(p).join(ERASED_TEXT);
  return out;
}

async function rewrite(reads: ReadStore, collection: string, where: Record<string, Scalar>, guard: string, change: (doc: Doc) => Doc | null): Promise<number> {
  let changed = 0;
  let after: { value: Scalar; id: string } | undefined;
  for (;;) {
    const page = await reads.find<Doc>(collection, { where, orderBy: { field: 'id', direction: 'asc' }, after, limit: PAGE });
    for (const first of page) {
      let doc: Doc | null = first;
      for (let attempt = 0; doc && attempt < 10; attempt++) {
        const next = change(doc);
        if (!next) break;
        const expected: Record<string, Scalar> = { id: doc.id };
        if (doc[guard] !== undefined) expected[guard] = doc[guard] as Scalar;
        if (await reads.swap(collection, doc.id, expected, next)) {
          changed++;
          break;
        }
        doc = await reads.get<Doc>(collection, doc.id);
      }
    }
    if (page.length < PAGE) return changed;
    after = { value: page[page.length - 1].id, id: page[page.length - 1].id };
  }
}

/**
 * Hosted checkouts' sessions whose keys were destroyed (with their customer's, or on their own
 * schedule: buyerDataDeadline): their documents and their feed entries (those from before the session
 * was identified, no customer then, among them) show the placeholders. Returns the documents rewritten.
 */
export async function scrubSessions(reads: ReadStore, owner: { account: string; isTest: boolean }, sessions: readonly string[]): Promise<number> {
  const tenant = { _account: owner.account, is_test: owner.isTest };
  let checkout = 0;
  for (const session of sessions) {
    checkout += await rewrite(reads, 'checkout_sessions', { ...tenant, id: session }, '_position', (doc) => {
      const next = scrubbedSession(doc);
      return same(next, doc) ? null : next;
    });
    checkout += await rewrite(reads, FEED_COLLECTION, { ...tenant, _object_id: session }, '_seq', (entry) => {
      const data = entry.data as { object: Record<string, unknown> };
      const object = scrubbedObject(data.object);
      return same(object, data.object) ? null : { ...entry, data: { ...data, object } };
    });
  }
  return checkout;
}

export async function scrubReadModels(
  reads: ReadStore,
  owner: { account: string; isTest: boolean },
  customerId: string,
  /** The customer's personal strings as they were (e-mail, name, phone, document number): replaced in the outbox's messages. */
  personal: ReadonlyArray<string | null>,
  /** Its hosted checkouts' sessions, whose keys went with its own. */
  sessions: readonly string[] = [],
): Promise<ScrubbedCounts> {
  const tenant = { _account: owner.account, is_test: owner.isTest };
  const feed = await rewrite(reads, FEED_COLLECTION, { ...tenant, _customer: customerId }, '_seq', (entry) => {
    const data = entry.data as { object: Record<string, unknown> };
    const object = scrubbedObject(data.object);
    return object === data.object || JSON.stringify(object) === JSON.stringify(data.object) ? null : { ...entry, data: { ...data, object } };
  });
  const subscriptions = await rewrite(reads, 'subscriptions', { ...tenant, customer: customerId }, '_position', (doc) =>
    doc.shipping === null || doc.shipping === undefined ? null : { ...doc, shipping: null },
  );
  const collections = await rewrite(reads, 'collections', { ...tenant, customer: customerId }, '_position', (doc) =>
    doc.billing_address === null || doc.billing_address === undefined ? null : { ...doc, billing_address: null },
  );
  const checkout = await scrubSessions(reads, owner, sessions);
  const strings = personal.filter((p): p is string => typeof p === 'string' && p.trim().length >= 3);
  const email = personal[0];
  // The outbox exists where mail goes to it (MAIL=outbox, the default); elsewhere there is nothing to scrub.
  const outbox = email
    ? await rewrite(reads, 'mail_outbox', { ...tenant, to: email }, '_created', (doc) => ({
        ...doc,
        to: ERASED_TEXT,
        subject: scrubText(doc.subject, strings),
        text: scrubText(doc.text, strings),
        html: scrubText(doc.html, strings),
      })).catch(() => 0)
    : 0;
  return { feed, subscriptions, collections, checkout, outbox };
}
