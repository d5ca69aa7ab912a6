import type { ReadStore } from '#read-store/read-store.port.js';
import { DeliveryLog, type DeliveryDoc, deliveryId } from '#webhooks/application/delivery-log.js';

/**
 * The webhook delivery log on a ReadStore adapter: cursor and deliveries move together, pending
 * deliveries come soonest first, attempts list newest first, failed-since selects by event time,
 * pruning removes what is past the retention. One suite, every adapter (SQLite here, MongoDB when
 * MONGO_URL is set).
 */
export function deliveryLogContract(open: () => Promise<ReadStore>): void {
  let store: ReadStore;
  let log: DeliveryLog;
  beforeEach(async () => {
    store = await open();
    log = new DeliveryLog(store);
    await log.init();
    await store.reset(['webhook_deliveries', 'webhook_attempts', 'webhook_cursors'], 'webhook_delivery_log_contract'); // a shared server keeps old runs
    await log.init();
  });
  afterEach(() => store.close());

  const delivery = (endpoint: string, seq: string, over: Partial<DeliveryDoc> = {}): DeliveryDoc => ({
    id: deliveryId(endpoint, seq),
    _endpoint: endpoint,
    event: `evt_${seq}`,
    event_type: 'product.created',
    _seq: seq,
    _object_id: `prod_${seq}`,
    _event_created: `2026-11-23T10:00:0${seq.slice(-1)}.000Z`,
    _updated: '2026-11-23T10:00:00.000Z',
    status: 'pending',
    step: 0,
    attempts: 0,
    next_attempt_at: '2026-11-23T10:00:00.000Z',
    ...over,
  });

  test('queue moves the cursor with the deliveries; pending comes soonest first, ties in feed order', async () => {
    await log.queue([delivery('we_1', '0002'), delivery('we_1', '0001'), delivery('we_1', '0003', { next_attempt_at: '2026-11-23T09:00:00.000Z' })], { id: 'we_1', seq: '0003', event: 'evt_0003' });
    expect(await log.cursor('we_1')).toEqual({ id: 'we_1', seq: '0003', event: 'evt_0003' });
    expect((await log.pending('we_1', 10)).map((d) => d._seq)).toEqual(['0003', '0001', '0002']);
    expect(await log.pending('we_2', 10)).toEqual([]);
  });

  test('attempts list newest first; failed-since by event time; prune by age', async () => {
    const d = delivery('we_1', '0001', { attempts: 1, status: 'failed', next_attempt_at: null });
    await log.queue([d, delivery('we_1', '0005', { status: 'failed' })], { id: 'we_1', seq: '0005', event: 'evt_0005' });
    await log.recordAttempt(d, { ok: false, status_code: 500, error: 'http_status', duration_ms: 3, response_body: 'no' }, new Date('2026-10-01T00:00:00.000Z'));
    await log.recordAttempt(d, { ok: true, status_code: 200, error: null, duration_ms: 2, response_body: '' }, new Date('2026-11-23T00:00:00.000Z'));
    expect((await log.attempts('we_1', { limit: 10 })).map((a) => a.status_code)).toEqual([200, 500]);
    expect((await log.failedSince('we_1', '2026-11-23T10:00:03.000Z', 100)).map((x) => x._seq)).toEqual(['0005']);
    expect(await log.prune(new Date('2026-11-01T00:00:00.000Z'))).toBe(1);
    expect((await log.attempts('we_1', { limit: 10 })).map((a) => a.status_code)).toEqual([200]);
  });
}
