import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { feed, history } from '../support/subscription-helpers.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { advance, clockAndCustomer } from '../support/lifecycle.js';
import { WebhookDispatcher } from '#webhooks/application/webhook-dispatcher.js';

/**
 * Webhook endpoints and delivery with real receivers on 127.0.0.1, each verifying with the
 * `standardwebhooks` package. The retry schedule is shrunk (WEBHOOK_RETRY_SCALE) so that its
 * hours pass in milliseconds; everything else is the service as it runs.
 */
/** Generous: on a loaded machine a healthy answer can take a while, and a timed-out one is sent again. */
const TIMEOUT_MS = 3_000;
const SCALE = 0.0001; // 5 s → 0.5 ms, 1 hour → 360 ms, the whole ~3 days → ~26 s
let t: TestApp;
let key: string;
let liveKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp({ webhooks: true, env: { WEBHOOK_RETRY_SCALE: String(SCALE), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_POLL_MS: '50' } });
  const account = await t.account();
  key = account.test_key;
  liveKey = account.live_key;
  otherKey = (await t.account('Other merchant')).test_key;
});
afterAll(() => t.close());

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  // Endpoints of one test must not keep receiving in the next: delete them all.
  for (const k of [key, otherKey]) {
    for (const e of (await t.as(k).get('/v1/webhook_endpoints?limit=100')).body.data ?? []) await t.as(k).delete(`/v1/webhook_endpoints/${e.id}`);
  }
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await new WebhookReceiver().up();
  receivers.push(r);
  return r;
}

async function register(r: WebhookReceiver, enabled_events: string[] = ['*'], k = key) {
  const res = await t.as(k).post('/v1/webhook_endpoints', { url: r.url, enabled_events, description: 'test receiver' });
  expect(res.status).toBe(200);
  r.secrets = [res.body.secret];
  return res.body;
}

describe('endpoints', () => {
  test('create answers the secret once; GET and list never show it', async () => {
    const r = await receiver();
    const res = await t.as(key).post('/v1/webhook_endpoints', { url: r.url, enabled_events: ['subscription.*', 'charge.paid'], meta_data: { team: 'billing' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^we_[0-9A-Za-z]{24}$/),
      object: 'webhook_endpoint',
      url: r.url,
      enabled_events: ['subscription.*', 'charge.paid'],
      description: null,
      status: 'enabled',
      meta_data: { team: 'billing' },
      created_date: '2026-11-23 10:00:00',
      is_test: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const got = await t.as(key).get(`/v1/webhook_endpoints/${res.body.id}`);
    expect(got.status).toBe(200);
    const { secret, ...withoutSecret } = res.body;
    expect(got.body).toEqual(withoutSecret);
    expect(JSON.stringify(got.body)).not.toContain(secret);
    const list = await t.as(key).get('/v1/webhook_endpoints');
    expect(list.body.data.map((e: any) => e.id)).toEqual([res.body.id]);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    // The feed's webhook_endpoint.created carries the endpoint, not its secret.
    const events = await feed(t.as(key));
    const created = events.find((e) => e.type === 'webhook_endpoint.created')!;
    expect(JSON.stringify(created)).not.toContain(secret);
    // Another account, or the live key, does not see it.
    expect((await t.as(otherKey).get(`/v1/webhook_endpoints/${res.body.id}`)).status).toBe(404);
    expect((await t.as(liveKey).get(`/v1/webhook_endpoints/${res.body.id}`)).status).toBe(404);
  });

  test('update, delete; bad input is a 400 naming the parameter', async () => {
    const r = await receiver();
    const e = await register(r);
    const updated = await t.as(key).post(`/v1/webhook_endpoints/${e.id}`, { enabled_events: ['collection.*'], description: 'collections', status: 'disabled' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ enabled_events: ['collection.*'], description: 'collections', status: 'disabled' });
    for (const [body, param] of [
      [{ url: 'ftp://127.0.0.1/x', enabled_events: ['*'] }, 'url'],
      [{ url: 'http://example.com/x', enabled_events: ['*'] }, 'url'],
      [{ url: 'http://10.0.0.1/x', enabled_events: ['*'] }, 'url'],
      [{ url: r.url, enabled_events: ['subscription*'] }, 'enabled_events'],
      [{ url: r.url, enabled_events: [] }, 'enabled_events'],
      [{ url: r.url }, 'enabled_events'],
      [{ url: r.url, enabled_events: ['*'], secret: 'whsec_mine' }, 'secret'],
    ] as const) {
      const bad = await t.as(key).post('/v1/webhook_endpoints', body);
      expect([bad.status, bad.body.error?.param]).toEqual([400, param]);
    }
    expect((await t.as(key).post(`/v1/webhook_endpoints/${e.id}`, { status: 'paused' })).status).toBe(400);
    // A type the feed never holds is refused by name (it would deliver nothing); nothing changes.
    for (const unknown of ['nonsense.type', 'nonsense.*']) {
      const refused = await t.as(key).post('/v1/webhook_endpoints', { url: r.url, enabled_events: ['charge.paid', unknown] });
      expect([refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([400, 'parameter_invalid', 'enabled_events']);
      expect(refused.body.error.message).toContain(`'${unknown}'`);
      const notUpdated = await t.as(key).post(`/v1/webhook_endpoints/${e.id}`, { enabled_events: [unknown] });
      expect([notUpdated.status, notUpdated.body.error?.param]).toEqual([400, 'enabled_events']);
    }
    expect((await t.as(key).get(`/v1/webhook_endpoints/${e.id}`)).body.enabled_events).toEqual(['collection.*']);
    const removed = await t.as(key).delete(`/v1/webhook_endpoints/${e.id}`);
    expect(removed.body).toEqual({ id: e.id, object: 'webhook_endpoint', deleted: true });
    expect((await t.as(key).get(`/v1/webhook_endpoints/${e.id}`)).status).toBe(404);
  });

  test('live endpoints: https to a public address only (no loopback, private or link-local)', async () => {
    for (const url of ['http://127.0.0.1:9/x', 'https://127.0.0.1/x', 'https://localhost/x', 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.8/x', 'https://[::1]/x', 'https://192.168.0.1/x']) {
      const res = await t.as(liveKey).post('/v1/webhook_endpoints', { url, enabled_events: ['*'] });
      expect([url, res.status, res.body.error?.param]).toEqual([url, 400, 'url']);
    }
  });
});

describe('delivery', () => {
  test("every event of a subscription's life arrives verified, with the feed's JSON and the Standard Webhooks headers", async () => {
    const r = await receiver();
    const e = await register(r);
    const api = t.as(key);
    const s = await billingSetup(api);
    const sub = (await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
    expect(sub.status).toBe('active');
    expect((await api.post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' })).status).toBe(200);
    const events = (await feed(api)).filter((x) => x.created >= '' && x.id !== undefined);
    const after = events.slice(events.findIndex((x) => x.type === 'webhook_endpoint.created' && (x.data.object as any).id === e.id) + 1);
    expect(after.map((x) => x.type)).toEqual(expect.arrayContaining(['subscription.created', 'collection.paid', 'subscription.activated', 'subscription.canceled']));
    await r.until(() => after.every((x) => r.ids().includes(x.id)), 10_000, 'every event');
    for (const x of after) {
      const got = r.received.find((y) => y.id === x.id)!;
      expect(got.body).toEqual((await api.get(`/v1/events/${x.id}`)).body);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toMatch(/^billing-service-webhooks\//);
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    // Once each; each object's events in feed order (no retry was pending).
    expect(r.ids().sort()).toEqual(after.map((x) => x.id).sort());
    const objectOf = (x: any) => x.data.object.id;
    for (const object of new Set(after.map(objectOf))) {
      expect(r.received.filter((x) => objectOf(x.body) === object).map((x) => x.id)).toEqual(after.filter((x) => objectOf(x) === object).map((x) => x.id));
    }
    // A tampered body, or an old timestamp, is refused by the package.
    const one = r.received[0];
    const raw = JSON.stringify(one.body);
    const wh = new Webhook(r.secrets[0]);
    const h = one.headers as Record<string, string>;
    expect(() => wh.verify(raw, h)).not.toThrow();
    expect(() => wh.verify(raw.replace('"object":"event"', '"object":"evil"'), h)).toThrow();
    const old = new Date(Date.now() - 10 * 60_000);
    expect(() => wh.verify(raw, { ...h, 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': wh.sign(one.id, old, raw) })).toThrow();
    // The delivery log lists each attempt.
    const log = await api.get(`/v1/webhook_endpoints/${e.id}/deliveries?limit=100`);
    expect(log.status).toBe(200);
    expect(log.body.data).toHaveLength(after.length);
    // Newest first. Objects are delivered side by side, so the last event's attempt may share its
    // instant with another object's: the list's order is by time, and the last event's attempt is in it.
    const times = log.body.data.map((a: { created: string }) => a.created);
    expect([...times].sort().reverse()).toEqual(times);
    expect(log.body.data.find((a: { event: string }) => a.event === after[after.length - 1].id)).toEqual({
      id: expect.stringMatching(/^wha_/),
      object: 'webhook_delivery_attempt',
      webhook_endpoint: e.id,
      event: after[after.length - 1].id,
      event_type: after[after.length - 1].type,
      attempt: 1,
      created: expect.any(String),
      status: 'succeeded',
      status_code: 200,
      error: null,
      duration_ms: expect.any(Number),
      response_body: 'answer 200',
      next_attempt_at: null,
    });
  }, 30_000);

  test('enabled_events filters (wildcards), another account and the live mode get nothing of these', async () => {
    const subs = await receiver();
    const other = await receiver();
    await register(subs, ['subscription.*']);
    await register(other, ['*'], otherKey);
    const api = t.as(key);
    const s = await billingSetup(api);
    const sub = (await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
    await subs.until(() => subs.received.some((x) => x.type === 'subscription.activated' && x.body.data.object.id === sub.id));
    expect(new Set(subs.received.map((x) => x.type.split('.')[0]))).toEqual(new Set(['subscription']));
    expect(other.requests).toBe(0);
  }, 20_000);

  test('a test event goes to the one endpoint it names', async () => {
    const a = await receiver();
    const b = await receiver();
    const ea = await register(a);
    await register(b);
    const res = await t.as(key).post(`/v1/test_helpers/webhook_endpoints/${ea.id}/send_test_event`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^evt_/), type: 'webhook_endpoint.test', data: { object: { id: ea.id, object: 'webhook_endpoint' } } });
    await a.until(() => a.ids().includes(res.body.id));
    expect(a.received.find((x) => x.id === res.body.id)!.body).toEqual(res.body);
    await new Promise((r) => setTimeout(r, 300));
    expect(b.ids()).not.toContain(res.body.id);
    expect((await t.as(liveKey).post(`/v1/test_helpers/webhook_endpoints/${ea.id}/send_test_event`)).status).toBe(403);
  });
});

/** A feed event of the caller's account (a product created): one delivery to every `*` endpoint. */
async function productEvent(name = 'Webhook plan') {
  const product = (await t.as(key).post('/v1/products', { name })).body;
  const event = (await feed(t.as(key), undefined, `object_id=${product.id}`)).find((x) => x.type === 'product.created')!;
  return event.id;
}

describe('failures and retries', () => {
  test('a receiver answering 500 to its first three attempts gets the event on the fourth; the log shows all four', async () => {
    const r = await receiver();
    const e = await register(r);
    r.respond = (_req, n) => ({ status: n <= 3 ? 500 : 200 });
    const id = await productEvent();
    await r.until(() => r.ids().includes(id));
    expect(r.requests).toBe(4);
    expect(r.received.map((x) => x.id)).toEqual([id]);
    // The receiver has the 4th request before the sender has its answer and records the attempt: wait for the record.
    let log: any[] = [];
    for (let i = 0; i < 200 && log.length < 4; i++) {
      if (i) await new Promise((r) => setTimeout(r, 10));
      log = (await t.as(key).get(`/v1/webhook_endpoints/${e.id}/deliveries?event=${id}`)).body.data;
    }
    expect(log.map((a: any) => [a.attempt, a.status, a.status_code])).toEqual([
      [4, 'succeeded', 200],
      [3, 'failed', 500],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    expect(log[1].response_body).toBe('answer 500');
    // Retries follow the schedule (scaled): attempt 2 at least 5 s × scale after attempt 1, attempt 3 at least 5 min × scale after 2.
    expect(Date.parse(log[1].created) - Date.parse(log[2].created)).toBeGreaterThanOrEqual(300_000 * SCALE - 5);
    expect(log[3].next_attempt_at).not.toBeNull();
  }, 20_000);

  test('a receiver down (connection refused) for a simulated hour receives everything once it is back', async () => {
    const r = await receiver();
    const e = await register(r);
    await r.down();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await productEvent(`Down ${i}`));
    await new Promise((res) => setTimeout(res, 3600_000 * SCALE)); // an hour, scaled
    const failed = (await t.as(key).get(`/v1/webhook_endpoints/${e.id}/deliveries?limit=100`)).body.data;
    expect(failed.length).toBeGreaterThanOrEqual(5);
    // Every attempt failed without an answer: refused (or, on a machine starved by the other suites, past the
    // timeout, or on a pooled keep-alive socket to an earlier receiver that had the same port: reset).
    // Any other attempt is printed with its fields.
    const answered = failed.filter((a: any) => !(a.status === 'failed' && a.status_code === null && ['econnrefused', 'econnreset', 'timeout'].includes(a.error)));
    expect(answered).toEqual([]);
    expect(failed.some((a: any) => a.error === 'econnrefused')).toBe(true);
    await r.up();
    await r.until(() => ids.every((id) => r.ids().includes(id)), 15_000, 'the backlog');
    expect((await t.as(key).get(`/v1/webhook_endpoints/${e.id}`)).body.status).toBe('enabled');
  }, 30_000);

  test('a receiver that hangs past the timeout is retried and never delays a second, healthy endpoint', async () => {
    const slow = await receiver();
    const healthy = await receiver();
    await register(slow);
    await register(healthy);
    let slowFirstAt = 0;
    slow.respond = (_req, n) => {
      if (n === 1) slowFirstAt = Date.now();
      return n === 1 ? { status: 200, delayMs: TIMEOUT_MS + 2_000 } : { status: 200 };
    };
    const id = await productEvent('Hang');
    await healthy.until(() => healthy.ids().includes(id));
    // The healthy endpoint had it while the slow one's first attempt was still hanging (until its timeout).
    await slow.until(() => slowFirstAt > 0);
    expect(healthy.received.find((x) => x.id === id)!.at).toBeLessThan(slowFirstAt + TIMEOUT_MS);
    // The slow one timed out, then got it on a retry (its first answer came too late to count).
    await slow.until(() => slow.received.some((x) => x.id === id) && slow.requests >= 2, 20_000);
    // The API answered meanwhile.
    expect((await t.as(key).get('/v1/webhook_endpoints')).status).toBe(200);
  }, 20_000);

  test('after the last retry fails the endpoint is disabled and an event says so; re-enabled and resent, it gets the event', async () => {
    const watcher = await receiver();
    await register(watcher, ['webhook_endpoint.disabled']);
    const r = await receiver();
    const e = await register(r);
    r.respond = () => ({ status: 503 });
    const id = await productEvent('Doomed');
    // The whole schedule (~3 days) scaled: about 26 s; wait for the disable.
    await watcher.until(() => watcher.received.some((x) => x.body.data.object.id === e.id), 40_000, 'webhook_endpoint.disabled');
    const disabled = watcher.received.find((x) => x.body.data.object.id === e.id)!;
    expect(disabled.body).toMatchObject({ type: 'webhook_endpoint.disabled', data: { object: { id: e.id, status: 'disabled' } } });
    expect((await t.as(key).get(`/v1/webhook_endpoints/${e.id}`)).body.status).toBe('disabled');
    const log = (await t.as(key).get(`/v1/webhook_endpoints/${e.id}/deliveries?event=${id}&limit=100`)).body.data;
    expect(log).toHaveLength(10);
    expect(log[0]).toMatchObject({ attempt: 10, status: 'failed', status_code: 503, next_attempt_at: null });
    // Re-enable, re-send every failed event since the start: it arrives.
    r.respond = () => ({ status: 200 });
    expect((await t.as(key).post(`/v1/webhook_endpoints/${e.id}`, { status: 'enabled' })).status).toBe(200);
    const resent = await t.as(key).post(`/v1/webhook_endpoints/${e.id}/resend`, { failed_since: '2026-01-01T00:00:00Z' });
    expect(resent.body).toEqual({ object: 'webhook_resend', webhook_endpoint: e.id, events: [id] });
    await r.until(() => r.ids().includes(id));
    // One event on demand, too.
    const again = await t.as(key).post(`/v1/webhook_endpoints/${e.id}/resend`, { event: id });
    expect(again.status).toBe(200);
    await r.until(() => r.ids().filter((x) => x === id).length === 2);
    expect((await t.as(key).post(`/v1/webhook_endpoints/${e.id}/resend`, {})).status).toBe(400);
    expect((await t.as(key).post(`/v1/webhook_endpoints/${e.id}/resend`, { event: 'evt_00000000000000000000000000000000' })).status).toBe(404);
  }, 60_000);
});

describe('secret rotation', () => {
  test('during the overlap a receiver with only the new secret verifies, one with only the old does too; after it only the new one', async () => {
    const oldOnly = await receiver();
    const e = await register(oldOnly);
    const oldSecret = oldOnly.secrets[0];
    const rotated = await t.as(key).post(`/v1/webhook_endpoints/${e.id}/rotate_secret`, { expires_in: 2 });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(JSON.stringify((await t.as(key).get(`/v1/webhook_endpoints/${e.id}`)).body)).not.toContain(newSecret);
    // Two receivers behind one URL is not possible, so the one receiver checks each secret separately.
    const verifies = (x: { body: any; headers: any }, secret: string) => {
      try {
        new Webhook(secret).verify(JSON.stringify(x.body), x.headers);
        return true;
      } catch {
        return false;
      }
    };
    oldOnly.secrets = [oldSecret, newSecret];
    const during = await productEvent('During overlap');
    await oldOnly.until(() => oldOnly.ids().includes(during));
    const d = oldOnly.received.find((x) => x.id === during)!;
    expect(String(d.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([verifies(d, newSecret), verifies(d, oldSecret)]).toEqual([true, true]);
    await new Promise((res) => setTimeout(res, 2_100));
    const afterwards = await productEvent('After overlap');
    await oldOnly.until(() => oldOnly.ids().includes(afterwards));
    const a = oldOnly.received.find((x) => x.id === afterwards)!;
    expect([verifies(a, newSecret), verifies(a, oldSecret)]).toEqual([true, false]);
    expect(a.verifiedWith).toBe(newSecret);
    expect((await t.as(key).post(`/v1/webhook_endpoints/${e.id}/rotate_secret`, { expires_in: -5 })).status).toBe(400);
  }, 20_000);
});

describe('test clocks and retention', () => {
  test("a test clock's advance delivers the events it produces like any others", async () => {
    const r = await receiver();
    await register(r, ['subscription.*', 'collection.*']);
    const api = t.as(key);
    const s = await billingSetup(api);
    const { clock, customer } = await clockAndCustomer(api, '2026-01-15T12:00:00.000Z');
    const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
    expect(sub.status).toBe('active');
    await advance(api, clock.id, '2026-03-16T12:00:00.000Z');
    const wanted = (await history(api, sub.id, 100)).filter((x) => /^(subscription|collection)\./.test(x.type));
    expect(wanted.filter((x) => x.type === 'collection.paid').length).toBe(3); // the first and two renewals
    await r.until(() => wanted.every((x) => r.ids().includes(x.id)), 15_000, 'the advance');
  }, 30_000);

  test('attempts older than the retention (30 days) are pruned', async () => {
    const r = await receiver();
    const e = await register(r);
    const id = await productEvent('Pruned');
    await r.until(() => r.ids().includes(id));
    const dispatcher = t.app.get(WebhookDispatcher);
    const logOf = async () => (await t.as(key).get(`/v1/webhook_endpoints/${e.id}/deliveries?event=${id}`)).body.data;
    // The receiver has the request before the sender has its answer and records the attempt: wait for the record.
    for (let i = 0; i < 200 && (await logOf()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await logOf()).toHaveLength(1);
    await dispatcher.prune(new Date(Date.now() + 29 * 86_400_000));
    expect(await logOf()).toHaveLength(1);
    expect(await dispatcher.prune(new Date(Date.now() + 31 * 86_400_000))).toBeGreaterThanOrEqual(2); // the attempt and the finished delivery
    expect(await logOf()).toHaveLength(0);
  });
});
