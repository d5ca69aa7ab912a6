import type { RecordedEvent } from '#event-store/event-store.port.js';

/** Collection events that set what it asks (`total`): item or discount changes, a new total, a partial payment, credits and registered payments. */
const TOTAL_IN_DATA = new Set(['collection.total_updated', 'collection.partial_payment_defined', 'collection.credited', 'collection.credit_reversed', 'collection.payment_applied']);

/** The total a collection asks after `event`, or undefined when the event does not change it (read models that follow amounts share it). */
export function collectionTotalAfter(event: RecordedEvent): string | undefined {
  const d = event.data as { total?: unknown; changes?: { total?: unknown } };
  if (event.type === 'collection.updated') return typeof d.changes?.total === 'string' ? d.changes.total : undefined;
  if (TOTAL_IN_DATA.has(event.type)) return typeof d.total === 'string' ? d.total : undefined;
  return undefined;
}
