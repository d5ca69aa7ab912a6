import type { TestApp } from './test-app.js';

type Client = ReturnType<TestApp['as']>;

export type FeedEvent = {
  id: string;
  type: string;
  created: string;
  is_test: boolean;
  data: { object: Record<string, any> };
};

/** Every event of the caller's feed after `after` (an `evt_` id; from the start when omitted), oldest first. */
export async function feed(api: Client, after?: string, query = ''): Promise<FeedEvent[]> {
  const seen: FeedEvent[] = [];
  let cursor = after;
  for (let guard = 0; guard < 500; guard++) {
    const res = await api.get(`/v1/events?limit=100${query ? `&${query}` : ''}${cursor ? `&starting_after=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`GET /v1/events answered ${res.status}: ${JSON.stringify(res.body)}`);
    seen.push(...res.body.data);
    if (!res.body.has_more) return seen;
    cursor = res.body.data[res.body.data.length - 1].id;
  }
  throw new Error('feed did not end');
}

/** The id of the caller's last feed event (undefined when the feed is empty). */
export async function lastEventId(api: Client): Promise<string | undefined> {
  const all = await feed(api);
  return all.length ? all[all.length - 1].id : undefined;
}

/** Every entry of a subscription's history, oldest first (paged with a small limit on purpose). */
export async function history(api: Client, subscriptionId: string, limit = 7): Promise<FeedEvent[]> {
  const seen: FeedEvent[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 200; guard++) {
    const res = await api.get(`/v1/subscriptions/${subscriptionId}/history?limit=${limit}${cursor ? `&starting_after=${cursor}` : ''}`);
    if (res.status !== 200) throw new Error(`history answered ${res.status}: ${JSON.stringify(res.body)}`);
    seen.push(...res.body.data);
    if (!res.body.has_more) return seen;
    cursor = res.body.data[res.body.data.length - 1].id;
  }
  throw new Error('history did not end');
}

/** The types of a subscription's own events in the feed (entries whose object is that subscription). */
export async function subscriptionEventTypes(api: Client, subscriptionId: string): Promise<string[]> {
  return (await feed(api, undefined, `object_id=${subscriptionId}`)).map((e) => e.type);
}

/** An error body as the API writes it, with the exact status, code, param and (when given) message. */
export function expectApiError(res: { status: number; body: any; headers: Record<string, string> }, status: number, code: string, param: string | null, message?: string | RegExp) {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({ status, code, param });
  expect(res.body.error).toEqual(
    expect.objectContaining({ type: 'invalid_request_error', code, param, message: typeof message === 'string' ? message : expect.stringMatching(message ?? /./) }),
  );
}

/** Adds `hours` to an ISO time. */
export const plusHours = (iso: string | Date, hours: number) => new Date(new Date(iso).getTime() + hours * 3_600_000).toISOString();
export const plusDays = (iso: string | Date, days: number) => plusHours(iso, days * 24);
