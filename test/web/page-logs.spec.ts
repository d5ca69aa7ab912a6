import { CommandBus } from '@nestjs/cqrs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { createApp } from '#api/create-app.js';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { loadConfig } from '#platform/config.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';

test('a card posted on the collection page (declined or approved) appears in no log line', async () => {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const app = await createApp({ config: loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'page-logs-')), LOG_LEVEL: 'debug' }), logRequests: true, logStream: stream });
  try {
    const account = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Logs'));
    await app.get(ProjectionEngine).waitFor(account.position);
    const api = (path: string, body: object) => request(app.getHttpServer()).post(path).auth(account.test_key, '').send(body);
    const product = (await api('/v1/products', { name: 'P' })).body;
    const price = (await api('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '1000' })).body;
    const customer = (await api('/v1/customers', { email: 'logs@example.com' })).body;
    const sub = (await api('/v1/subscriptions', { customer: customer.id, collection_method: 'collect', days_until_due: 5, items: [{ price: price.id }] })).body;
    expect(sub.latest_collection).toMatch(/^col_/);
    const browser = request.agent(app.getHttpServer());
    const page = await browser.get(`/checkout/col/${sub.latest_collection}`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
    const declined = await browser.post(`/checkout/col/${sub.latest_collection}/pay`).type('form').send({ method: 'card', card_number: '4000000000000002', card_exp: '12/30', card_cvc: '987', _csrf: csrf });
    expect(declined.status).toBe(303); // post/redirect/get: the page then says why
    const paid = await browser.post(`/checkout/col/${sub.latest_collection}/pay`).type('form').send({ method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '987', _csrf: csrf });
    expect(paid.status).toBe(303);
    await new Promise((r) => setTimeout(r, 50));
    const all = lines.join('\n');
    expect(all).toContain(`/checkout/col/${sub.latest_collection}/pay`);
    expect(all).not.toContain('4000000000000002');
    expect(all).not.toContain('4242424242424242');
    expect(all).not.toMatch(/card_number|card_cvc|"987"|=987/); // no form body, no field
    expect(all).not.toContain(csrf);
  } finally {
    await app.close();
  }
});
