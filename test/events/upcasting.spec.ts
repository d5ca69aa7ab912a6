import { EVENT_STORE } from '#platform/tokens.js';
import type { EventStore, NewEvent } from '#event-store/event-store.port.js';
import { SCHEMA_VERSION } from '#event-store/upcasting.js';
import { storedEventStore } from '#customers/personal-data/personal-data-event-store.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { eventIdFromUuid, newEventUuid } from '#shared/ids.js';
import { billingSetup, card } from '#test/support/billing-fixtures.js';
import { startTestApp, type TestApp } from '#test/support/test-app.js';

/**
 * Event versions (docs/event-versions.md): `subscription.created` version 1 called the billing
 * interval `interval_count`; version 2 calls it `billing_interval`. A subscription stored by an older
 * release (version 1, no schema_version in its metadata) reads, rebuilds and answers `as_of` exactly
 * as one written in the current shape.
 */
// The projections run in their own thread by default (its own store instance) or on the event loop: both upcast.
describe.each(['worker', 'inline'])('PROJECTIONS_THREAD=%s', (mode) => {
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ env: { PROJECTIONS_THREAD: mode } });
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);

test('events stored in a retired shape read, rebuild and answer as_of as the current shape does', async () => {
  const s = await billingSetup(api(), { interval: 3 });
  const current = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve'), meta_data: { k: 'v' } })).body;
  expect(current.status).toBe('active');
  expect(current.billing_interval).toBe(3);

  // The adapter under the port: the events exactly as stored.
  const stored = storedEventStore(t.app.get<EventStore>(EVENT_STORE));
  const written = await stored.readStream(`subscription-${current.id}`);
  expect(written[0].type).toBe('subscription.created');
  // New events are written in the type's current version.
  expect(written[0].metadata[SCHEMA_VERSION]).toBe(2);
  expect(written[0].data).toMatchObject({ billing_interval: 3 });
  expect(written[0].data).not.toHaveProperty('interval_count');
  expect(written.slice(1).every((e) => e.metadata[SCHEMA_VERSION] === 1)).toBe(true);

  // The same subscription as an older release stored it: its ids renamed, subscription.created in version 1
  // (`interval_count`), and no schema version on any event. Appended straight to the adapter.
  const renames = new Map<string, string>([[current.id, `${current.id.slice(0, 4)}old${current.id.slice(7)}`]]);
  for (const item of current.items as Array<{ id: string }>) renames.set(item.id, `${item.id.slice(0, 3)}old${item.id.slice(6)}`);
  const rename = (text: string) => [...renames].reduce((s, [from, to]) => s.replaceAll(from, to), text);
  const back = (text: string) => [...renames].reduce((s, [from, to]) => s.replaceAll(to, from), text);
  const oldId = renames.get(current.id)!;
  const retired: NewEvent[] = written.map((e) => {
    const data = JSON.parse(rename(JSON.stringify(e.data))) as Record<string, unknown>;
    if (e.type === 'subscription.created') {
      data.interval_count = data.billing_interval;
      delete data.billing_interval;
    }
    const { [SCHEMA_VERSION]: _dropped, ...metadata } = e.metadata;
    return { id: newEventUuid(), type: e.type, data, metadata: metadata as NewEvent['metadata'] };
  });
  const appended = await stored.append(`subscription-${oldId}`, retired, 'no_stream');
  await t.app.get(ProjectionEngine).waitFor(appended.position);
  const storedOld = await stored.readStream(`subscription-${oldId}`);
  expect(storedOld[0].data).toMatchObject({ interval_count: 3 });
  expect(storedOld[0].data).not.toHaveProperty('billing_interval');
  expect(storedOld[0].metadata[SCHEMA_VERSION]).toBeUndefined();

  /** The old subscription's answer with its ids named as the current one's: equal when read alike. */
  const same = async (path: (id: string) => string) => {
    const a = await api().get(path(current.id));
    const b = await api().get(path(oldId));
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(JSON.parse(back(JSON.stringify(b.body)))).toEqual(a.body);
    return b.body;
  };

  // The read model (projected live from the old events).
  const live = await same((id) => `/v1/subscriptions/${id}`);
  expect(live.billing_interval).toBe(3);
  expect(live).not.toHaveProperty('interval_count');

  // as_of a time and as_of the event that created it (the feed's entry): folded over the stream.
  const at = encodeURIComponent(t.clock.now().toISOString());
  await same((id) => `/v1/subscriptions/${id}?as_of=${at}`);
  const createdEvent = (id: string) => eventIdFromUuid((id === current.id ? written : retired)[0].id);
  const asOfCreated = await same((id) => `/v1/subscriptions/${id}?as_of=${createdEvent(id)}`);
  expect(asOfCreated.billing_interval).toBe(3);

  // The feed shows the current shape: the created event's object has billing_interval.
  const feedCreated = async (id: string) => {
    const res = await api().get(`/v1/events/${createdEvent(id)}`);
    expect(res.status).toBe(200);
    expect(res.body.type).toBe('subscription.created');
    return res.body.data.object as Record<string, unknown>;
  };
  const oldObject = await feedCreated(oldId);
  expect(oldObject.billing_interval).toBe(3);
  expect(oldObject).not.toHaveProperty('interval_count');
  expect(JSON.parse(back(JSON.stringify(oldObject)))).toEqual(await feedCreated(current.id));

  // A rebuild from the first event gives the same documents as before it, for both.
  const before = { a: (await api().get(`/v1/subscriptions/${current.id}`)).body, b: live };
  await t.app.get(ProjectionEngine).rebuild();
  expect((await api().get(`/v1/subscriptions/${current.id}`)).body).toEqual(before.a);
  expect((await same((id) => `/v1/subscriptions/${id}`))).toEqual(before.b);
  expect(await feedCreated(oldId)).toEqual(oldObject);

  // The write path reads the old stream in the current shape too: a change decided over it keeps the interval.
  const updated = await api().post(`/v1/subscriptions/${oldId}/update`, { meta_data: { k: 'w' } });
  expect(updated.status).toBe(200);
  expect(updated.body).toMatchObject({ billing_interval: 3, meta_data: { k: 'w' } });
  // The stored old event is left as it was: history is never rewritten.
  expect((await stored.readStream(`subscription-${oldId}`))[0].data).toEqual(storedOld[0].data);
});
});
