import type { TestApp } from './test-app.js';

/** Test cards of the gateway simulator (see README). */
export const CARDS = {
  approve: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
  decline: { number: '4000000000000002', exp_month: 12, exp_year: 2030, cvc: '123' },
  insufficientFunds: { number: '4000000000009995', exp_month: 12, exp_year: 2030, cvc: '123' },
  flaky: { number: '4000000000000119', exp_month: 12, exp_year: 2030, cvc: '123' },
};

export const card = (c: keyof typeof CARDS = 'approve', gateway = 'gateway_a') => ({ gateway, type: 'card', card: CARDS[c] });

type Client = ReturnType<TestApp['as']>;

let seq = 0;

/** A product with a recurring monthly price (COP) and a one-time price, and a customer. */
export async function billingSetup(api: Client, opts: { unitPrice?: string; period?: string; interval?: number; currency?: string } = {}) {
  const product = (await api.post('/v1/products', { name: `Plan ${++seq}` })).body;
  const monthly = (
    await api.post('/v1/prices', {
      product_id: product.id,
      type: 'recurring',
      billing_period: opts.period ?? 'month',
      billing_interval: opts.interval ?? 1,
      unit_price: opts.unitPrice ?? '49900',
      currency: opts.currency ?? 'COP',
    })
  ).body;
  const setupFee = (await api.post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '10000' })).body;
  const customer = (await api.post('/v1/customers', { email: `billing.${++seq}.${Date.now()}@example.com`, name: 'Ana Gómez' })).body;
  return { product, monthly, setupFee, customer };
}
