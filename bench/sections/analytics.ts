import { CommandBus } from '@nestjs/cqrs';
import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { createApp } from '#api/create-app.js';
import type { EventStore, NewEvent, RecordedEvent, StreamAppend } from '#event-store/event-store.port.js';
import { loadConfig } from '#platform/config.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { FixedClock } from '#shared/clock.js';
import { newEventUuid, newId } from '#shared/ids.js';
import { AcceptInvitationCommand } from '#team/application/accept-invitation.js';
import { type Invitation, InviteMemberCommand } from '#team/application/invite-member.js';
import { fmt, MiB } from '../support/format.js';
import type { Section } from '../support/section.js';
import { target } from '../support/targets.js';
import { benchDir } from '../support/workdir.js';

/**
 * 9. Revenue analytics on a large account (issue 31 §3): one account with BENCH_ANALYTICS_SUBSCRIPTIONS
 *    (default 100,000) subscriptions created over three years, then
 *    - the dashboard's home page (/dashboard/home, a signed-in analyst) and GET /v1/reports/summary
 *      under autocannon: p50/p95/p99, target p95 ≤ 300 ms;
 *    - the subscriptions' CSV export (/dashboard/subscriptions/export.csv) of 10,000 rows
 *      (`?status=canceled`: exactly that many are canceled) then of every row, the service's RSS sampled
 *      from /proc every 50 ms while it streams: peak over the baseline before each, target within ±20 %.
 *
 * The data: a few template subscriptions made through the real commands (HTTP via inject, in this
 * process, on a fixed clock three years back: monthly, quarterly and yearly COP prices, charged to an
 * approving test card; one monthly canceled 20 days after it started), renewed by the scheduler's runDue
 * month after month for three years; then their subscription and collection streams cloned with new
 * ids (subscription, collections; the customer and its card one of CUSTOMERS made through the API),
 * every timestamp shifted by the clone's start offset (uniform over the three years) and cut at the
 * end of the three years, appended SEED_GROUP streams per appendMany with the projections stopped,
 * then projected by one catch-up (every projection, `revenue` among them). A share (RENEWING_SHARE)
 * of the clones keep their renewals, the others only their first cycle (creation, first collection
 * paid: 7 events), the canceled ones theirs and the cancellation: three years of renewals for 100,000
 * would be millions of events (measured on this 2-core machine: the rebuild projects 470–1,800 of
 * these events a second at load 5–13, so even the 833,109 events of 100,000 took 30 min; see
 * bench/HISTORY.md; BENCH_ANALYTICS_SUBSCRIPTIONS=10000 for a quicker look). A collection's
 * stream holds its transaction and charge events: they are cloned with it.
 *
 * The export's flatness: the service's peak RSS while it streams 100,000 rows against while it streams
 * 10,000 (within ±20 %); the growth over the RSS before each export is printed (a few MiB either way:
 * a ratio of two such small figures is noise, so it is not the target).
 */
const SUBSCRIPTIONS = Number(process.env.BENCH_ANALYTICS_SUBSCRIPTIONS ?? 100_000);
/** Rows of the small export: the canceled subscriptions (a tenth of the large one). */
const CANCELED = Math.round(SUBSCRIPTIONS / 10);
/** Share of the monthly, quarterly and yearly clones that keep their renewals (BENCH_ANALYTICS_RENEWING). */
const RENEWING_SHARE = Number(process.env.BENCH_ANALYTICS_RENEWING ?? 0.02);
const CUSTOMERS = 100;
const SEED_GROUP = 2000;
const DAY = 86_400_000;
/** The end of the three years (today, so that the service's real clock reads them as the past), and their start. */
const END = new Date(Math.floor(Date.now() / DAY) * DAY);
const START = new Date(END.getTime() - 3 * 365 * DAY);
const HOME_SECONDS = 10;
const HOME_CONNECTIONS = 4;

const MAIN = fileURLToPath(new URL('../../apps/api/src/main.js', import.meta.url));

interface Template {
  kind: 'month' | 'quarter' | 'year' | 'canceled';
  /** The template's streams (subscription first, then its collections), events in order. */
  streams: { streamId: string; events: RecordedEvent[] }[];
  customer: string;
  method: string;
}

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/;

/** Seeds the data directory; returns the test key, the member's e-mail and password, and what it holds. */
async function seed(dataDir: string) {
  const clock = new FixedClock(START);
  const config = { ...loadConfig({ DATA_DIR: dataDir, SCHEDULER: 'off', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', PROJECTIONS_THREAD: process.env.PROJECTIONS_THREAD ?? '' }), role: 'all' as const };
  const app = await createApp({ config, clock });
  try {
    const engine = app.get(ProjectionEngine);
    const events = app.get<EventStore>(EVENT_STORE);
    const bus = app.get(CommandBus);
    const scheduler = app.get(Scheduler);
    const fastify = app.getHttpAdapter().getInstance();
    const account = await bus.execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Bench analytics'));
    while (!(await engine.waitFor(account.position)));
    const auth = `Basic ${Buffer.from(`${account.test_key}:`).toString('base64')}`;
    const post = async <T>(url: string, body: object): Promise<T> => {
      const res = await fastify.inject({ method: 'POST', url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      if (res.statusCode >= 300) throw new Error(`POST ${url}: ${res.statusCode} ${res.body}`);
      return JSON.parse(res.body) as T;
    };
    const started = performance.now();
    const product = await post<{ id: string }>('/v1/products', { name: 'Plan Analítica' });
    const prices = {
      month: await post<{ id: string }>('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, currency: 'COP', unit_price: '49900' }),
      quarter: await post<{ id: string }>('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 3, currency: 'COP', unit_price: '134900' }),
      year: await post<{ id: string }>('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'year', billing_interval: 1, currency: 'COP', unit_price: '499000' }),
    };
    const payers: { customer: string; method: string }[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = await post<{ id: string }>('/v1/customers', { email: `cliente.${i}@example.com`, name: `Cliente Analítica ${i}` });
      const method = await post<{ id: string }>('/v1/payment_methods/migrate', {
        customer: customer.id, gateway: 'gateway_a', type: 'card', token: `simtok_approve_analytics${i}`,
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2035 }, default: true,
      });
      payers.push({ customer: customer.id, method: method.id });
    }
    const kinds = ['month', 'quarter', 'year', 'canceled'] as const;
    const made = new Map<string, (typeof kinds)[number]>();
    for (const [i, kind] of kinds.entries()) {
      const sub = await post<{ id: string; status: string }>('/v1/subscriptions', {
        customer: payers[i].customer, collection_method: 'charge', payment_method: payers[i].method, items: [{ price: prices[kind === 'canceled' ? 'month' : kind].id }],
      });
      if (sub.status !== 'active') throw new Error(`analytics: the ${kind} template is ${sub.status}`);
      made.set(sub.id, kind);
    }
    // Three years of renewals: the scheduler's due deadlines, day by day of each month's anniversary.
    const canceledId = [...made].find(([, k]) => k === 'canceled')![0];
    for (let t = START.getTime() + DAY; t <= END.getTime(); t += DAY) {
      clock.set(new Date(t));
      if (t === START.getTime() + 20 * DAY) await post(`/v1/subscriptions/${canceledId}/cancel`, { cancel_at: 'now' });
      await scheduler.runDue({ clock: null }, new Date(t));
    }
    await engine.waitFor(await events.headPosition());
    // The templates' streams.
    const byStream = new Map<string, RecordedEvent[]>();
    for (let after: string | null = null; ; ) {
      const page = await events.readAll({ after, maxCount: 5000 });
      if (page.length === 0) break;
      for (const e of page) if (e.streamId.startsWith('subscription-') || e.streamId.startsWith('collection-')) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
      after = page[page.length - 1].position;
    }
    const templates: Template[] = [];
    for (const [id, kind] of made) {
      const subStream = `subscription-${id}`;
      const cols = [...byStream].filter(([s, evs]) => s.startsWith('collection-') && evs.some((e) => e.data.subscription === id));
      const first = byStream.get(subStream)![0];
      templates.push({ kind, streams: [{ streamId: subStream, events: byStream.get(subStream)! }, ...cols.map(([streamId, evs]) => ({ streamId, events: evs }))], customer: String(first.data.customer), method: String(first.data.payment_method ?? '') });
    }
    const templateEvents = templates.reduce((n, t) => n + t.streams.reduce((m, s) => m + s.events.length, 0), 0);
    const setupSeconds = (performance.now() - started) / 1000;

    // The clones.
    const cloneStarted = performance.now();
    await engine.stop();
    const counts = { month: 0, quarter: 0, year: 0, canceled: 0 };
    let renewing = 0;
    const byType = new Map<string, number>();
    let appended = 0;
    let group: StreamAppend[] = [];
    const flush = async () => {
      if (group.length) await events.appendMany(group);
      group = [];
    };
    const clones = SUBSCRIPTIONS - templates.length;
    const canceledTemplate = templates.find((t) => t.kind === 'canceled')!;
    for (let i = 0; i < clones; i++) {
      // A tenth canceled (with the template: exactly CANCELED), the others monthly 6 : quarterly 2.5 : yearly 1.5.
      const r = i % 20;
      const tpl = i < CANCELED - 1 ? canceledTemplate : templates[r < 12 ? 0 : r < 17 ? 1 : 2];
      // The canceled start early enough for their cancellation (day 20) to fall inside the three years.
      const span = END.getTime() - START.getTime() - (tpl.kind === 'canceled' ? 30 * DAY : DAY);
      const offset = Math.floor(((i * 7919) % 10_007) / 10_007 * span);
      const keepRenewals = tpl.kind === 'canceled' || (i * 37) % 100 < RENEWING_SHARE * 100;
      if (keepRenewals && tpl.kind !== 'canceled') renewing++;
      counts[tpl.kind]++;
      const payer = payers[i % CUSTOMERS];
      const ids = new Map<string, string>([[tpl.customer, payer.customer], [tpl.method, payer.method]]);
      const cut = END.getTime();
      for (const [s, stream] of tpl.streams.entries()) {
        // Without renewals: the subscription's first cycle only (its events up to the first renewal, and its first collection).
        if (!keepRenewals && s > 1) break;
        const out: NewEvent[] = [];
        for (const e of stream.events) {
          if (!keepRenewals && e.type === 'subscription.renewed') break;
          const at = Date.parse(e.metadata.occurred_at) + offset;
          if (at > cut) break;
          const json = JSON.stringify({ type: e.type, data: e.data, metadata: e.metadata }).replace(/(sub|col|cus|pm|card)_[0-9A-Za-z]+|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (m) => {
            if (ISO.test(m)) return new Date(Date.parse(m) + offset).toISOString();
            let to = ids.get(m);
            if (to === undefined) {
              const prefix = m.slice(0, m.indexOf('_'));
              to = prefix === 'sub' || prefix === 'col' ? newId(prefix) : m;
              ids.set(m, to);
            }
            return to;
          });
          out.push({ id: newEventUuid(), ...(JSON.parse(json) as Omit<NewEvent, 'id'>) });
        }
        if (out.length === 0) continue;
        const streamId = `${stream.streamId.slice(0, stream.streamId.indexOf('-'))}-${ids.get(stream.streamId.slice(stream.streamId.indexOf('-') + 1))}`;
        group.push({ streamId, events: out, expected: 'no_stream' });
        for (const e of out) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
        appended += out.length;
      }
      if (group.length >= SEED_GROUP) await flush();
    }
    await flush();
    const appendSeconds = (performance.now() - cloneStarted) / 1000;
    const projectStarted = performance.now();
    // What `npm run cli -- projections rebuild` runs: every read model dropped and rebuilt in one pass.
    await engine.rebuild();
    engine.start();
    if (!(await engine.waitFor(await events.headPosition(), 3_600_000))) throw new Error('analytics: the projections did not catch up');
    const projectSeconds = (performance.now() - projectStarted) / 1000;

    // A member who may read reports and export: invited and accepted through the team's commands.
    const email = 'analista@example.com';
    const password = 'orbit velvet canyon lantern 31';
    const invitation = await bus.execute<InviteMemberCommand, Invitation>(new InviteMemberCommand({ accountId: account.id, member: null, address: null }, email, 'analyst'));
    await engine.waitFor(invitation.position);
    const accepted = await bus.execute(new AcceptInvitationCommand(invitation.url.split('/').pop()!, null, password, null));
    await engine.waitFor((accepted as { position: string }).position);
    return {
      types: [...byType].sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${fmt(n)}`).join(', '),
      key: account.test_key, email, password, counts, renewing, appended, templateEvents, setupSeconds, appendSeconds, projectSeconds,
      templates: templates.map((t) => `${t.kind} ${t.streams.reduce((n, s) => n + s.events.length, 0)} events (${t.streams.length - 1} collections)`).join(', '),
    };
  } finally {
    await app.close();
  }
}

/** The built service on a seeded data dir (its own process, SCHEDULER off, no rate limit). */
async function startOn(dataDir: string): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const port = 3900 + Math.floor(Math.random() * 90);
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', SCHEDULER: 'off' },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Billing service on')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Signs a member in through the sign-in form; returns the session's Cookie header. */
async function signIn(url: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const page = await fetch(`${url}/dashboard`, { redirect: 'manual' });
  keep(page);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const res = await fetch(`${url}/dashboard/login`, {
    method: 'POST', redirect: 'manual', headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  keep(res);
  if (res.status !== 303) throw new Error(`analytics: sign-in answered ${res.status}`);
  return cookie();
}

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** Streams an export, counting its lines, the service's RSS sampled every 50 ms. */
async function exportRun(url: string, cookie: string, pid: number, query: string) {
  await new Promise((r) => setTimeout(r, 500));
  const baseline = rssOf(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const started = performance.now();
  const res = await fetch(`${url}/dashboard/subscriptions/export.csv${query}`, { headers: { cookie } });
  if (res.status !== 200) throw new Error(`analytics: export${query} answered ${res.status}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  return { baseline, peak, over: peak - baseline, lines, bytes, seconds };
}

async function homeLoad(title: string, url: string, headers: Record<string, string>) {
  await autocannon({ url, headers, connections: HOME_CONNECTIONS, duration: 2 });
  const r = await autocannon({ url, headers, connections: HOME_CONNECTIONS, duration: HOME_SECONDS });
  if (r.non2xx || r.errors) throw new Error(`${title}: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodeStats)}), ${r.errors} errors`);
  // autocannon reports p90, p97.5 and p99, not p95: p97.5 bounds it from above (the target is checked on it, stricter).
  console.log(`   ${title.padEnd(52)} ${fmt(r.requests.average).padStart(5)} req/s   p50 ${r.latency.p50} ms   p90 ${r.latency.p90} ms   p97.5 ${r.latency.p97_5} ms   p99 ${r.latency.p99} ms   (${fmt(r.requests.total)} requests)`);
  return r.latency.p97_5;
}

async function analyticsBench() {
  console.log(`\n9. Revenue analytics: one account with ${fmt(SUBSCRIPTIONS)} subscriptions over three years (${START.toISOString().slice(0, 10)} → ${END.toISOString().slice(0, 10)}), the service in its own process`);
  const dataDir = join(benchDir(), 'analytics');
  const s = await seed(dataDir);
  console.log(
    `   data: ${fmt(SUBSCRIPTIONS)} COP subscriptions charged to approving cards across ${CUSTOMERS} customers: ${fmt(s.counts.month + 1)} monthly (49.900), ${fmt(s.counts.quarter + 1)} quarterly (134.900 / 3 months),` +
      ` ${fmt(s.counts.year + 1)} yearly (499.000), ${fmt(s.counts.canceled + 1)} monthly canceled 20 days after they started (inside their first month); start days spread over the three years`,
  );
  console.log(`   made: 4 templates through the API and three years of the scheduler's renewals (${s.templates}; ${s.setupSeconds.toFixed(1)} s),`);
  console.log(
    `   then ${fmt(SUBSCRIPTIONS - 4)} clones of their subscription and collection streams (a collection's stream holds its transaction and charge) (new ids, times shifted, cut at ${END.toISOString().slice(0, 10)}); ${fmt(s.renewing)} of the active kinds and every canceled one keep their renewals, the others their first cycle only:` +
      ` ${fmt(s.appended)} events appended in ${s.appendSeconds.toFixed(1)} s, every projection rebuilt in ${s.projectSeconds.toFixed(1)} s (${fmt(s.appended / s.projectSeconds)} events/s)`,
  );
  console.log(`   the clones' events: ${s.types}`);
  const service = await startOn(dataDir);
  try {
    const cookie = await signIn(service.url, s.email, s.password);
    const basic = { authorization: `Basic ${Buffer.from(`${s.key}:`).toString('base64')}` };
    const from = START.toISOString().slice(0, 10);
    const check = await fetch(`${service.url}/v1/reports/summary?from=${from}&interval=month`, { headers: basic });
    const summary = (await check.json()) as Record<string, unknown>;
    if (check.status !== 200) throw new Error(`analytics: summary answered ${check.status} ${JSON.stringify(summary)}`);
    console.log(`   summary now: ${JSON.stringify(summary).slice(0, 400)}…`);
    console.log(`   latency (${HOME_CONNECTIONS} connections, ${HOME_SECONDS} s after a 2 s warm-up each):`);
    const homeDefault = await homeLoad('GET /dashboard/home (default: 12 months by month)', `${service.url}/dashboard/home`, { cookie });
    const home3y = await homeLoad('GET /dashboard/home (three years by month)', `${service.url}/dashboard/home?from=${from}&interval=month`, { cookie });
    const api3y = await homeLoad('GET /v1/reports/summary (three years by month)', `${service.url}/v1/reports/summary?from=${from}&interval=month`, basic);
    target('analytics: home page p95 ≤ p97.5 (ms), 12 months', homeDefault, 300, 'lower');
    target('analytics: home page p95 ≤ p97.5 (ms), three years', home3y, 300, 'lower');
    target('analytics: reports summary p95 ≤ p97.5 (ms), three years', api3y, 300, 'lower');

    const pid = service.child.pid!;
    const small = await exportRun(service.url, cookie, pid, '?status=canceled');
    const large = await exportRun(service.url, cookie, pid, '');
    for (const [label, r] of [[`${fmt(CANCELED)} rows (?status=canceled)`, small], [`${fmt(SUBSCRIPTIONS)} rows (every subscription)`, large]] as const) {
      console.log(
        `   export ${label.padEnd(36)} ${r.seconds.toFixed(1)} s, ${MiB(r.bytes)}, ${fmt(r.lines)} lines; service rss ${MiB(r.baseline)} before, peak ${MiB(r.peak)} (+${MiB(r.over)})`,
      );
    }
    console.log(`   peak rss over baseline: +${(large.over / 1048576).toFixed(1)} MiB at ${fmt(SUBSCRIPTIONS)} rows, +${(small.over / 1048576).toFixed(1)} MiB at ${fmt(CANCELED)}; peak rss ${(large.peak / small.peak).toFixed(3)}×`);
    target(`analytics: export peak rss, ${fmt(SUBSCRIPTIONS)} vs ${fmt(CANCELED)} rows, |ratio − 1| (±20 %)`, Math.abs(large.peak / small.peak - 1), 0.2, 'lower');
    const ok = small.lines === CANCELED + 1 && large.lines === SUBSCRIPTIONS + 1;
    console.log(`   check: the files hold a header and ${fmt(CANCELED)} / ${fmt(SUBSCRIPTIONS)} rows: ${ok ? 'OK' : `FAILED (${small.lines} and ${large.lines} lines)`}`);
    if (!ok) throw new Error('analytics: the exports do not hold every row');
  } finally {
    await service.stop();
  }
}

export const analytics: Section = { name: 'analytics', run: analyticsBench };
