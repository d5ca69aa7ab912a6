import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { decodePosition } from '#event-store/positions.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { readStoreFile } from '#platform/config.js';
import { plainAppends } from '../support/baseline.js';
import { CONCURRENCY } from '../support/concurrency.js';
import { fmt, MiB } from '../support/format.js';
import { middleOf, threeTimes } from '../support/median.js';
import type { Section } from '../support/section.js';
import { target } from '../support/targets.js';
import { benchDir } from '../support/workdir.js';
import { billingConfig, type RunChildResult, SEED, SEED_GROUP, type SeedResult } from './billing-children.js';

/**
 * 5. A billing run: BENCH_RENEWALS (default 10,000 then 100,000; a comma list) migrated `charge`
 *    subscriptions due at the same instant, renewed by the deadline scheduler in a process of its own
 *    (renewal, collection, charge with the approving test card, paid, all projected) against a plain
 *    loop appending as many events to a fresh embedded store, 128 in flight; checked afterwards in the
 *    read models. The children are in bench/sections/billing-children.ts. Their process also takes:
 *    BENCH_MEMORY_LOG=1 (process.memoryUsage() every second), BENCH_HEAP_SNAPSHOT=DIR (one heap
 *    snapshot when the V8 heap passes BENCH_HEAP_SNAPSHOT_AT MiB, default 200; large, do not commit),
 *    BENCH_SCHEDULER_CONCURRENCY=N (deadlines in flight).
 */

/** Billing-run sizes (a comma list): with two or more, their peak rss is compared (target: within ±20 %). */
const RENEWALS_LIST = (process.env.BENCH_RENEWALS ?? '10000,100000').split(',').map((x) => Number(x.trim())).filter((n) => n > 0);

/**
 * The billing run's baseline keeps 128 appends in flight: the scheduler's concurrency when the
 * issue's figures were measured (0.043×), fixed so that tuning the scheduler does not move its own
 * yardstick.
 */
const PLAIN_LOOP_IN_FLIGHT = 128;

const seqOf = (position: string | null) => (position ? Number(decodePosition(position).commit) : 0);

/**
 * Runs the bench's entry again (process.argv[1]: dist/bench/run.js, which hands a BENCH_BILLING_CHILD
 * process to billing-children.ts) as a child for one phase of the billing run; returns what it
 * reported (its other lines are echoed).
 */
function billingChild<T>(phase: 'seed' | 'run', renewals: number, dataDir: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1]], {
      env: { ...process.env, BENCH_BILLING_CHILD: phase, BENCH_BILLING_RENEWALS: String(renewals), BENCH_BILLING_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let result: T | undefined;
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('@@result ')) result = JSON.parse(line.slice(9)) as T;
        else console.log(line);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && result !== undefined ? resolve(result) : reject(new Error(`billing run: the ${phase} process ended with code ${code}`))));
  });
}

/** This process's part of the billing run: the two children, the plain loop, the check, the targets. */
async function billingRunBench(RENEWALS: number, label: string): Promise<number> {
  const dir = benchDir();
  console.log(`\n${label} Billing run: ${fmt(RENEWALS)} charge subscriptions due at the same instant, renewed by the scheduler (a process of its own, embedded stores)`);
  const dataDir = join(dir, `billing-run-${RENEWALS}`);
  const seed = await billingChild<SeedResult>('seed', RENEWALS, dataDir);
  console.log(
    `   seeding (its own process): ${fmt(RENEWALS)} migrated subscriptions ${SEED === 'commands' ? `through the CommandBus (${CONCURRENCY} in flight)` : `decided by the subscription decider and appended directly, ${fmt(SEED_GROUP)} per commit`}` +
      `${seed.appendedSeconds === null ? '' : ` in ${seed.appendedSeconds.toFixed(1)} s`} and projected in ${seed.seededSeconds.toFixed(1)} s (${fmt(RENEWALS / seed.seededSeconds)}/s; all projections caught up after ${seed.projectedSeconds.toFixed(1)} s); set-up ${seed.setupSeconds.toFixed(1)} s in all`,
  );
  const run = await billingChild<RunChildResult>('run', RENEWALS, dataDir);
  const byType = new Map(run.byType);
  const { appended, seconds } = run;

  // The plain loop three times, each on a fresh store (its speed swings with the fsyncs): the median counts.
  const baselineTimes = await threeTimes(async (i) => {
    const baselineStore = new SqliteEventStore(join(dir, `billing-baseline-${RENEWALS}-${i}.sqlite`));
    const baselineStarted = performance.now();
    await plainAppends(baselineStore, appended, PLAIN_LOOP_IN_FLIGHT);
    const elapsed = (performance.now() - baselineStarted) / 1000;
    await baselineStore.close();
    return elapsed;
  });
  const baselineSeconds = middleOf(baselineTimes);
  const baseline = appended / baselineSeconds;

  const runRate = appended / seconds;
  console.log(
    `   runDue (its own process): ${fmt(run.ran)} deadlines run in ${seconds.toFixed(1)} s: ${fmt(RENEWALS / seconds)} renewals/s; ${run.cpuSeconds.toFixed(1)} s of the process's cpu` +
      ` (${((run.cpuSeconds / RENEWALS) * 1000).toFixed(2)} ms a renewal; load average ${run.load.map((l) => l.toFixed(1)).join(' ')})`,
  );
  console.log(
    `   events appended by the run: ${fmt(appended)} (positions ${fmt(seqOf(run.headBefore))} → ${fmt(seqOf(run.headAfter))}), ${(appended / RENEWALS).toFixed(2)} per renewal:` +
      ` ${[...byType].map(([type, n]) => `${type} ${fmt(n)}`).join(', ')}`,
  );
  console.log(`   per renewal: ${run.work}`);
  console.log(
    `   rss of the run's process: ${MiB(run.rssStart)} when the service had started, peak ${MiB(run.processPeak)} (maxrss; sampled during runDue: ${MiB(run.rssSampledPeak)}, +${MiB(run.rssSampledPeak - run.rssStart)});` +
      ` projections caught up when runDue returned: ${run.caughtUp ? 'yes' : 'NO'}; when it returned: ${run.memory}`,
  );
  console.log(`   the run:    ${fmt(runRate).padStart(7)} events/s (${seconds.toFixed(1)} s)`);
  console.log(
    `   plain loop: ${fmt(baseline).padStart(7)} events/s (median of ${baselineTimes.map((t) => t.toFixed(1)).join(', ')} s): the same number of events, one per append to its own stream,` +
      ` ${PLAIN_LOOP_IN_FLIGHT} in flight, on a fresh embedded store`,
  );
  console.log(`   run / plain loop: ${(runRate / baseline).toFixed(3)}x`);
  target(`billing run of ${fmt(RENEWALS)} / plain append loop (floor)`, runRate / baseline, 0.17);
  target(`billing run of ${fmt(RENEWALS)}: peak rss of the run's process (MiB)`, run.processPeak / 1048576, 437, 'lower');

  // The check, in the read models.
  const db = new Database(readStoreFile(billingConfig(dataDir)), { readonly: true });
  const row = db
    .prepare(
      `SELECT COUNT(*) AS subs,
              SUM(json_extract(s.doc, '$.collections_count') = 1) AS one,
              SUM(json_extract(c.doc, '$.status') = 'paid' AND json_extract(c.doc, '$.billing_reason') = 'subscription_cycle') AS paid,
              SUM(json_extract(s.doc, '$.status') = 'active') AS active,
              SUM(json_extract(s.doc, '$.next_renewal_date') = ?) AS next
         FROM rm_subscriptions s LEFT JOIN rm_collections c ON c.id = json_extract(s.doc, '$.latest_collection')
        WHERE json_extract(s.doc, '$._account') = ?`,
    )
    .get('2026-03-15T10:00:00.000Z', seed.accountId) as { subs: number; one: number; paid: number; active: number; next: number };
  // Exactly one successful charge per collection, and one collection per subscription renewed.
  const charges = db
    .prepare(
      `SELECT COUNT(*) AS collections, SUM(paid = 1) AS once FROM (
         SELECT json_extract(doc, '$.collection') AS collection, SUM(json_extract(doc, '$.status') = 'succeeded') AS paid
           FROM rm_charges WHERE json_extract(doc, '$._account') = ? GROUP BY 1)`,
    )
    .get(seed.accountId) as { collections: number; once: number };
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
  const expected = ['subscription.renewed', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid'];
  const eventsOk = appended === expected.length * RENEWALS && expected.every((type) => byType.get(type) === RENEWALS);
  const ok =
    eventsOk && run.ran === RENEWALS && run.caughtUp && row.subs === RENEWALS && row.one === RENEWALS && row.paid === RENEWALS && row.active === RENEWALS && row.next === RENEWALS &&
    charges.collections === RENEWALS && charges.once === RENEWALS;
  console.log(
    `   check: one of each of ${expected.join(', ')} per renewal: ${eventsOk ? 'yes' : 'NO'}; ${fmt(row.subs)} subscriptions, ${fmt(row.one)} with collections_count 1 (a migrated subscription starts at 0), ${fmt(row.paid)} with their latest collection a paid subscription_cycle,` +
      ` ${fmt(row.active)} active, ${fmt(row.next)} renewing next on 2026-03-15; ${fmt(charges.once)} of ${fmt(charges.collections)} charged collections with exactly one paid charge: ${ok ? 'OK' : 'FAILED'}`,
  );
  if (!ok) throw new Error('billing run: not every subscription was renewed and paid once');
  return run.processPeak;
}

async function billingBench() {
  const billingPeaks = new Map<number, number>();
  for (const [i, n] of RENEWALS_LIST.entries()) billingPeaks.set(n, await billingRunBench(n, `5${RENEWALS_LIST.length > 1 ? 'abcdefgh'[i] : ''}.`));
  if (billingPeaks.size >= 2) {
    const peaks = [...billingPeaks.values()];
    target('billing run peak rss: largest / smallest run', Math.max(...peaks) / Math.min(...peaks), 1.2, 'lower');
  }
}

export const billing: Section = { name: 'billing', run: billingBench };
