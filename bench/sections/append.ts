import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { event, plainInsertLoop } from '../support/baseline.js';
import { CONCURRENCY } from '../support/concurrency.js';
import { fmt } from '../support/format.js';
import { median } from '../support/median.js';
import type { Section } from '../support/section.js';
import { benchDir } from '../support/workdir.js';

/**
 * 1. Embedded event store append throughput (single-event and 10-event commits) vs a plain
 *    better-sqlite3 insert loop writing the same rows with the same durability (WAL, synchronous=FULL).
 */
const COMMITS = Number(process.env.BENCH_COMMITS ?? 3000);

async function storeAppends(file: string, commits: number, perCommit: number, concurrency: number): Promise<number> {
  const store = new SqliteEventStore(file);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < commits) {
        const c = next++;
        await store.append(`product-${c}`, Array.from({ length: perCommit }, (_, i) => event(c * perCommit + i)), 'no_stream');
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return commits / seconds;
}

async function appendBench() {
  const dir = benchDir();
  console.log(`\n1. Embedded event store appends (${fmt(COMMITS)} commits each, WAL + synchronous=FULL, median of 3 runs)`);
  console.log('   case                         store commits/s   plain loop commits/s   ratio');
  for (const perCommit of [1, 10]) {
    const baseline = await median((i) => plainInsertLoop(join(dir, `plain-${perCommit}-${i}.sqlite`), COMMITS, perCommit));
    const sequential = await median((i) => storeAppends(join(dir, `seq-${perCommit}-${i}.sqlite`), COMMITS, perCommit, 1));
    const concurrent = await median((i) => storeAppends(join(dir, `conc-${perCommit}-${i}.sqlite`), COMMITS, perCommit, CONCURRENCY));
    const row = (label: string, v: number) =>
      console.log(`   ${label.padEnd(28)} ${fmt(v).padStart(15)} ${fmt(baseline).padStart(22)}   ${(v / baseline).toFixed(2)}x`);
    row(`${perCommit}-event, one at a time`, sequential);
    row(`${perCommit}-event, ${CONCURRENCY} in flight`, concurrent);
    console.log(`   (${perCommit}-event commits: ${fmt(concurrent * perCommit)} events/s with ${CONCURRENCY} in flight)`);
  }
}

export const append: Section = { name: 'append', run: appendBench };
