import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildService, sendToLive, startChild } from '../support/child-service.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { report } from '../support/test-output.js';
import { card } from '../support/billing-fixtures.js';

/**
 * A rolling restart of separate processes on one DATA_DIR: two ROLE=api and two ROLE=worker, each
 * stopped with SIGTERM (it finishes its requests, hands its leases back) and started again, one at a
 * time (API, API, worker, worker), under a steady mixed load: customers and subscriptions (card in
 * test mode) created with an Idempotency-Key, read back, webhook deliveries of every event to a local
 * receiver; and a test clock advanced a month after each restart (its renewals run by the API that
 * takes the advance, waiting for the projections the workers run). A request that finds no listener
 * goes to the other API with the same key, as a proxy would. No 5xx is answered, every key's answer is
 * kept (sent again, the same answer), every feed event is delivered, every renewal runs once.
 */
const ENV = { EVENTSTORE_URL: '', MONGO_URL: '', RATE_LIMIT_MAX: '0', LEASE_TTL_MS: '3000', LEASE_RENEW_MS: '500', WEBHOOK_POLL_MS: '50' };
const API = { ...ENV, ROLE: 'api' };
const WORKER = { ...ENV, ROLE: 'worker' };
const T0 = '2026-01-15T12:00:00.000Z';
const months = (n: number) => { const d = new Date(T0); d.setUTCMonth(d.getUTCMonth() + n); return d.toISOString(); };
const pause = (ms: number) => new Promise((res) => setTimeout(res, ms));
const began = Date.now();
const step = (what: string) => process.env.ROLLING_TRACE && process.stderr.write(`[rolling split ${((Date.now() - began) / 1000).toFixed(1)} s] ${what}\n`);

test('rolling restart of two APIs and two workers under a mixed load: no 5xx, every key kept, every event delivered, every renewal once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rolling-split-'));
  const r = await new WebhookReceiver().up();
  // The worker first: an API's first start waits for the projections (the default account's keys).
  const workers: (ChildService | null)[] = [await startChild(null, dataDir, WORKER), null];
  const apis: (ChildService | null)[] = [await startChild(null, dataDir, API), null];
  try {
    const key = apis[0]!.testKey!;
    expect(key).toMatch(/^sk_test_/);
    const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' };
    const post = async (path: string, body: object) => {
      const res = await fetch(`${apis[0]!.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      const json = (await res.json()) as any;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    /** Ids of the feed's events after `cursor`, oldest first. */
    const feedAfter = async (cursor: string | undefined): Promise<string[]> => {
      const ids: string[] = [];
      for (;;) {
        const page = (await (await fetch(`${apis[0]!.url}/v1/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`, { headers: auth })).json()) as { data: { id: string; type: string }[]; has_more: boolean };
        // The endpoint's own creation is not sent to it.
        ids.push(...page.data.filter((e) => !e.type.startsWith('webhook_endpoint.')).map((e) => e.id));
        if (!page.has_more) return ids;
        cursor = page.data[page.data.length - 1].id;
      }
    };
    const before = (await feedAfter(undefined)).at(-1);
    const endpoint = await post('/v1/webhook_endpoints', { url: r.url, enabled_events: ['*'] });
    r.secrets = [endpoint.secret];
    const product = await post('/v1/products', { name: 'Rolling plan' });
    const price = await post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900', currency: 'COP' });
    // Subscriptions on a test clock: their renewals are the deadlines that must each run once.
    const clock = await post('/v1/test_helpers/test_clocks', { frozen_time: T0 });
    const onClock: string[] = [];
    for (let i = 0; i < 4; i++) {
      const customer = await post('/v1/customers', { email: `clock.${i}@example.com`, test_clock: clock.id });
      onClock.push((await post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], payment_information: card() })).id);
    }
    step('set up');
    [apis[1], workers[1]] = await Promise.all([startChild(null, dataDir, API), startChild(null, dataDir, WORKER)]);

    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const kept = new Map<string, { path: string; body: string; id: string }>(); // Idempotency-Key → the request and its answer's id
    let stop = false;
    /** Sends to a live process; a connection refused or reset goes to the other (same key), as a proxy does. */
    const send = sendToLive(() => apis);
    const create = async (idem: string, path: string, body: object): Promise<string | null> => {
      const text = JSON.stringify(body);
      const res = await send(path, { method: 'POST', headers: { ...auth, 'Idempotency-Key': idem }, body: text });
      count(res.status);
      const answer = (await res.json()) as { id?: string };
      if (res.status !== 200 || !answer.id) return null;
      kept.set(idem, { path, body: text, id: answer.id });
      return answer.id;
    };
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const customer = await create(`split-${c}-${i}-customer`, '/v1/customers', { email: `load.${c}.${i}@example.com`, name: `Load ${c}-${i}` });
        if (!customer) continue;
        const sub = await create(`split-${c}-${i}-subscription`, '/v1/subscriptions', { customer, items: [{ price: price.id }], payment_information: card() });
        if (!sub) continue;
        const read = await send(`/v1/subscriptions/${sub}`, { headers: auth });
        count(read.status);
        expect(((await read.json()) as { status?: string }).status).toBe('active');
        await pause(150); // a steady load, not a flood
      }
    };
    step('four processes up');
    const load = Promise.all(Array.from({ length: 3 }, (_, c) => client(c)));
    await pause(1500);

    let advanced = 0;
    const restart = async (list: (ChildService | null)[], i: number, env: Record<string, string>) => {
      const old = list[i]!;
      list[i] = null;
      await old.kill('SIGTERM');
      expect(old.process.exitCode).toBe(0);
      step(`stopped ${env.ROLE} ${i}`);
      await pause(300);
      list[i] = await startChild(null, dataDir, env);
      step(`started ${env.ROLE} ${i}`);
      // A month of the clock after each restart (with its own key: a retry gets the same answer).
      advanced += 1;
      const res = await send(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': `advance-${advanced}` }, body: JSON.stringify({ frozen_time: months(advanced) }) });
      count(res.status);
      expect(await res.json()).toMatchObject({ status: 'ready', frozen_time: months(advanced) });
      step(`advanced ${advanced}`);
      await pause(1000);
    };
    await restart(apis, 0, API);
    await restart(apis, 1, API);
    await restart(workers, 0, WORKER);
    await restart(workers, 1, WORKER);
    stop = true;
    await load;

    step(`load stopped: ${kept.size} keys`);
    expect(Object.fromEntries(statuses)).toEqual({ 200: expect.any(Number) });
    const subscriptions = [...kept.values()].filter((k) => k.path === '/v1/subscriptions');
    expect(subscriptions.length).toBeGreaterThan(10);
    // Every key's answer kept: sent again (to either API), the same object; and it is in the stores.
    for (const [idem, k] of kept) {
      for (const api of apis) {
        const again = await fetch(`${api!.url}${k.path}`, { method: 'POST', headers: { ...auth, 'Idempotency-Key': idem }, body: k.body });
        expect({ idem, status: again.status, id: ((await again.json()) as { id: string }).id }).toEqual({ idem, status: 200, id: k.id });
      }
    }
    for (const k of subscriptions) expect((await fetch(`${apis[1]!.url}/v1/subscriptions/${k.id}`, { headers: auth })).status).toBe(200);

    step('keys read back');
    // Every renewal ran once: four advances of a month, four cycle collections per subscription on the clock, one per period.
    for (const sub of onClock) {
      const list = (await (await fetch(`${apis[0]!.url}/v1/collections?subscription=${sub}&limit=100`, { headers: auth })).json()) as { data: { billing_reason: string; status: string; created_date: string }[] };
      const cycles = list.data.filter((c) => c.billing_reason === 'subscription_cycle');
      expect({ sub, cycles: cycles.length, periods: new Set(cycles.map((c) => c.created_date)).size }).toEqual({ sub, cycles: 4, periods: 4 });
      expect(cycles.every((c) => c.status === 'paid')).toBe(true);
      expect(await (await fetch(`${apis[0]!.url}/v1/subscriptions/${sub}`, { headers: auth })).json()).toMatchObject({ current_period_start: months(4) });
    }

    // Every event of the feed since the endpoint was made reaches the receiver.
    const feed = await feedAfter(before);
    step(`renewals checked; ${feed.length} events to see delivered`);
    const delivered = () => new Set(r.received.map((x) => x.body?.id as string));
    await r.until(() => {
      const seen = delivered();
      return feed.every((id) => seen.has(id));
    }, 60_000, 'every feed event\'s webhook').catch((error: Error) => {
      const seen = delivered();
      throw new Error(`not delivered: ${feed.filter((id) => !seen.has(id)).join(', ')}; ${error.message.slice(0, 300)}`);
    });
    report(`[rolling restart, split] ${subscriptions.length} subscriptions created under load across four restarts (api, api, worker, worker), ${feed.length} events delivered, ${onClock.length}×4 renewals once each, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  } finally {
    for (const p of [...apis, ...workers]) await p?.kill('SIGKILL');
    await r.down();
  }
}, 120_000);
