import { startTestApp, type TestApp } from '../support/test-app.js';
import { feed } from '../support/subscription-helpers.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { WebhookDispatcher } from '#webhooks/application/webhook-dispatcher.js';

/**
 * The dispatcher reads the endpoint list when the pipeline has committed an endpoint's event, not
 * on every append. The poll is set far out (10 minutes), so only that signal can find a new endpoint.
 */
let t: TestApp;
let key: string;
let dispatcher: WebhookDispatcher;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  t = await startTestApp({ webhooks: true, env: { WEBHOOK_POLL_MS: '600000' } });
  key = (await t.account()).test_key;
  dispatcher = t.app.get(WebhookDispatcher);
  await receiver.up();
});
afterAll(async () => {
  await receiver.down();
  await t.close();
});

const productCreated = async (name: string) => {
  const product = (await t.as(key).post('/v1/products', { name })).body;
  return (await feed(t.as(key), undefined, `object_id=${product.id}`)).find((x) => x.type === 'product.created')!.id;
};

test('appends of other events do not read the endpoint list; a new endpoint is found without waiting for the poll', async () => {
  await productCreated('Warm-up'); // the start-up read is behind us
  const before = dispatcher.refreshes;
  for (let i = 0; i < 5; i++) await productCreated(`Plan ${i}`);
  expect(dispatcher.refreshes).toBe(before);

  const res = await t.as(key).post('/v1/webhook_endpoints', { url: receiver.url, enabled_events: ['product.created'] });
  expect(res.status).toBe(200);
  receiver.secrets = [res.body.secret];
  const id = await productCreated('After the endpoint');
  await receiver.until(() => receiver.ids().includes(id), 5_000, 'the first event after the endpoint');
  expect(dispatcher.refreshes).toBeGreaterThan(before);
  expect(dispatcher.refreshes).toBeLessThanOrEqual(before + 2);
});
