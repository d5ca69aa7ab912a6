import type { RecordedEvent } from '#event-store/event-store.port.js';
import { FEED_COLLECTION, FEED_WRITERS, withinHorizon } from '#events/read-models/event.read-model.js';
import { withFeedEntries } from './event-feed.js';
import { productsProjection } from './products.projection.js';
import { publicResourceProjections } from './public-resources.js';
import type { Doc } from '#projection-runtime/projection.js';

const event = (type: string, data: Record<string, unknown>, position = '0000000007'): RecordedEvent =>
  ({
    id: '0f0e0d0c-0b0a-4998-8776-655443322110',
    streamId: `product-${String(data.id)}`,
    type,
    data,
    metadata: { account_id: 'acct_1', mode: 'test', occurred_at: '2026-01-01T00:00:00.000Z' },
    revision: 0,
    position,
  }) as unknown as RecordedEvent;

test('each event type prefix names exactly one public resource projection (one writer per feed entry)', () => {
  const names = publicResourceProjections().map((p) => p.object ?? p.category!);
  expect(new Set(names).size).toBe(names.length);
});

test('the feed horizon waits for exactly the projections that write feed entries: every public resource projection', () => {
  expect([...FEED_WRITERS].sort()).toEqual(publicResourceProjections().map((p) => p.name).sort());
});

test('the subject projection writes one entry with data.object as its document stood after the event; no entry for another subject or an internal event', () => {
  const products = withFeedEntries(productsProjection);
  const after = { id: 'prod_1', object: 'product', name: 'Plan', _account: 'acct_1', _position: '0000000007' } as Doc;
  const writes = products.derive!(event('product.created', { id: 'prod_1' }), after, null);
  expect(writes).toEqual([
    {
      collection: FEED_COLLECTION,
      id: 'evt_0f0e0d0c0b0a49988776655443322110',
      doc: expect.objectContaining({ type: 'product.created', data: { object: { id: 'prod_1', object: 'product', name: 'Plan' } }, _seq: '0000000007', _object_id: 'prod_1', _type_prefix: 'product', is_test: true }),
    },
  ]);
  // A document the event touches that is not its subject, an event of another resource, one without an account.
  expect(products.derive!(event('product.created', { id: 'prod_1' }), { ...after, id: 'prod_2' }, null)).toEqual([]);
  expect(products.derive!(event('price.created', { id: 'prod_1' }), after, null)).toEqual([]);
  expect(products.derive!({ ...event('product.created', { id: 'prod_1' }), metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } } as RecordedEvent, after, null)).toEqual([]);
  // Deleted: the entry's object says so.
  const deleted = products.derive!(event('product.deleted', { id: 'prod_1' }), { ...after, _deleted: true }, after);
  expect((deleted[0].doc as { data: { object: Record<string, unknown> } }).data.object).toMatchObject({ id: 'prod_1', deleted: true });
});

test('a page of the feed stops at the horizon; none while a writer has no checkpoint', () => {
  const page = [{ _seq: '01' }, { _seq: '02' }, { _seq: '03' }];
  expect(withinHorizon(page, '02')).toEqual([{ _seq: '01' }, { _seq: '02' }]);
  expect(withinHorizon(page, '09')).toBe(page);
  expect(withinHorizon(page, null)).toEqual([]);
});
