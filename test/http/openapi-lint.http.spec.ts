import { join } from 'node:path';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A standard linter passes the served document: Redocly's (its recommended rules and the stricter
 * ones of redocly.yaml). The document is linted as `openapi.json` at the repository's root, the file
 * name .redocly.lint-ignore.yaml accepts its few problems under, each one named and justified there.
 */
let t: TestApp;
let doc: any;

beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.http().get('/openapi.json').expect(200)).body;
});
afterAll(() => t?.close());

test('the served OpenAPI document passes Redocly lint (redocly.yaml): no error, no warning', async () => {
  const config = await loadConfig({ configPath: join(process.cwd(), 'redocly.yaml') });
  const problems = await lintFromString({ source: JSON.stringify(doc, null, 2), absoluteRef: join(process.cwd(), 'openapi.json'), config });
  const describe = (p: (typeof problems)[number]) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`;
  expect(problems.filter((p) => !p.ignored).map(describe)).toEqual([]);
  // The accepted ones are exactly those the ignore file names (none of its entries is stale).
  expect(problems.filter((p) => p.ignored).map(describe)).toEqual([
    'warn operation-4xx-response: Operation must have at least one `4XX` response. at #/paths/~1health/get/responses',
    'warn operation-4xx-response: Operation must have at least one `4XX` response. at #/paths/~1health~1ready/get/responses',
  ]);
});

test('no property is an untyped object: nullable text is `type: string, nullable: true`', () => {
  const untyped: string[] = [];
  const walk = (node: any, at: string): void => {
    if (!node || typeof node !== 'object') return;
    if (node.type === 'object' && !node.properties && !node.additionalProperties && !node.allOf && !node.oneOf && !node.$ref) untyped.push(at);
    for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
  };
  walk(doc.components, '#/components');
  walk(doc.paths, '#/paths');
  expect(untyped).toEqual([]);
});

test('servers, licence, authentication: /v1 takes Basic or Bearer (the secret key, not a JWT), the health checks none', () => {
  expect(doc.servers).toEqual([{ url: '/', description: 'This service' }]);
  expect(doc.info.license.name).toMatch(/UNLICENSED/);
  expect(doc.components.securitySchemes.bearer).not.toHaveProperty('bearerFormat');
  expect(doc.paths['/health'].get.security).toEqual([]);
  expect(doc.paths['/health/ready'].get.security).toEqual([]);
  expect(doc.paths['/v1/subscriptions'].post.security).toEqual([{ basic: [] }, { bearer: [] }]);
});

test('every /v1 operation declares 503 (store_unavailable, handler_timeout), with the error shape', () => {
  const without: string[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (op.responses['503']?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error') without.push(`${method} ${path}`);
    }
  }
  expect(without).toEqual([]);
});

test('creating a price takes a recurring body (billing_period and billing_interval required) or a one-time one (neither)', () => {
  const body = doc.paths['/v1/prices'].post.requestBody.content['application/json'].schema;
  expect(body.discriminator).toEqual({
    propertyName: 'type',
    mapping: { recurring: '#/components/schemas/CreateRecurringPrice', one_time: '#/components/schemas/CreateOneTimePrice' },
  });
  const recurring = doc.components.schemas.CreateRecurringPrice;
  const oneTime = doc.components.schemas.CreateOneTimePrice;
  expect(recurring.required).toEqual(expect.arrayContaining(['product_id', 'type', 'billing_period', 'billing_interval']));
  expect(recurring.properties.type.enum).toEqual(['recurring']);
  expect(oneTime.properties.type.enum).toEqual(['one_time']);
  expect(oneTime.properties).not.toHaveProperty('billing_interval');
  // The answer: present on every price, null on a one-time one.
  expect(doc.components.schemas.Price.required).toContain('billing_interval');
  expect(doc.components.schemas.Price.properties.billing_interval.nullable).toBe(true);
});
