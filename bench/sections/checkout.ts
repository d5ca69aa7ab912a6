import { CommandBus } from '@nestjs/cqrs';
import { join } from 'node:path';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { createApp } from '#api/create-app.js';
import { loadConfig } from '#platform/config.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { fmt } from '../support/format.js';
import type { Section } from '../support/section.js';
import { benchDir } from '../support/workdir.js';

/**
 * A customer's browser for section 6, over real sockets (Node's fetch, keep-alive): keeps its
 * cookies (the CSRF secret, the session's token cookie), reads the CSRF token of the last page, and
 * follows nothing by itself (each 303 is checked, then the next page is asked for, as a browser does).
 */
function benchBrowser(origin: string) {
  const jar = new Map<string, string>();
  let csrf = '';
  const call = async (method: 'GET' | 'POST', path: string, form?: Record<string, string>) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), 'user-agent': 'bench-browser', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams({ _csrf: csrf, ...form }).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (/Max-Age=0/i.test(line)) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const text = await res.text();
    const m = /name="_csrf" value="([^"]+)"/.exec(text);
    if (m) csrf = m[1];
    return { status: res.status, text, location: res.headers.get('location') };
  };
  return { get: (path: string) => call('GET', path), post: (path: string, form: Record<string, string>) => call('POST', path, form) };
}

/**
 * Section 6: a checkout completion is what a merchant and a customer do together, every step over
 * HTTP on real sockets against the service listening on a local port: the merchant's POST
 * /v1/checkout_session (mode subscription, no customer), then the customer's browser — the boot page,
 * the token posted from the fragment (`/open`, the cookie set), the page, the e-mail (a new customer:
 * `/email`, the page, `/customer`, the page), the card (`/pay`, 303) and the thank-you page: nine page
 * requests, the same a browser makes (the cached script aside). The baseline is POST
 * /v1/subscriptions (charge, approving card, an existing customer) over the same sockets. Both run
 * `width` at a time for `seconds` each, in one process on fresh embedded stores; the API's per-key
 * rate limit is off for the section.
 */
async function checkoutBench() {
  const width = 16;
  const seconds = Number(process.env.BENCH_CHECKOUT_SECONDS ?? 10);
  console.log(`\n6. Hosted checkout completions through the page's own HTTP calls vs create-subscription over the API (one process listening on a local port; ${width} at a time, ${seconds} s each)`);
  const config = { ...loadConfig({ DATA_DIR: join(benchDir(), 'checkout'), SCHEDULER: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0' }), role: 'all' as const };
  const app = await createApp({ config });
  try {
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    const origin = `http://127.0.0.1:${address.port}`;
    const engine = app.get(ProjectionEngine);
    const bus = app.get(CommandBus);
    const account = await bus.execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Bench checkout'));
    await engine.waitFor(account.position);
    const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
    const api = async <T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> => {
      const res = await fetch(`${origin}${path}`, { method, headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as T;
    };
    const product = await api<{ id: string }>('POST', '/v1/products', { name: 'Plan Checkout' });
    const price = await api<{ id: string }>('POST', '/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900' });
    const customers: string[] = [];
    for (let i = 0; i < width; i++) customers.push((await api<{ id: string }>('POST', '/v1/customers', { email: `bench.checkout.${i}@example.com`, name: `Checkout ${i}` })).id);
    const cardInfo = { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } };
    const cardForm = { method: 'card', card_number: '4242 4242 4242 4242', card_exp: '12/30', card_cvc: '123', card_holder: 'Ana Gomez' };

    const timed = async (label: string, op: (worker: number) => Promise<void>) => {
      for (let w = 0; w < width; w++) await op(w); // warm-up: one each
      let done = 0;
      const latencies: number[] = [];
      const until = performance.now() + seconds * 1000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: width }, async (_, w) => {
          while (performance.now() < until) {
            const t0 = performance.now();
            await op(w);
            latencies.push(performance.now() - t0);
            done++;
          }
        }),
      );
      const rate = done / ((performance.now() - started) / 1000);
      latencies.sort((a, b) => a - b);
      console.log(`   ${label.padEnd(58)} ${rate.toFixed(1).padStart(7)}/s   p50 ${latencies[Math.floor(latencies.length / 2)].toFixed(0)} ms   p99 ${latencies[Math.floor(latencies.length * 0.99)].toFixed(0)} ms`);
      return rate;
    };

    const subs: string[] = [];
    const baseline = await timed('POST /v1/subscriptions (create-subscription, baseline)', async (w) => {
      const sub = await api<{ id: string; status: string }>('POST', '/v1/subscriptions', { customer: customers[w], items: [{ price: price.id }], payment_information: cardInfo });
      if (sub.status !== 'active') throw new Error(`subscription ${sub.id} is ${sub.status}`);
      subs.push(sub.id);
    });
    const sessions: string[] = [];
    let buyer = 0;
    // Time spent per step (summed over all completions), to see where a completion goes.
    const stepMs = new Map<string, number>();
    const completions = await timed("checkout session + the page's 9 requests (completion)", async () => {
      let last = performance.now();
      const took = (step: string) => {
        const now = performance.now();
        stepMs.set(step, (stepMs.get(step) ?? 0) + (now - last));
        last = now;
      };
      const expect = (step: string, got: { status: number; text: string }, status: number) => {
        if (got.status !== status) throw new Error(`checkout page ${step}: ${got.status} (expected ${status}) ${got.text.slice(0, 200)}`);
        took(step);
      };
      const session = await api<{ id: string; url: string }>('POST', '/v1/checkout_session', { mode: 'subscription', items: [{ price: price.id }] });
      took('POST /v1/checkout_session');
      const path = new URL(session.url).pathname;
      const token = session.url.split('#')[1];
      const browser = benchBrowser(origin);
      expect('GET boot', await browser.get(path), 200);
      expect('POST open', await browser.post(`${path}/open`, { token, locale: 'es-CO' }), 303);
      expect('GET page', await browser.get(path), 200);
      const email = `bench.buyer.${++buyer}.${Date.now()}@example.com`;
      expect('POST email', await browser.post(`${path}/email`, { email, locale: 'es-CO' }), 303);
      expect('GET page (new customer)', await browser.get(path), 200);
      expect('POST customer', await browser.post(`${path}/customer`, { email, name: 'Ana Gómez', document_type: 'CC', document_number: '1020304050', locale: 'es-CO' }), 303);
      expect('GET page (pay)', await browser.get(path), 200);
      expect('POST pay', await browser.post(`${path}/pay`, { ...cardForm, locale: 'es-CO' }), 303);
      const thanks = await browser.get(path);
      expect('GET thank-you', thanks, 200);
      if (!thanks.text.includes('¡Gracias por tu compra!')) throw new Error(`session ${session.id}: no thank-you page`);
      sessions.push(session.id);
    });
    const total = [...stepMs.values()].reduce((x, y) => x + y, 0);
    console.log(`   where a completion's time goes: ${[...stepMs].map(([k, v]) => `${k} ${((v / total) * 100).toFixed(0)} %`).join(', ')}`);
    console.log(`   checkout completion / create-subscription throughput ratio: ${(completions / baseline).toFixed(2)}`);
    // Check: every completion is a paid session whose subscription is active.
    let ok = 0;
    for (const id of sessions) {
      const s = await api<{ status: string; payment_status: string; subscription: string }>('GET', `/v1/checkout_session/${id}`);
      const sub = await api<{ status: string }>('GET', `/v1/subscriptions/${s.subscription}`);
      if (s.status === 'complete' && s.payment_status === 'paid' && sub.status === 'active') ok++;
    }
    console.log(`   check: ${fmt(sessions.length)} completions, ${fmt(ok)} complete + paid with an active subscription: ${ok === sessions.length ? 'OK' : 'FAILED'}`);
    if (ok !== sessions.length) throw new Error('checkout: not every completion is a paid session with an active subscription');
  } finally {
    await app.close();
  }
}

export const checkout: Section = { name: 'checkout', run: checkoutBench };
