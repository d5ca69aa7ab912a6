/**
 * `npm run bench`: figures measured in this run, each against a baseline measured in the same run,
 * one section per file in bench/sections/, run in this order:
 *  1. append        embedded event store appends vs a plain better-sqlite3 insert loop (same rows, same durability);
 *  2. rebuild       a rebuild of every projection vs a plain read-and-parse of the same events;
 *  3. http          create-product vs an authenticated GET, the built service in its own process (autocannon);
 *  4. subscriptions create-subscription (charge, approving card) vs the same GET, checked afterwards;
 *  5. billing       a billing run renewed by the scheduler in a process of its own vs a plain append loop;
 *  6. checkout      hosted checkout completions through the page's HTTP calls vs create-subscription;
 *  7. webhooks      deliveries per second vs the feed's own read of the same events, then latency;
 *  8. history       deciding on a subscription with ten years of renewals vs on a new one;
 *  9. analytics     an account with 100,000 subscriptions over three years: the dashboard's home page and
 *                   GET /v1/reports/summary under load (p95 ≤ 300 ms), the subscriptions' CSV export of
 *                   10,000 and 100,000 rows with the service's peak RSS (flat within ±20 %);
 * 10. audit         appends with the audit hash chain on vs off (same workload, alternating rounds), `audit
 *                   verify` in events/s, an account’s export vs a plain read of the same events (live heap flat, N vs 5N);
 * 11. topology      section 4's load against one all-in-one process and against two APIs + two workers on one
 *                   DATA_DIR (ratio and p99 of each), then the takeover time when the projections' worker is killed under load.
 * Shared helpers are in bench/support/ (the service in its own process, the median of three runs, the
 * plain baselines, the HTTP loads, the targets).
 *
 * `npm run bench -- rebuild billing` (or BENCH_ONLY=rebuild,billing) runs only the sections named, in
 * the order above. Each target (a regression floor: a ratio or a bound measured in this run) is printed
 * with PASS/FAIL where it is measured and summed up at the end (reported, not asserted); a failed
 * correctness check makes the run exit 1. A section whose check fails is recorded and the others run.
 * PROJECTIONS_THREAD=inline runs the service's and the billing run's projection pipeline on the event
 * loop instead of in a thread of its own (the default, `worker`; the comparison in bench/HISTORY.md, the rule in
 * docs/decisions/0010-pipeline-thread.md).
 *
 * Run with BENCH_BILLING_CHILD set, this file is one of the billing run's child processes
 * (bench/sections/billing-children.ts), started by the billing section.
 */
import { analytics } from './sections/analytics.js';
import { append } from './sections/append.js';
import { audit } from './sections/audit.js';
import { billing } from './sections/billing.js';
import { billingChildMain } from './sections/billing-children.js';
import { checkout } from './sections/checkout.js';
import { history } from './sections/history.js';
import { http } from './sections/http.js';
import { rebuild } from './sections/rebuild.js';
import { subscriptions } from './sections/subscriptions.js';
import { topology } from './sections/topology.js';
import { webhooks } from './sections/webhooks.js';
import type { Section } from './support/section.js';
import { failed, printSummary } from './support/targets.js';
import { removeBenchDir } from './support/workdir.js';

const SECTIONS: Section[] = [append, rebuild, http, subscriptions, billing, checkout, webhooks, history, analytics, audit, topology];

const CHILD = process.env.BENCH_BILLING_CHILD;
if (CHILD) await billingChildMain(CHILD);

/** The sections asked for: the command line's arguments, else BENCH_ONLY (comma-separated), else every one. */
function chosen(): Section[] {
  const names = [...process.argv.slice(2), ...(process.env.BENCH_ONLY ?? '').split(',')].map((x) => x.trim()).filter(Boolean);
  const known = SECTIONS.map((s) => s.name);
  for (const name of names) if (!known.includes(name)) throw new Error(`bench: unknown section ${name} (known: ${known.join(', ')})`);
  return names.length === 0 ? SECTIONS : SECTIONS.filter((s) => names.includes(s.name));
}

const sections = chosen();
try {
  for (const section of sections) {
    try {
      await section.run();
    } catch (error) {
      failed(section.name, (error as Error).message);
      console.log(`   FAILED: ${(error as Error).stack ?? error}`);
    }
  }
} finally {
  removeBenchDir();
}
printSummary();
