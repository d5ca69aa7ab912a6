import { startTestApp, type TestApp } from '../support/test-app.js';
import { feed } from '../support/subscription-helpers.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { WebhookDispatcher } from '#webhooks/application/webhook-dispatcher.js';

/**
 * Replays (issue 33 §5): POST /v1/webhook_endpoints/{id}/replays re-delivers the account's feed to one
 * endpoint from an `evt_` (after it) or a time, signed as every delivery, at most WEBHOOK_REPLAY_RATE
 * a second on a loop of its own (live deliveries are not behind it), in the delivery log with its
 * id, resumable after a restart, cancellable. Real receivers on 127.0.0.1 verify each request with
 * the `standardwebhooks` package (an unverified request is not counted as received).
 */
const RATE = 20;
let t: TestApp;
let key: string;
let dispatcher: WebhookDispatcher;

beforeAll(async () => {
  t = await startTestApp({ webhooks: true, env: { WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_REPLAY_RATE: String(RATE), WEBHOOK_RETRY_SCALE: '0.01' } });
  key = (await t.account()).test_key;
  dispatcher = t.app.get(WebhookDispatcher);
});
afterAll(() => t.close());

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  for (const e of (await t.as(key).get('/v1/webhook_endpoints?limit=100')).body.data ?? []) await t.as(key).delete(`/v1/webhook_endpoints/${e.id}`);
});

async function endpoint(enabled_events: string[] = ['product.created']) {
  const r = await new WebhookReceiver().up();
  receivers.push(r);
  const res = await t.as(key).post('/v1/webhook_endpoints', { url: r.url, enabled_events });
  expect(res.status).toBe(200);
  r.secrets = [res.body.secret];
  return { r, id: res.body.id as string };
}

/** Creates products; answers their `product.created` events in feed order. */
async function products(n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await t.as(key).post('/v1/products', { name: `${prefix} ${i}` })).body.id);
  const events = await feed(t.as(key), undefined, 'type=product.created');
  return ids.map((id) => events.find((e) => e.data.object.id === id)!.id);
}

async function replayUntil(endpointId: string, replayId: string, status: string, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.as(key).get(`/v1/webhook_endpoints/${endpointId}/replays/${replayId}`);
    if (res.body.status === status) return res.body;
    if (Date.now() > end) throw new Error(`replay ${replayId} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const after = (r: WebhookReceiver, n: number) => r.received.slice(n);

test('from an evt_ cursor: exactly the later matching events, in order, signed, to that endpoint only; in its delivery log', async () => {
  const a = await endpoint(['product.created']);
  const b = await endpoint(['product.created']);
  const events = await products(5, 'Cursor');
  await t.as(key).post('/v1/customers', { name: 'Not a product', email: 'np@example.com' });
  await a.r.until(() => events.every((e) => a.r.ids().includes(e)), 10_000, 'the live deliveries');
  await b.r.until(() => events.every((e) => b.r.ids().includes(e)), 10_000, 'the live deliveries');
  const seenA = a.r.received.length;
  const seenB = b.r.received.length;

  const res = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, { from: events[1] });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id: expect.stringMatching(/^whr_/), object: 'webhook_replay', endpoint: a.id, from: events[1], to: null, types: ['product.created'], is_test: true });
  const done = await replayUntil(a.id, res.body.id, 'completed');
  expect(done).toMatchObject({ delivered: 3, completed_at: expect.any(String), canceled_at: null });

  const replayed = after(a.r, seenA);
  expect(replayed.map((x) => x.id)).toEqual(events.slice(2));
  expect(replayed.every((x) => x.verifiedWith === a.r.secrets[0] && x.type === 'product.created')).toBe(true);
  // The same message as live: `webhook-id` is the event's id, the body the feed's event.
  expect(replayed[0].body.id).toBe(events[2]);
  await new Promise((r) => setTimeout(r, 300));
  expect(b.r.received.length).toBe(seenB);
  expect(after(a.r, seenA)).toHaveLength(3);

  const log = (await t.as(key).get(`/v1/webhook_endpoints/${a.id}/deliveries?event=${events[2]}`)).body.data;
  expect(log).toHaveLength(2);
  expect(log[0]).toMatchObject({ event: events[2], status: 'succeeded', replay: res.body.id, attempt: 1 });
  expect(log[1].replay).toBeUndefined(); // the live attempt
  expect((await t.as(key).get(`/v1/webhook_endpoints/${a.id}/deliveries?event=${events[1]}`)).body.data).toHaveLength(1);

  const list = (await t.as(key).get(`/v1/webhook_endpoints/${a.id}/replays`)).body;
  expect(list.data.map((x: any) => x.id)).toEqual([res.body.id]);
  expect((await t.as(key).get(`/v1/webhook_endpoints/${b.id}/replays`)).body.data).toEqual([]);
  expect((await t.as(key).get(`/v1/webhook_endpoints/${b.id}/replays/${res.body.id}`)).status).toBe(404);
}, 60_000);

test('from a time, of given types; refusals', async () => {
  const a = await endpoint(['product.created', 'customer.created']);
  await products(2, 'Before');
  // The events' `created` is the service clock's time (standing still here): moved on a minute.
  t.clock.advanceMs(60_000);
  const since = t.clock.now().toISOString();
  const events = await products(3, 'Since');
  await t.as(key).post('/v1/customers', { name: 'Since', email: 'since@example.com' });
  await a.r.until(() => a.r.received.length >= 6, 10_000, 'the live deliveries');
  const seen = a.r.received.length;

  const res = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, { from: since, types: ['product.*'] });
  expect(res.status).toBe(200);
  expect(res.body.from).toBe(since);
  await replayUntil(a.id, res.body.id, 'completed');
  expect(after(a.r, seen).map((x) => x.id)).toEqual(events);

  const bad = async (body: object) => (await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, body)).status;
  expect(await bad({ from: 'last tuesday' })).toBe(400);
  expect(await bad({ from: 'evt_00000000000000000000000000000000' })).toBe(404);
  expect(await bad({ from: since, types: ['nonsense.type'] })).toBe(400);
  expect(await bad({})).toBe(400);
  expect((await t.as(key).post(`/v1/webhook_endpoints/we_00000000000000000000000000/replays`, { from: since })).status).toBe(404);
}, 60_000);

test('at most WEBHOOK_REPLAY_RATE a second; a live event is delivered at once meanwhile; cancel stops it', async () => {
  const a = await endpoint(['product.created']);
  const events = await products(40, 'Many');
  await a.r.until(() => events.every((e) => a.r.ids().includes(e)), 20_000, 'the live deliveries');
  const seen = a.r.received.length;

  const res = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, { from: events[0] });
  expect(res.status).toBe(200);
  await a.r.until(() => a.r.received.length >= seen + 5, 10_000, 'the first replayed events');

  // A live event while the replay is running: delivered promptly, not after the replay's backlog.
  const started = Date.now();
  const [live] = await products(1, 'Live');
  await a.r.until(() => a.r.ids().includes(live), 5_000, 'the live event');
  const liveMs = Date.now() - started;
  const replayedWhenLive = after(a.r, seen).filter((x) => x.id !== live).length;
  expect(replayedWhenLive).toBeLessThan(39); // the replay was still running
  expect(liveMs).toBeLessThan(1_000); // the rest of the replay alone would take ~1.5 s

  await a.r.until(() => after(a.r, seen).filter((x) => x.id !== live).length >= 20, 10_000, 'half the replay');
  const canceled = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays/${res.body.id}/cancel`);
  expect(canceled.status).toBe(200);
  expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: expect.any(String) });
  const atCancel = after(a.r, seen).filter((x) => x.id !== live).length;
  await new Promise((r) => setTimeout(r, 600));
  const replayed = after(a.r, seen).filter((x) => x.id !== live);
  expect(replayed.length).toBeLessThanOrEqual(atCancel + 1); // at most the attempt in flight
  expect(replayed.length).toBeLessThan(39);
  expect(replayed.map((x) => x.id)).toEqual(events.slice(1, 1 + replayed.length));
  // The rate: n sends take at least (n − 1) / RATE seconds (10 % slack for timers).
  const span = replayed[replayed.length - 1].at - replayed[0].at;
  expect(span).toBeGreaterThanOrEqual(((replayed.length - 1) * 1000 * 0.9) / RATE);
  const final = (await t.as(key).get(`/v1/webhook_endpoints/${a.id}/replays/${res.body.id}`)).body;
  expect(final.status).toBe('canceled');
  expect(final.delivered).toBe(replayed.length);
  expect(final.cursor).toBe(replayed[replayed.length - 1].id);
  expect((await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays/${res.body.id}/cancel`)).status).toBe(200);
}, 60_000);

test('a restart resumes from the checkpoint: every event once', async () => {
  const a = await endpoint(['product.created']);
  const events = await products(20, 'Restart');
  await a.r.until(() => events.every((e) => a.r.ids().includes(e)), 20_000, 'the live deliveries');
  const seen = a.r.received.length;
  const res = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, { from: events[0] });
  await a.r.until(() => a.r.received.length >= seen + 5, 10_000, 'the first replayed events');
  await dispatcher.stop(); // the worker finishes the attempt in flight and its checkpoint
  const atStop = after(a.r, seen).length;
  expect(atStop).toBeLessThan(19);
  dispatcher.start();
  await replayUntil(a.id, res.body.id, 'completed');
  expect(after(a.r, seen).map((x) => x.id)).toEqual(events.slice(1));
}, 60_000);

test('a failed replayed send is retried on the normal schedule, marked as the replay\'s; deleting the endpoint cancels its replay', async () => {
  const a = await endpoint(['product.created']);
  const events = await products(3, 'Retry');
  await a.r.until(() => events.every((e) => a.r.ids().includes(e)), 10_000, 'the live deliveries');
  const seen = a.r.received.length;
  // The replay's first send of events[1] fails (500); its retry (5 s × 0.01) succeeds.
  let failed = false;
  a.r.respond = (req) => {
    if (req.id === events[1] && !failed) {
      failed = true;
      return { status: 500 };
    }
    return { status: 200 };
  };
  const res = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, { from: events[0] });
  await a.r.until(() => after(a.r, seen).length >= 2 && failed, 10_000, 'the replay');
  await replayUntil(a.id, res.body.id, 'completed');
  await a.r.until(() => after(a.r, seen).some((x) => x.id === events[1]), 10_000, 'the retry');
  expect(after(a.r, seen).map((x) => x.id).sort()).toEqual(events.slice(1).sort());
  // The receiver saw the retry before its attempt was recorded: wait for the log's third entry.
  let log: any[] = [];
  for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
    log = (await t.as(key).get(`/v1/webhook_endpoints/${a.id}/deliveries?event=${events[1]}`)).body.data;
    if (log.length >= 3 || Date.now() > end) break;
  }
  expect(log.map((x: any) => [x.replay ?? null, x.status, x.status_code])).toEqual([
    [res.body.id, 'succeeded', 200],
    [res.body.id, 'failed', 500],
    [null, 'succeeded', 200],
  ]);
  expect(log[1].next_attempt_at).toEqual(expect.any(String));

  // A replay whose endpoint is deleted ends canceled.
  a.r.respond = () => ({ status: 200, delayMs: 200 });
  const long = await t.as(key).post(`/v1/webhook_endpoints/${a.id}/replays`, { from: events[0] });
  await t.as(key).delete(`/v1/webhook_endpoints/${a.id}`);
  expect((await replayUntil(a.id, long.body.id, 'canceled')).status).toBe('canceled');
}, 60_000);
