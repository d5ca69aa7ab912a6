import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { NewEvent } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { allProjections } from '#projections/index.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { newEventUuid } from '#shared/ids.js';
import { fmt } from '../support/format.js';
import { middleOf, threeTimes } from '../support/median.js';
import { startCpuProfile } from '../support/profile.js';
import type { Section } from '../support/section.js';
import { target } from '../support/targets.js';
import { benchDir } from '../support/workdir.js';

/** 2. Projection rebuild speed over BENCH_REBUILD_EVENTS (default 100,000) events (events per second, every projection). */
const REBUILD_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 100_000);

async function rebuildBench() {
  const dir = benchDir();
  console.log(`\n2. Projection rebuild over ${fmt(REBUILD_EVENTS)} events (every projection, embedded stores)`);
  const events = new SqliteEventStore(join(dir, 'rebuild-events.sqlite'));
  const products = Math.max(1, Math.floor(REBUILD_EVENTS / 10));
  const batch: Promise<unknown>[] = [];
  for (let p = 0; p < products; p++) {
    const id = `prod_bench${String(p).padStart(8, '0')}`;
    const created = new Date(Date.UTC(2026, 0, 1) + p * 1000).toISOString();
    const evs: NewEvent[] = [
      {
        id: newEventUuid(),
        type: 'product.created',
        data: {
          id, account_id: 'acct_bench', is_test: p % 2 === 0, created_at: created, name: `Product ${p}`, description: null, status: 'active',
          product_merchant_id: null, product_invoicing_id: null, product_shopA_id: null, product_shopB_id: null, image: null,
          invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: '19' }, meta_data: {},
        },
        metadata: { account_id: 'acct_bench', mode: p % 2 === 0 ? 'test' : 'live', occurred_at: created },
      },
      ...Array.from({ length: 9 }, (_, u) => ({
        id: newEventUuid(),
        type: 'product.updated',
        data: { id, changes: { name: `Product ${p} v${u + 1}`, meta_data: { version: String(u + 1) } } },
        metadata: { account_id: 'acct_bench', mode: (p % 2 === 0 ? 'test' : 'live') as 'test' | 'live', occurred_at: created },
      })),
    ];
    batch.push(events.append(`product-${id}`, evs, 'no_stream'));
    if (batch.length >= 500) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  const total = products * 10;

  // The baseline: a plain read-and-parse of the same events from the same store, in pages; three
  // times (its speed swings with the page cache), the median counts.
  const readPass = async () => {
    const readStarted = performance.now();
    let read = 0;
    for (let after: string | null = null; ; ) {
      const page = await events.readAll({ after, maxCount: 1000 });
      if (page.length === 0) break;
      read += page.length;
      after = page[page.length - 1].position;
    }
    if (read !== total) throw new Error(`rebuild: read ${read} events of ${total}`);
    return (performance.now() - readStarted) / 1000;
  };
  const readTimes = await threeTimes(readPass);
  const readSeconds = middleOf(readTimes);

  const store = new SqliteReadStore(join(dir, 'rebuild-read.sqlite'));
  const engine = new ProjectionEngine(allProjections(), events, store);
  await engine.init();
  const rssBefore = process.memoryUsage().rss;
  const profiler = await startCpuProfile();
  let started = performance.now();
  await engine.rebuild();
  const times = [(performance.now() - started) / 1000];
  await profiler?.stop(`rebuild-${total}`);
  const rss = process.memoryUsage().rss - rssBefore;
  const dumps = [dumpReadModels(join(dir, 'rebuild-read.sqlite'))];
  // Twice more (the same work: every read model emptied and rebuilt): the median counts, and each must end byte-identical.
  for (let i = 0; i < 2; i++) {
    started = performance.now();
    await engine.rebuild();
    times.push((performance.now() - started) / 1000);
    dumps.push(dumpReadModels(join(dir, 'rebuild-read.sqlite')));
  }
  const seconds = middleOf(times);
  const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  console.log(`   plain read-and-parse: ${fmt(total / readSeconds).padStart(9)} events/s (median of ${list(readTimes)} s for ${fmt(total)} events)`);
  console.log(`   rebuild of all ${engine.projections.length} projections (one pass): ${fmt(total / seconds).padStart(9)} events/s (median of ${list(times)} s)`);
  console.log(`   rss ${fmt(rss / 1048576)} MiB above the start of the first rebuild`);
  const same = dumps.every((d) => d === dumps[0]);
  console.log(`   check: three rebuilds end byte-identical (sha-256 of every read-model table): ${same ? 'OK' : 'FAILED'}`);
  target('rebuild of every projection / plain read-and-parse (floor)', readSeconds / seconds, 0.12);
  await events.close();
  await store.close();
  if (!same) throw new Error('rebuild: the rebuilds of the same events differ');
}

/** A hash of every read-model table's rows, in id order. */
function dumpReadModels(file: string): string {
  const db = new Database(file, { readonly: true });
  const hash = createHash('sha256');
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_%' ORDER BY name").all() as { name: string }[];
  for (const { name } of tables) {
    hash.update(name);
    for (const row of db.prepare(`SELECT id, doc FROM ${name} ORDER BY id`).iterate() as Iterable<{ id: string; doc: string }>) hash.update(row.id).update(row.doc);
  }
  db.close();
  return hash.digest('hex');
}

export const rebuild: Section = { name: 'rebuild', run: rebuildBench };
