import { AccountGateways } from '#accounts/application/account-gateways.js';
import { ALL_GATEWAYS, GATEWAY_METHODS } from '#payments/domain/gateways.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const URL = '/v1/account/gateways';

describe('GET /v1/account/gateways', () => {
  test('a new account lists its 11 default test gateways (offline included) and no live ones', async () => {
    const { test_key, live_key } = await t.account('Gateways default');
    const res = await t.as(test_key).get(URL);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', url: URL, has_more: false });
    expect(res.body.data).toHaveLength(11);
    expect(res.body.data.map((g: { id: string }) => g.id)).toEqual(ALL_GATEWAYS);
    expect(res.body.data[0]).toEqual({ object: 'gateway', id: 'gateway_a', connector: 'simulator', methods: [...GATEWAY_METHODS.gateway_a], mode: 'test' });
    expect(res.body.data[10]).toEqual({ object: 'gateway', id: 'offline', connector: 'offline', methods: [], mode: 'test' });
    const live = await t.as(live_key).get(URL);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ object: 'list', url: URL, has_more: false, data: [] });
  });

  test('needs a key', async () => {
    expect((await t.http().get(URL)).status).toBe(401);
  });
});

describe('POST and DELETE /v1/account/gateways', () => {
  test('add in live mode, list, remove; the test mode is untouched', async () => {
    const { test_key, live_key } = await t.account('Gateways live');
    const added = await t.as(live_key).post(URL, { gateway: 'gateway_b' });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ object: 'gateway', id: 'gateway_b', connector: 'simulator', methods: ['card', 'pse', 'efecty'], mode: 'live' });
    const again = await t.as(live_key).post(URL, { gateway: 'gateway_b' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(added.body);
    expect((await t.as(live_key).post(URL, { gateway: 'offline' })).body).toMatchObject({ id: 'offline', connector: 'offline', mode: 'live' });
    expect((await t.as(live_key).get(URL)).body.data.map((g: { id: string }) => g.id)).toEqual(['gateway_b', 'offline']);

    const removed = await t.as(live_key).delete(`${URL}/gateway_b`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: 'gateway_b', object: 'gateway', deleted: true });
    expect((await t.as(live_key).get(URL)).body.data.map((g: { id: string }) => g.id)).toEqual(['offline']);
    expect((await t.as(test_key).get(URL)).body.data).toHaveLength(11);
  });

  test('remove twice: the second is 404 naming gateway', async () => {
    const { test_key } = await t.account('Gateways remove');
    expect((await t.as(test_key).delete(`${URL}/gateway_c`)).status).toBe(200);
    const second = await t.as(test_key).delete(`${URL}/gateway_c`);
    expect(second.status).toBe(404);
    expect(second.body.error).toEqual({
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: 'The gateway gateway_c is not configured in the account',
      param: 'gateway',
    });
    const list = (await t.as(test_key).get(URL)).body.data.map((g: { id: string }) => g.id);
    expect(list).toHaveLength(10);
    expect(list).not.toContain('gateway_c');
    expect((await t.as(test_key).post(URL, { gateway: 'gateway_c' })).status).toBe(200);
    expect((await t.as(test_key).get(URL)).body.data.map((g: { id: string }) => g.id)).toEqual(ALL_GATEWAYS);
  });

  test('an unknown gateway is 400 with param gateway; bad bodies are refused', async () => {
    const { test_key } = await t.account('Gateways invalid');
    const unknown = await t.as(test_key).post(URL, { gateway: 'gateway_z' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'gateway' });
    const unknownDelete = await t.as(test_key).delete(`${URL}/gateway_z`);
    expect(unknownDelete.status).toBe(400);
    expect(unknownDelete.body.error.param).toBe('gateway');
    expect((await t.as(test_key).post(URL, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'gateway' });
    expect((await t.as(test_key).post(URL, { gateway: 7 })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'gateway' });
    expect((await t.as(test_key).post(URL, { gateway: 'gateway_a', mode: 'live' })).body.error).toMatchObject({ code: 'parameter_unknown', param: 'mode' });
  });

  test("each account has its own set; gateway events stay out of the feed", async () => {
    const a = await t.account('Gateways A');
    const b = await t.account('Gateways B');
    await t.as(a.test_key).delete(`${URL}/gateway_a`);
    await t.as(a.live_key).post(URL, { gateway: 'gateway_i' });
    expect((await t.as(b.test_key).get(URL)).body.data).toHaveLength(11);
    expect((await t.as(b.live_key).get(URL)).body.data).toEqual([]);
    expect((await t.as(a.test_key).get('/v1/events')).body.data).toEqual([]);
    expect((await t.as(a.live_key).get('/v1/events')).body.data).toEqual([]);
  });

  test('a retried POST with the same Idempotency-Key replays the first answer', async () => {
    const { live_key } = await t.account('Gateways idem');
    const headers = { 'Idempotency-Key': 'gw-1' };
    const first = await t.as(live_key).post(URL, { gateway: 'gateway_d' }, headers);
    const again = await t.as(live_key).post(URL, { gateway: 'gateway_d' }, headers);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('AccountGateways (for other contexts)', () => {
  test('reads the account stream: configured and assertConfigured', async () => {
    const { id, live_key } = await t.account('Gateways service');
    const gateways = t.app.get(AccountGateways);
    expect(await gateways.configured(id, 'test')).toEqual(ALL_GATEWAYS);
    expect(await gateways.configured(id, 'live')).toEqual([]);
    await expect(gateways.assertConfigured(id, 'test', 'gateway_e')).resolves.toBeUndefined();
    await expect(gateways.assertConfigured(id, 'live', 'gateway_e', 'payment_method[gateway]')).rejects.toMatchObject({
      status: 400,
      code: 'gateway_not_configured',
      param: 'payment_method[gateway]',
      message: 'The gateway gateway_e is not configured in the account',
    });
    await t.as(live_key).post(URL, { gateway: 'gateway_e' });
    expect(await gateways.configured(id, 'live')).toEqual(['gateway_e']);
    await expect(gateways.assertConfigured(id, 'live', 'gateway_e')).resolves.toBeUndefined();
    expect(await gateways.configured('acct_doesNotExist', 'test')).toEqual([]);
  });
});

describe('service', () => {
  test('OpenAPI lists the gateway paths', async () => {
    const doc = await t.http().get('/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining([URL, `${URL}/{gateway}`]));
    expect(doc.body.paths[URL].post.tags).toEqual(['account']);
  });
});
