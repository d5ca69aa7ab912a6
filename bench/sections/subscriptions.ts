import { fmt } from '../support/format.js';
import { alternating, compare, CONNECTIONS, load, ROUNDS } from '../support/http-load.js';
import type { Section } from '../support/section.js';
import { call, listAll, type Service, startService } from '../support/service.js';
import { target } from '../support/targets.js';

interface Subscription {
  id: string;
  status: string;
}

/**
 * The bodies of create-subscription requests, one per connection: each its own product, monthly
 * price and customer, paid with the approving test card.
 */
export async function subscriptionBodies(service: Service, n: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const product = await call<{ id: string }>(service, '/v1/products', { name: `Plan ${i}` });
      const price = await call<{ id: string }>(service, '/v1/prices', {
        product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900',
      });
      const customer = await call<{ id: string }>(service, '/v1/customers', { email: `bench.${i}@example.com`, name: `Bench ${i}` });
      return JSON.stringify({
        customer: customer.id,
        collection_method: 'charge',
        items: [{ price: price.id }],
        payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
      });
    }),
  );
}

/**
 * 4. create-subscription over HTTP, paid with the approving test card: one request = a subscription,
 * its first collection, a transaction and a charge approved by the simulator (test card 4242…), a
 * saved payment method, and the activation. Each connection has its own product, monthly price and
 * customer, prepared before the load. Checked afterwards: every 2xx answer is an `active`
 * subscription in GET /v1/subscriptions.
 */
async function subscriptionBench() {
  console.log(`\n4. create-subscription (charge, approved card) over HTTP (a fresh service, same settings, ${CONNECTIONS} connections, the same warm-up and rounds)`);
  const service = await startService('http-subscriptions');
  try {
    const setups = await subscriptionBodies(service, CONNECTIONS);
    let connection = 0;
    // The warm-up's subscriptions are in the store, not in the check's count.
    const warmedUp: Subscription[] = [];
    const answered: Subscription[] = [];
    const rounds = await alternating(service, async (duration) => {
      const into = duration ? warmedUp : answered;
      const result = await load({
        url: `${service.url}/v1/subscriptions`,
        method: 'POST',
        headers: service.headers,
        body: setups[0],
        setupClient: (client) => client.setBody(setups[connection++ % setups.length]),
        requests: [{ onResponse: (status, body) => status < 300 && into.push(JSON.parse(body) as Subscription) }],
        title: duration ? 'create-subscription warm-up' : 'create-subscription',
        ...(duration ? { duration } : {}),
      });
      // Requests cut off client-side when a load stops still complete on the server: not into the next load.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return result;
    });
    const { ratio, p99 } = compare(rounds, 'create-subscription', 'POST /v1/subscriptions (create-subscription)');
    target('create-subscription / authenticated GET throughput (floor)', ratio, 0.06);
    target('create-subscription p99 latency (ms, floor)', p99, 200, 'lower');
    const answers = rounds.write.reduce((n, r) => n + r['2xx'], 0);

    // Requests still in flight when the load stops are cut off client-side but complete on the server.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const warm = new Set(warmedUp.map((s) => s.id));
    const stored = new Map((await listAll<Subscription>(service, '/v1/subscriptions')).filter((s) => !warm.has(s.id)).map((s) => [s.id, s.status]));
    const activeNow = answered.filter((s) => stored.get(s.id) === 'active').length;
    const answeredActive = answered.filter((s) => s.status === 'active').length;
    const distinct = new Set(answered.map((s) => s.id)).size;
    const allActive = [...stored.values()].filter((status) => status === 'active').length;
    const ok = answered.length === answers && distinct === answered.length && answeredActive === distinct && activeNow === distinct;
    console.log(
      `   check: ${fmt(answers)} 2xx answers in the ${ROUNDS} rounds, ${fmt(distinct)} distinct subscriptions, ${fmt(answeredActive)} answered active,` +
        ` ${fmt(activeNow)} active in GET /v1/subscriptions afterwards: ${ok ? 'OK' : 'FAILED'}`,
    );
    console.log(
      `   (besides the warm-up's ${fmt(warm.size)}, the store holds ${fmt(stored.size)}, ${fmt(allActive)} active: ${fmt(stored.size - distinct)} more from requests cut off client-side when a load stopped)`,
    );
    if (!ok) throw new Error('create-subscription: not every 2xx created an active subscription');
  } finally {
    await service.stop();
  }
}

export const subscriptions: Section = { name: 'subscriptions', run: subscriptionBench };
