import { jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventBrief, NewEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { newEventUuid } from '#shared/ids.js';
import { allProjections, serviceProjections } from './index.js';
import { PipelineThread } from '#projection-runtime/pipeline-thread.js';
import { ProjectionEngine, ReadModelParkedError } from '#projection-runtime/projection-engine.js';

/**
 * The pipeline in its own thread (PROJECTIONS_THREAD=worker): the real projections, on the
 * embedded stores' files, with the event loop only waking it and hearing its progress.
 */
const created = '2026-01-01T00:00:00.000Z';
const owner = { account_id: 'acct_thread', mode: 'test' as const, occurred_at: created };

function productCreated(id: string, metaData: Record<string, unknown> = {}): NewEvent {
  return {
    id: newEventUuid(),
    type: 'product.created',
    data: {
      id, account_id: 'acct_thread', is_test: true, created_at: created, name: `Product ${id}`, description: null, status: 'active',
      product_merchant_id: null, product_invoicing_id: null, product_shopA_id: null, product_shopB_id: null, image: null,
      invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: '19' }, meta_data: metaData,
    },
    metadata: owner,
  };
}

function customerCreated(id: string): NewEvent {
  return {
    id: newEventUuid(),
    type: 'customer.created',
    data: { id, account_id: 'acct_thread', is_test: true, created_at: created, email: `${id}@example.com`, name: id, meta_data: {} },
    metadata: owner,
  };
}

let dir: string;
let events: SqliteEventStore;
let store: SqliteReadStore;
let engine: ProjectionEngine;

function open(): ProjectionEngine {
  return new ProjectionEngine(allProjections(), events, store, { retries: 1, backoffMs: 20 }, { events: events.file, readModels: store.file, projections: serviceProjections.module, startCheckpointer: () => store.startCheckpointer(), announced: () => events.announcedHead() });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pipeline-thread-'));
  events = new SqliteEventStore(join(dir, 'events.sqlite'));
  store = new SqliteReadStore(join(dir, 'read-models.sqlite'));
  engine = open();
});

afterEach(async () => {
  await engine.stop();
  await events.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the projection pipeline in its own thread', () => {
  test('projects every projection in the thread; a waiter is released once its position is committed, and the batch was shown first', async () => {
    expect(engine.pipeline).toBeInstanceOf(PipelineThread);
    await engine.init();
    const shown: EventBrief[] = [];
    // The products checkpoint as each batch is shown: still before the batch's first event.
    const checkpointsWhenShown: [string | null | undefined, string][] = [];
    engine.pipeline.onBatch((batch) => {
      shown.push(...batch);
      checkpointsWhenShown.push([engine.pipeline.checkpoints().get('products'), batch[0].position]);
    });
    engine.start();
    const product = await events.append('product-prod_t1', [productCreated('prod_t1')], 'no_stream');
    const customer = await events.append('customer-cus_t1', [customerCreated('cus_t1')], 'no_stream');
    expect(await engine.waitFor(customer.position, 10_000)).toBe(true);

    // Written by the thread, read here from the event loop's own connection.
    expect(await store.get('products', 'prod_t1')).toMatchObject({ id: 'prod_t1', object: 'product', name: 'Product prod_t1', _position: product.position });
    expect(await store.get('customers', 'cus_t1')).toMatchObject({ id: 'cus_t1', object: 'customer' });
    const feed = await store.find<{ type: string }>('events', { where: { _account: 'acct_thread' }, orderBy: { field: '_seq', direction: 'asc' }, limit: 10 });
    expect(feed.map((e) => e.type)).toEqual(['product.created', 'customer.created']);
    // Every checkpoint, here and in the store, is at the head.
    for (const [name, checkpoint] of engine.pipeline.checkpoints()) {
      expect([name, checkpoint]).toEqual([name, customer.position]);
      expect(await store.getCheckpoint(name)).toBe(customer.position);
    }
    // The listeners saw each event in brief (no data), in the global order, before its commit was reported.
    expect(shown.map((e) => [e.streamId, e.revision, e.type, e.position])).toEqual([
      ['product-prod_t1', 0, 'product.created', product.position],
      ['customer-cus_t1', 0, 'customer.created', customer.position],
    ]);
    expect(shown.every((e) => !('data' in e))).toBe(true);
    expect(checkpointsWhenShown.length).toBeGreaterThan(0);
    for (const [checkpoint, first] of checkpointsWhenShown) expect(checkpoint === null || checkpoint! < first).toBe(true);
    expect(engine.pipeline.watching()).toBe(true);
  });

  test('a document the store cannot hold parks its projection; the others go on; a waiter that needs it fails at once', async () => {
    await engine.init();
    engine.start();
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      // A field name no store may hold (MongoDB's rule on "."): the products projection's writes are refused.
      const poisoned = await events.append('product-prod_bad', [productCreated('prod_bad', { 'a.b': 'x' })], 'no_stream');
      const after = await events.append('customer-cus_t2', [customerCreated('cus_t2')], 'no_stream');
      await expect(engine.waitFor(after.position, 10_000)).rejects.toBeInstanceOf(ReadModelParkedError);
      expect(engine.pipeline.parked()).toEqual([expect.objectContaining({ id: 'products', event_type: 'product.created', position: poisoned.position })]);
      // The others went on past the poisoned event.
      const until = Date.now() + 10_000;
      while (engine.pipeline.checkpoints().get('customers') !== after.position && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(engine.pipeline.checkpoints().get('customers')).toBe(after.position);
      expect(await store.get('customers', 'cus_t2')).toMatchObject({ id: 'cus_t2' });
      expect(await store.get('products', 'prod_bad')).toBeNull();
      // What /health and `projections status` read.
      expect((await engine.status()).find((p) => p.name === 'products')?.parked).toMatchObject({ event_id: expect.any(String), error: expect.stringContaining('a.b') });
      // What the thread logged reaches this thread's console (the service's log).
      expect(log).toHaveBeenCalledWith(expect.stringContaining('projection products parked after 2 attempts'), '');
    } finally {
      log.mockRestore();
    }
  });

  test('a restart resumes from the committed checkpoints; a thread that stops is started again', async () => {
    await engine.init();
    engine.start();
    const first = await events.append('product-prod_r1', [productCreated('prod_r1')], 'no_stream');
    expect(await engine.waitFor(first.position, 10_000)).toBe(true);
    await engine.stop();

    // Appended while no pipeline runs; a new engine on the same files starts from what was committed.
    const second = await events.append('product-prod_r2', [productCreated('prod_r2')], 'no_stream');
    engine = open();
    await engine.init();
    expect(engine.pipeline.checkpoints().get('products')).toBe(first.position);
    expect(await engine.catchUp()).toBe(1);
    engine.start();
    expect(await engine.waitFor(second.position, 10_000)).toBe(true);
    expect(await store.get('products', 'prod_r2')).toMatchObject({ id: 'prod_r2' });

    // The thread ends unexpectedly: it is started again, and the appends that follow are projected.
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await (engine.pipeline as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      const third = await events.append('product-prod_r3', [productCreated('prod_r3')], 'no_stream');
      expect(await engine.waitFor(third.position, 10_000)).toBe(true);
      expect(await store.get('products', 'prod_r3')).toMatchObject({ id: 'prod_r3' });
    } finally {
      log.mockRestore();
    }
  });
});
