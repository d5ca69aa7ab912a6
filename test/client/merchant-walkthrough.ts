/**
 * A merchant's integration, written as a merchant would: against the types openapi-typescript
 * generates from the served /openapi.json (./generated/billing-api.d.ts, written by
 * test/http/merchant-client.http.spec.ts), through openapi-fetch's typed client. No casts, no
 * `any`: if the document and the answers disagreed, this would not compile or its checks would fail.
 *
 * Not part of tsconfig.json (the generated file exists only once the test has run); the test
 * type-checks it with the project's compiler options, then runs it against a test app.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/billing-api.js';

type Schemas = components['schemas'];

export interface WalkthroughResult {
  product: Schemas['Product'];
  price: Schemas['Price'];
  oneTimePrice: Schemas['Price'];
  customer: Schemas['Customer'];
  subscription: Schemas['Subscription'];
  collection: Schemas['Collection'];
  events: Schemas['Event'][];
  refused: Schemas['Error'];
}

/** The answer of a call that must succeed; a refusal stops the walk with the API's own message. */
function ok<T>(result: { data?: T; error?: Schemas['Error'] | unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.url}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function merchantWalkthrough(baseUrl: string, secretKey: string): Promise<WalkthroughResult> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}` } });

  const product = ok(await api.POST('/v1/products', { body: { name: 'Plan Pro', description: 'Facturación mensual' } }));
  // A recurring price: the generated body type requires billing_period and billing_interval.
  const price = ok(
    await api.POST('/v1/prices', {
      body: { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900.00' },
    }),
  );
  // A one-time price has neither.
  const oneTimePrice = ok(await api.POST('/v1/prices', { body: { product_id: product.id, type: 'one_time', unit_price: '15000.00' } }));
  const customer = ok(
    await api.POST('/v1/customers', {
      body: {
        email: `cliente.${Date.now()}@example.com`,
        name: 'Ana Gómez',
        document_type: 'CC',
        document_number: '1020304050',
        billing_address: { address_1: 'Cra 7 # 71-21', address_2: null, city: 'Bogotá', state: 'Cundinamarca', country: 'CO' },
      },
    }),
  );
  const subscription = ok(
    await api.POST('/v1/subscriptions', {
      body: { customer: customer.id, collection_method: 'collect', days_until_due: 7, items: [{ price: price.id, quantity: 2 }, { price: oneTimePrice.id }] },
    }),
  );
  // latest_collection is nullable in the type: the client has to say what it does without one.
  if (subscription.latest_collection === null) throw new Error('A collect subscription starts with its first collection');
  const collection = ok(await api.GET('/v1/collections/{id}', { params: { path: { id: subscription.latest_collection } } }));
  const events = ok(await api.GET('/v1/events', { params: { query: { customer: customer.id, limit: 20 } } })).data;

  // A refusal comes back typed as the API's error.
  const refusal = await api.POST('/v1/prices', { body: { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 0, unit_price: '1.00' } });
  if (refusal.error === undefined) throw new Error('billing_interval 0 was accepted');
  return { product, price, oneTimePrice, customer, subscription, collection, events, refused: refusal.error };
}
