import fc from 'fast-check';
import { EVENT_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { report } from '../support/test-output.js';
import { billingSetup } from '../support/billing-fixtures.js';

/**
 * Generated bodies for every POST operation of the OpenAPI document (fast-check): no 5xx ever, and a
 * rejected request (4xx) leaves the event store's head where it was. 402 (a declined payment) is an
 * answer whose attempt is recorded on purpose, so it is not a "rejected request" here.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

let t: TestApp;
let key: string;
let events: EventStore;
let operations: Array<{ path: string; fields: Record<string, any> }>;
let ids: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  events = t.app.get(EVENT_STORE);
  const openapi = (await t.http().get('/openapi.json')).body;
  const setup = await billingSetup(t.as(key));
  const sub = await t.as(key).post('/v1/subscriptions', { customer: setup.customer.id, items: [{ price: setup.monthly.id }], collection_method: 'collect', days_until_due: 5 });
  ids = {
    product: setup.product.id,
    price: setup.monthly.id,
    customer: setup.customer.id,
    subscription: sub.body.id,
    collection: sub.body.latest_collection,
  };
  operations = [];
  for (const [path, methods] of Object.entries<any>(openapi.paths)) {
    const op = methods.post;
    if (!op || !path.startsWith('/v1/')) continue;
    // A body is one schema or a choice of them (oneOf: creating a price); the fields of all of them.
    const body = op.requestBody?.content?.['application/json']?.schema;
    const refs: string[] = body?.$ref ? [body.$ref] : (body?.oneOf ?? []).map((s: { $ref: string }) => s.$ref);
    const fields = Object.assign({}, ...refs.map((ref) => openapi.components.schemas[ref.split('/').pop()!].properties ?? {}));
    operations.push({ path, fields });
  }
}, 120_000);
afterAll(() => t.close());

const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.constantFrom('', '0', '-1', '1.5', '1e400', 'COP', 'usd', 'XXX', 'month', 'charge', 'collect', 'card', 'gateway_a', '2026-13-45', 'a\u0000b', '$where', '__proto__'),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxKeys: 3 }),
);

function bodyFor(fields: Record<string, any>) {
  const names = Object.keys(fields);
  const known = names.length
    ? fc.dictionary(fc.constantFrom(...names), junk, { maxKeys: Math.min(names.length, 6) })
    : fc.constant({} as Record<string, unknown>);
  return fc.tuple(known, fc.option(fc.dictionary(fc.string({ maxLength: 8 }), junk, { maxKeys: 2 }), { nil: undefined }));
}

test(`${RUNS} generated bodies across every POST operation: no 5xx, and no rejected request changes anything`, async () => {
  expect(operations.length).toBeGreaterThan(20);
  const idFor = (path: string) => {
    if (path.startsWith('/v1/products')) return ids.product;
    if (path.startsWith('/v1/prices')) return ids.price;
    if (path.startsWith('/v1/customers')) return ids.customer;
    if (path.startsWith('/v1/subscriptions')) return ids.subscription;
    if (path.startsWith('/v1/collections')) return ids.collection;
    return 'x_unknown';
  };
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: operations.length - 1 }).chain((i) => fc.tuple(fc.constant(i), bodyFor(operations[i].fields))),
      async ([i, [known, extra]]) => {
        const op = operations[i];
        const url = op.path.replace(/\{[^}]+\}/g, (m) => (m === '{id}' ? idFor(op.path) : 'si_unknown'));
        const body = { ...(extra ?? {}), ...known };
        const before = await events.headPosition();
        const res = await t.as(key).post(url, body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) throw new Error(`${url} ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status >= 400 && res.status !== 402) {
          const after = await events.headPosition();
          if (after !== before) throw new Error(`${url} ${JSON.stringify(body)} → ${res.status} ${res.body?.error?.code} yet appended events`);
          if (!res.body?.error?.code) throw new Error(`${url} → ${res.status} without the error shape`);
        }
      },
    ),
    { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
  );
  report(`[fuzz] ${RUNS} bodies over ${operations.length} POST operations; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
}, 600_000);
