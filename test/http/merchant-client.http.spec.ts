import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { generateTypes } from '../client/generate-types.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A client generated from the served document works without casts: openapi-typescript turns
 * /openapi.json into types (test/client/generated/billing-api.d.ts), the merchant walk-through
 * (test/client/merchant-walkthrough.ts, openapi-fetch) type-checks against them with the project's
 * compiler options, and then runs against the service, whose answers are checked here.
 */
const WALKTHROUGH = join(process.cwd(), 'test', 'client', 'merchant-walkthrough.ts');
const GENERATED = join(process.cwd(), 'test', 'client', 'generated', 'billing-api.d.ts');

let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.getHttpServer().address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const document: object = JSON.parse(await (await fetch(`${baseUrl}/openapi.json`)).text());
  mkdirSync(join(GENERATED, '..'), { recursive: true });
  writeFileSync(GENERATED, await generateTypes(document));
}, 120_000);
afterAll(() => t?.close());

test('the walk-through type-checks against the generated types, with no cast and no any', () => {
  const source = readFileSync(WALKTHROUGH, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  expect(source.match(/\bas\s+(?!const\b)[A-Za-z{[(]/g)).toBeNull();
  expect(source.match(/\bany\b|@ts-|!\./g)).toBeNull();
  const parsed = ts.getParsedCommandLineOfConfigFile(join(process.cwd(), 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram([WALKTHROUGH], { ...parsed!.options, noEmit: true, skipLibCheck: false, noUnusedLocals: true });
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => !d.file || !d.file.fileName.includes('node_modules'));
  expect(diagnostics.map((d) => `${d.file ? `${d.file.fileName.replace(process.cwd(), '')}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)).toEqual([]);
}, 120_000);

test('the generated types say what the service does: billing_interval required for recurring prices, name nullable, create|after', () => {
  const probe = join(GENERATED, '..', 'probe.ts');
  writeFileSync(
    probe,
    [
      "import type { components } from './billing-api.js';",
      "type S = components['schemas'];",
      "export const recurring: S['CreateRecurringPrice'] = { product_id: 'prod_1', type: 'recurring', billing_period: 'month', unit_price: '1.00' };",
      "export const oneTime: S['CreateOneTimePrice'] = { product_id: 'prod_1', type: 'one_time', unit_price: '1.00', billing_interval: 1 };",
      "export const name = (c: S['Customer']): string => c.name;",
      "export const invoicing: Array<S['Subscription']['first_payment_invoicing']> = ['create', 'after'];",
      "export const interval = (p: S['Price']): number | null => p.billing_interval;",
    ].join('\n'),
  );
  const parsed = ts.getParsedCommandLineOfConfigFile(join(process.cwd(), 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  const program = ts.createProgram([probe], { ...parsed!.options, noEmit: true });
  const errors = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? d.file.getLineAndCharacterOfPosition(d.start!).line + 1 : 0}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  // Exactly three refusals: the recurring body without billing_interval, the one-time body with it, a nullable name as a string.
  expect(errors).toHaveLength(3);
  expect(errors[0]).toMatch(/^3: .*billing_interval/);
  expect(errors[1]).toMatch(/^4: .*billing_interval/);
  expect(errors[2]).toMatch(/^5: .*null.*not assignable to type 'string'/);
}, 120_000);

test('the walk-through runs against the service: what it created comes back as the types say', async () => {
  const { test_key: key } = await t.account();
  // Not a static import: tsc must not type-check it without the generated types (see above).
  const walkthroughModule = '../client/merchant-walkthrough.js';
  const { merchantWalkthrough } = await import(walkthroughModule);
  const r = await merchantWalkthrough(baseUrl, key);
  expect(r.product).toMatchObject({ object: 'product', name: 'Plan Pro', status: 'active' });
  expect(r.price).toMatchObject({ object: 'price', type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900.00', currency: 'COP' });
  expect(r.oneTimePrice).toMatchObject({ type: 'one_time', billing_period: null, billing_interval: null, unit_price: '15000.00' });
  expect(r.customer).toMatchObject({ object: 'customer', name: 'Ana Gómez', document_type: 'CC', billing_address: { city: 'Bogotá', address_2: null } });
  expect(r.subscription).toMatchObject({ object: 'subscription', customer: r.customer.id, collection_method: 'collect', status: 'active', first_payment_invoicing: 'after' });
  expect(r.collection).toMatchObject({ id: r.subscription.latest_collection, object: 'collection', customer: r.customer.id, subscription: r.subscription.id, status: 'pending' });
  // 2 × 49,900 + 15,000.
  expect(r.collection.total).toBe('114800.00');
  expect(r.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['customer.created', 'subscription.created', 'collection.created']));
  expect(r.refused.error).toMatchObject({ type: 'invalid_request_error', param: 'billing_interval' });
}, 120_000);
