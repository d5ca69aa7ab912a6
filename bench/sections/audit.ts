import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { AuditExport } from '#audit/application/audit-export.js';
import { AUDIT_COLLECTIONS, AuditLog } from '#audit/application/audit-log.js';
import { verifyAuditChain } from '#audit/application/verify-chain.js';
import type { EventStore, NewEvent, StreamAppend } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { StateCollections } from '#platform/state-collections.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { SystemClock } from '#shared/clock.js';
import { newEventUuid } from '#shared/ids.js';
import { SecretSealer } from '#shared/sealing.js';
import { CONCURRENCY } from '../support/concurrency.js';
import { fmt, MiB } from '../support/format.js';
import { middleOf } from '../support/median.js';
import type { Section } from '../support/section.js';
import { target } from '../support/targets.js';
import { benchDir } from '../support/workdir.js';

/**
 * 10. The audit log (issue 33 §6, docs/audit.md): what the hash chain costs the embedded store's
 *     appends (chain on vs off, same workload, alternating rounds, in this run), how fast `audit
 *     verify`'s function walks it, and how fast an account's export streams against a plain read of
 *     the same events, at N and 5N events, with what the export keeps alive (the live heap after full
 *     collections along it: flat if it streams).
 */
const EVENTS = Number(process.env.BENCH_AUDIT_EVENTS ?? 20_000);
const EXPORT_EVENTS = Number(process.env.BENCH_AUDIT_EXPORT_EVENTS ?? 10_000);
const ACCOUNTS = 10;
const ROUNDS = 5;
/** The read page of the plain baselines: the verifier's and the export's own page size. */
const PAGE = 500;

/**
 * The events of one create-subscription as the service commits them (one appendMany over three
 * streams: the subscription, its first collection and its invoice), in realistic shapes and sizes.
 */
function subscriptionGroup(g: number, account: string): StreamAppend[] {
  const n = String(g).padStart(8, '0');
  const sub = `sub_bench${n}`;
  const col = `col_bench${n}`;
  const inv = `inv_bench${n}`;
  const cus = `cus_bench${String(g % 997).padStart(8, '0')}`;
  const at = new Date(Date.UTC(2026, 0, 1) + g * 1000).toISOString();
  const end = new Date(Date.UTC(2026, 1, 1) + g * 1000).toISOString();
  const metadata = () => ({
    account_id: account, mode: 'test' as const, occurred_at: at, request_id: `req_bench${n}`, idempotency_key: `idem-${n}`,
    causation_id: `req_bench${n}`, correlation_id: `req_bench${n}`, actor: { type: 'api_key', id: 'key_bench0001' },
  });
  const item = { id: `si_bench${n}`, price: 'price_bench0001', product: 'prod_bench0001', quantity: 1, unit_price: '49900.00', currency: 'COP', billing_period: 'month', billing_interval: 1 };
  const base = { id: sub, customer: cus, meta_data: { plan: 'pro', channel: 'web' } };
  const ev = (type: string, data: Record<string, unknown>): NewEvent => ({ id: newEventUuid(), type, data, metadata: metadata() });
  return [
    {
      streamId: `subscription-${sub}`,
      expected: 'no_stream',
      events: [
        ev('subscription.created', {
          ...base, account_id: account, is_test: true, created_at: at, status: 'incomplete', items: [item], collection_method: 'charge',
          payment_method: `pm_bench${n}`, currency: 'COP', start_date: at, trial_end: null, cancel_at: null, collections_limit: null,
          billing_cycle_anchor: at, invoice_settings: { invoice_tax_percentage: '19', invoice_tax_id: null }, discounts: [], first_collection: col,
        }),
        ev('subscription.started', {
          ...base, status: 'incomplete', current_period_start: at, current_period_end: end, next_renewal_date: end, cycle: 1, collection: col,
          collections_count: 1, started_at: at, first_payment_expires_at: null, activated_at: null,
        }),
        ev('subscription.activated', { ...base, status: 'active', activated_at: at, collection: col }),
      ],
    },
    {
      streamId: `collection-${col}`,
      expected: 'no_stream',
      events: [
        ev('collection.created', {
          id: col, account_id: account, is_test: true, created_at: at, subscription: sub, customer: cus, invoice: inv, amount: '59381.00',
          currency: 'COP', status: 'pending', attempt: 1, payment_method: `pm_bench${n}`, due_date: at, period_start: at, period_end: end,
        }),
        ev('collection.paid', {
          id: col, status: 'paid', paid_at: at, amount: '59381.00', currency: 'COP',
          charge: { id: `ch_bench${n}`, gateway: 'gateway_a', gateway_reference: `gw-${n}`, card: { brand: 'visa', last4: '4242' }, authorization_code: '123456' },
        }),
      ],
    },
    {
      streamId: `invoice-${inv}`,
      expected: 'no_stream',
      events: [
        ev('invoice.created', {
          id: inv, account_id: account, is_test: true, created_at: at, subscription: sub, customer: cus, collection: col, currency: 'COP', status: 'open',
          lines: [{ description: 'Plan Pro (monthly)', price: item.price, quantity: 1, unit_amount: '49900.00', subtotal: '49900.00', tax_percentage: '19', tax: '9481.00', total: '59381.00', period_start: at, period_end: end }],
          subtotal: '49900.00', tax: '9481.00', total: '59381.00', due_date: at,
        }),
        ev('invoice.paid', { id: inv, status: 'paid', paid_at: at, amount_paid: '59381.00', collection: col }),
      ],
    },
  ];
}
const EVENTS_PER_GROUP = 7;

/**
 * Appends `groups` create-subscriptions to a fresh store, CONCURRENCY commits in flight: events per
 * second, and the CPU time the process spent per event (all its threads: the appending one, the
 * writer, the WAL checkpointer), which other load on the machine moves less than the rate.
 */
async function appendRound(file: string, chain: boolean, groups: number, accounts: number, cpu?: number[]): Promise<number> {
  const store = new SqliteEventStore(file, { auditChain: chain });
  let next = 0;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < groups) {
        const g = next++;
        await store.appendMany(subscriptionGroup(g, `acct_bench${String(g % accounts).padStart(4, '0')}`));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpuStart);
  cpu?.push((used.user + used.system) / (groups * EVENTS_PER_GROUP));
  await store.close();
  return (groups * EVENTS_PER_GROUP) / seconds;
}

/** A plain read of the whole log in pages: the number of events and the seconds it took. */
async function plainRead(events: EventStore): Promise<{ count: number; seconds: number }> {
  const started = performance.now();
  let count = 0;
  for (let after: string | null = null; ; ) {
    const page = await events.readAll({ after, maxCount: PAGE });
    if (page.length === 0) break;
    count += page.length;
    after = page[page.length - 1].position;
  }
  return { count, seconds: (performance.now() - started) / 1000 };
}

/**
 * A full garbage collection (V8's own, exposed for this process at its first use): what the heap holds
 * right after one is what the export keeps alive. Without it the heap and the RSS grow with the garbage
 * V8 has not collected yet, which says nothing about what a streamed export retains.
 */
let gc: (() => void) | null = null;
function fullGc(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/** An account's export (every line counted, none kept): its events, bytes, seconds, and the RSS at its start and its peak. */
async function exportOnce(
  exporter: AuditExport,
  account: string,
  liveEvery = 0,
): Promise<{ events: number; bytes: number; seconds: number; rssStart: number; rssPeak: number; heapPeak: number; livePeak: number }> {
  let livePeak = 0;
  const rssStart = process.memoryUsage.rss();
  let rssPeak = rssStart;
  let heapPeak = process.memoryUsage().heapUsed;
  const started = performance.now();
  const prepared = await exporter.prepare(account, { type: 'account' });
  let lines = 0;
  let bytes = 0;
  let last = '';
  for await (const line of exporter.lines(prepared)) {
    lines += 1;
    bytes += Buffer.byteLength(line) + 1;
    last = line;
    if (lines % 1000 === 0) {
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
    if (liveEvery && lines % liveEvery === 0) {
      fullGc();
      livePeak = Math.max(livePeak, process.memoryUsage().heapUsed);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  const end = JSON.parse(last) as { kind: string; events?: number; message?: string };
  if (end.kind !== 'signed_head') throw new Error(`audit export ended with ${end.kind}: ${end.message ?? ''}`);
  if (end.events !== lines - 2) throw new Error(`audit export: the signed head line counts ${end.events} events, the file has ${lines - 2}`);
  return { events: lines - 2, bytes, seconds, rssStart, rssPeak, heapPeak, livePeak };
}

async function auditBench() {
  const dir = benchDir();
  const groups = Math.ceil(EVENTS / EVENTS_PER_GROUP);
  const total = groups * EVENTS_PER_GROUP;

  // 1. Appends, chain off and on, alternating rounds on fresh files (the page cache and the machine's
  //    load drift over a run: alternating spreads the drift over both, and the order flips each round
  //    so that neither always goes first), after an untimed warm-up pair (the JIT, the first writer
  //    thread's start and the page cache would otherwise land on the first off round).
  console.log(`\n10. The audit log (embedded store): appends with the hash chain on vs off, verification, export`);
  console.log(`   appends: ${fmt(total)} events each round (${fmt(groups)} create-subscriptions of ${EVENTS_PER_GROUP} events over 3 streams, one appendMany each,`);
  console.log(`   ${CONCURRENCY} in flight, ${ACCOUNTS} accounts), chain off and on alternating (order flipped each round) after a warm-up pair, ${ROUNDS} rounds each, medians`);
  await appendRound(join(dir, 'audit-warm-off.sqlite'), false, Math.ceil(groups / 4), ACCOUNTS);
  await appendRound(join(dir, 'audit-warm-on.sqlite'), true, Math.ceil(groups / 4), ACCOUNTS);
  const off: number[] = [];
  const on: number[] = [];
  const offCpu: number[] = [];
  const onCpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const chain of r % 2 === 0 ? [false, true] : [true, false]) {
      if (chain) on.push(await appendRound(join(dir, `audit-on-${r}.sqlite`), true, groups, ACCOUNTS, onCpu));
      else off.push(await appendRound(join(dir, `audit-off-${r}.sqlite`), false, groups, ACCOUNTS, offCpu));
    }
  }
  const offMedian = middleOf(off);
  const onMedian = middleOf(on);
  const us = (v: number) => `${v.toFixed(1)} µs`;
  console.log(`   chain off: ${fmt(offMedian)} events/s (rounds ${off.map(fmt).join(', ')}), CPU ${us(middleOf(offCpu))} per event`);
  console.log(`   chain on:  ${fmt(onMedian)} events/s (rounds ${on.map(fmt).join(', ')}), CPU ${us(middleOf(onCpu))} per event`);
  target('audit: appends with the chain on / off (events/s)', onMedian / offMedian, 0.9);

  // 2. Verification: `audit verify`'s function over the last chain-on store, opened as the CLI opens
  //    it (inline, nothing chained at open), against a plain read of the same log.
  const verifyFile = join(dir, `audit-on-${ROUNDS - 1}.sqlite`);
  const verifyStore = new SqliteEventStore(verifyFile, { writer: 'inline', auditChain: false });
  try {
    const verifyRates: number[] = [];
    const readRates: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const report = await verifyAuditChain(verifyStore);
      const seconds = (performance.now() - started) / 1000;
      if (!report.ok || report.events !== total || report.accounts !== ACCOUNTS) {
        throw new Error(`audit verify over an untouched store: ${JSON.stringify(report)} (expected ${total} events of ${ACCOUNTS} accounts, ok)`);
      }
      verifyRates.push(total / seconds);
      const read = await plainRead(verifyStore);
      if (read.count !== total) throw new Error(`audit: a plain read gave ${read.count} events of ${total}`);
      readRates.push(read.count / read.seconds);
    }
    const verify = middleOf(verifyRates);
    const read = middleOf(readRates);
    console.log(`   verify (${fmt(total)} events, ${ACCOUNTS} accounts): ${fmt(verify)} events/s; a plain read of the same log ${fmt(read)} events/s (${(verify / read).toFixed(2)}x)`);
  } finally {
    await verifyStore.close();
  }

  // 3. Export: an account's export (every line built and counted, none kept) against a plain read of
  //    the same events, at N and 5N events in one account; the live heap sampled along a fourth export.
  const reads = new SqliteReadStore(join(dir, 'audit-read.sqlite'));
  await reads.ensureCollections(AUDIT_COLLECTIONS);
  const clock = new SystemClock();
  const sealer = new SecretSealer(randomBytes(32));
  try {
    console.log(`   export of one account (JSON Lines counted, not kept) vs a plain read of the same events (pages of ${PAGE}), medians of 3:`);
    const sizes = [EXPORT_EVENTS, EXPORT_EVENTS * 5];
    const lives: number[] = [];
    for (const size of sizes) {
      const g = Math.ceil(size / EVENTS_PER_GROUP);
      const file = join(dir, `audit-export-${size}.sqlite`);
      await appendRound(file, true, g, 1);
      const events = new SqliteEventStore(file, { writer: 'inline' });
      try {
        const log = new AuditLog(events, reads, clock, sealer, new StateCollections());
        const exporter = new AuditExport(events, reads, clock, log);
        const runs = [];
        const readRates: number[] = [];
        for (let i = 0; i < 3; i++) {
          const run = await exportOnce(exporter, 'acct_bench0000');
          if (run.events !== g * EVENTS_PER_GROUP) throw new Error(`audit export: ${run.events} events of ${g * EVENTS_PER_GROUP}`);
          runs.push(run);
          const read = await plainRead(events);
          readRates.push(read.count / read.seconds);
        }
        // A fourth export, not timed: the live heap after a full collection, eight times along it.
        const memory = await exportOnce(exporter, 'acct_bench0000', Math.ceil((g * EVENTS_PER_GROUP) / 8));
        lives.push(memory.livePeak);
        const rate = middleOf(runs.map((r) => r.events / r.seconds));
        const read = middleOf(readRates);
        const peak = Math.max(...runs.map((r) => r.rssPeak));
        const growth = Math.max(...runs.map((r) => r.rssPeak - r.rssStart));
        const heap = Math.max(...runs.map((r) => r.heapPeak));
        console.log(`   ${fmt(g * EVENTS_PER_GROUP).padStart(7)} events: export ${fmt(rate)} events/s (${MiB(runs[0].bytes)}), plain read ${fmt(read)} events/s: ${(rate / read).toFixed(2)}x`);
        console.log(`           live heap ≤ ${MiB(memory.livePeak)} (after full collections along it); timed runs: peak heap ${MiB(heap)}, peak RSS ${MiB(peak)} (+${MiB(growth)} over its start)`);
      } finally {
        await events.close();
      }
    }
    target('audit: live heap exporting 5N / N events (memory flat)', lives[1] / lives[0], 1.2, 'lower');
  } finally {
    await reads.close();
  }
}

export const audit: Section = { name: 'audit', run: auditBench };
