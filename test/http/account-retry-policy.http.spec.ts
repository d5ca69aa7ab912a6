import { AccountRetryPolicy } from '#accounts/application/account-retry-policy.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const URL = '/v1/account/retry_policy';
const DEFAULT = { object: 'retry_policy', retry_days: [1, 3, 5], final_days: 7 };

describe('GET /v1/account/retry_policy', () => {
  test('a new account has the documented default, with either key', async () => {
    const { test_key, live_key } = await t.account('Retry default');
    const res = await t.as(test_key).get(URL);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULT);
    expect((await t.as(live_key).get(URL)).body).toEqual(DEFAULT);
  });

  test('needs a key', async () => {
    expect((await t.http().get(URL)).status).toBe(401);
    expect((await t.http().post(URL).send({ retry_days: [1], final_days: 2 })).status).toBe(401);
  });
});

describe('POST /v1/account/retry_policy', () => {
  test('sets the policy for both modes; a later GET answers the same', async () => {
    const { test_key, live_key } = await t.account('Retry set');
    const set = await t.as(live_key).post(URL, { retry_days: [2, 4, 8, 16], final_days: 30 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ object: 'retry_policy', retry_days: [2, 4, 8, 16], final_days: 30 });
    expect((await t.as(live_key).get(URL)).body).toEqual(set.body);
    expect((await t.as(test_key).get(URL)).body).toEqual(set.body);

    const none = await t.as(test_key).post(URL, { retry_days: [], final_days: 1 });
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ object: 'retry_policy', retry_days: [], final_days: 1 });
    expect((await t.as(live_key).get(URL)).body).toEqual(none.body);
  });

  test('setting the same policy again answers 200 with it', async () => {
    const { test_key } = await t.account('Retry same');
    const again = await t.as(test_key).post(URL, { retry_days: [1, 3, 5], final_days: 7 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(DEFAULT);
    expect((await t.as(test_key).post(URL, { retry_days: [1, 2], final_days: 3 })).body).toEqual({ object: 'retry_policy', retry_days: [1, 2], final_days: 3 });
    expect((await t.as(test_key).post(URL, { retry_days: [1, 2], final_days: 3 })).status).toBe(200);
  });

  test('each account has its own policy; policy events stay out of the feed', async () => {
    const a = await t.account('Retry A');
    const b = await t.account('Retry B');
    await t.as(a.test_key).post(URL, { retry_days: [10], final_days: 20 });
    expect((await t.as(b.test_key).get(URL)).body).toEqual(DEFAULT);
    expect((await t.as(a.test_key).get('/v1/events')).body.data).toEqual([]);
    expect((await t.as(a.live_key).get('/v1/events')).body.data).toEqual([]);
  });

  test('the rules: 400 parameter_invalid naming retry_days or final_days, nothing written', async () => {
    const { test_key } = await t.account('Retry rules');
    const refused = async (body: object, param: string, code = 'parameter_invalid') => {
      const res = await t.as(test_key).post(URL, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
      return res.body.error;
    };
    await refused({ retry_days: [1, 3], final_days: 0 }, 'final_days');
    await refused({ retry_days: [1, 3], final_days: 91 }, 'final_days');
    await refused({ retry_days: [1, 3], final_days: 7.5 }, 'final_days');
    await refused({ retry_days: [1, 3], final_days: '7' }, 'final_days');
    await refused({ retry_days: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], final_days: 90 }, 'retry_days');
    await refused({ retry_days: [0, 3], final_days: 7 }, 'retry_days');
    await refused({ retry_days: [1, 61], final_days: 90 }, 'retry_days');
    await refused({ retry_days: [1.5], final_days: 7 }, 'retry_days');
    await refused({ retry_days: ['1'], final_days: 7 }, 'retry_days');
    await refused({ retry_days: '1,3,5', final_days: 7 }, 'retry_days');
    await refused({ retry_days: [3, 1], final_days: 7 }, 'retry_days');
    await refused({ retry_days: [3, 3], final_days: 7 }, 'retry_days');
    const tooLate = await refused({ retry_days: [1, 3, 7], final_days: 7 }, 'retry_days');
    expect(tooLate.message).toBe('every entry of retry_days must be less than final_days (7)');
    await refused({ final_days: 7 }, 'retry_days', 'parameter_missing');
    await refused({ retry_days: [1] }, 'final_days', 'parameter_missing');
    await refused({ retry_days: null, final_days: 7 }, 'retry_days');
    await refused({ retry_days: [1], final_days: 7, mode: 'live' }, 'mode', 'parameter_unknown');
    expect((await t.as(test_key).get(URL)).body).toEqual(DEFAULT);
  });

  test('a retried POST with the same Idempotency-Key replays the first answer', async () => {
    const { live_key } = await t.account('Retry idem');
    const headers = { 'Idempotency-Key': 'rp-1' };
    const first = await t.as(live_key).post(URL, { retry_days: [2], final_days: 5 }, headers);
    const again = await t.as(live_key).post(URL, { retry_days: [2], final_days: 5 }, headers);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});

describe('AccountRetryPolicy (for other contexts)', () => {
  test('reads the account stream: the default, then what was set', async () => {
    const { id, test_key } = await t.account('Retry service');
    const policies = t.app.get(AccountRetryPolicy);
    expect(await policies.policy(id)).toEqual({ retry_days: [1, 3, 5], final_days: 7 });
    await t.as(test_key).post(URL, { retry_days: [3, 6], final_days: 12 });
    expect(await policies.policy(id)).toEqual({ retry_days: [3, 6], final_days: 12 });
    expect(await policies.policy('acct_doesNotExist')).toEqual({ retry_days: [1, 3, 5], final_days: 7 });
  });
});

describe('service', () => {
  test('OpenAPI lists the retry policy path under account', async () => {
    const doc = await t.http().get('/openapi.json');
    expect(doc.body.paths[URL]).toBeDefined();
    expect(doc.body.paths[URL].post.tags).toEqual(['account']);
    expect(Object.keys(doc.body.paths[URL])).toEqual(expect.arrayContaining(['get', 'post']));
  });
});
