import type { TestApp } from './test-app.js';

/** The outbox messages matching `query` (GET /v1/test_helpers/outbox), once `count` are there (the follower mails shortly after the event). */
export async function outboxFor(app: TestApp, apiKey: string, query: string, count = 1, timeoutMs = 10_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.as(apiKey).get(`/v1/test_helpers/outbox?${query}`);
    if (res.status !== 200) throw new Error(`outbox answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (res.body.data.length >= count || Date.now() > deadline) return res.body.data;
    await new Promise((r) => setTimeout(r, 50));
  }
}
