import { join } from 'node:path';
import autocannon from 'autocannon';
import { fmt } from '../support/format.js';
import { CONNECTIONS, ROUNDS, WARM_UP_S } from '../support/http-load.js';
import { middleOf } from '../support/median.js';
import type { Section } from '../support/section.js';
import { authHeaders, call, listAll, type Service, type ServiceProcess, startProcess } from '../support/service.js';
import { target } from '../support/targets.js';
import { benchDir } from '../support/workdir.js';
import { subscriptionBodies } from './subscriptions.js';

/**
 * 11. Topology: the create-subscription load of section 4 against one all-in-one process (ROLE=all)
 * and against two API processes (ROLE=api) with two workers (ROLE=worker) sharing the background work
 * by leases (libs/platform/src/leases.ts), all on one embedded DATA_DIR, in one run. The load is
 * balanced by the client (half the connections to each API), as a proxy would, without a proxy's own
 * cost. Then the takeover: under the same load on the split topology, the worker holding the
 * projections (which every write waits for) is killed with SIGKILL; measured: the time until the
 * other worker holds them (the documented bound: lease TTL + one renewal, 12 s by default), the
 * slowest answer meanwhile, and that every answered subscription is active afterwards.
 */

/** One measurement over several APIs at once: throughputs add up, the p99 is the worst of them. */
interface Measured {
  rps: number;
  p99: number;
  max: number;
  answered: number;
}

async function across(urls: string[], options: (url: string) => autocannon.Options, title: string): Promise<Measured> {
  const results = await Promise.all(
    urls.map((url) => autocannon({ connections: Math.max(1, Math.floor(CONNECTIONS / urls.length)), duration: 5, ...options(url), title })),
  );
  for (const r of results) {
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${title}: ${r.non2xx} non-2xx (${JSON.stringify(r.statusCodeStats)}), ${r.errors} errors, ${r.timeouts} timeouts`);
  }
  return {
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    max: Math.max(...results.map((r) => r.latency.max)),
    answered: results.reduce((n, r) => n + r['2xx'], 0),
  };
}

interface Load {
  get: (duration?: number) => Promise<Measured>;
  create: (duration?: number, timeout?: number) => Promise<Measured>;
  answered: Set<string>;
}

/** The GET and create-subscription loads against the APIs at `urls` (one account, one test key). */
async function loads(urls: string[], service: Service): Promise<Load> {
  const { id } = await call<{ id: string }>(service, '/v1/products', { name: 'Bench' });
  const bodies = await subscriptionBodies(service, CONNECTIONS);
  let connection = 0;
  const answered = new Set<string>();
  return {
    answered,
    get: (duration) => across(urls, (url) => ({ url: `${url}/v1/products/${id}`, headers: service.headers, ...(duration ? { duration } : {}) }), 'GET'),
    create: async (duration, timeout) => {
      const result = await across(
        urls,
        (url) => ({
          url: `${url}/v1/subscriptions`,
          method: 'POST',
          headers: service.headers,
          body: bodies[0],
          setupClient: (client) => client.setBody(bodies[connection++ % bodies.length]),
          requests: [{ onResponse: (status, body) => status < 300 && answered.add((JSON.parse(body) as { id: string }).id) }],
          ...(duration ? { duration } : {}),
          ...(timeout ? { timeout } : {}),
        }),
        'create-subscription',
      );
      // Requests cut off client-side when a load stops still complete on the server: not into the next load.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return result;
    },
  };
}

/** The warm-up, then ROUNDS rounds of GET and create-subscription, alternating: the ratio of the medians and the median p99. */
async function measure(label: string, load: Load): Promise<{ ratio: number; p99: number }> {
  await load.get(WARM_UP_S);
  await load.create(WARM_UP_S);
  const get: Measured[] = [];
  const create: Measured[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    get.push(await load.get());
    create.push(await load.create());
  }
  const g = middleOf(get.map((m) => m.rps));
  const c = middleOf(create.map((m) => m.rps));
  const p99 = middleOf(create.map((m) => m.p99));
  console.log(`   ${label.padEnd(30)} GET ${fmt(g).padStart(6)} req/s   create-subscription ${fmt(c).padStart(5)} req/s (p99 ${p99} ms): ratio ${(c / g).toFixed(3)}`);
  return { ratio: c / g, p99 };
}

interface Health {
  leases: { units: { unit: string; holder: string | null }[]; workers: { worker: string; pid?: number }[] };
}
const health = async (url: string) => (await (await fetch(`${url}/health`)).json()) as Health;
const projectionsHolder = async (url: string) => (await health(url)).leases.units.find((u) => u.unit === 'projections')?.holder ?? null;

async function topologyBench() {
  console.log(
    `\n11. Topology: create-subscription (section 4's load, ${CONNECTIONS} connections) against one all-in-one process, then two API processes and two workers on one DATA_DIR (client-balanced), in one run`,
  );
  // One process doing everything.
  const one = await startProcess('topology-one');
  let single: { ratio: number; p99: number };
  try {
    const service: Service = { url: one.url, headers: authHeaders(one.key!), stop: () => one.stop() };
    single = await measure('one process (ROLE=all)', await loads([one.url], service));
  } finally {
    await one.stop();
  }

  // Two workers first (they run the projections the first API waits for), then two APIs.
  const dataDir = join(benchDir(), 'topology-split');
  const processes: ServiceProcess[] = [];
  try {
    const workers = [await startProcess('topology-worker-1', { role: 'worker', dataDir }), await startProcess('topology-worker-2', { role: 'worker', dataDir })];
    processes.push(...workers);
    const apis = [await startProcess('topology-api-1', { role: 'api', dataDir }), await startProcess('topology-api-2', { role: 'api', dataDir })];
    processes.push(...apis);
    const service: Service = { url: apis[0].url, headers: authHeaders(apis[0].key!), stop: async () => {} };
    const load = await loads(apis.map((a) => a.url), service);
    const split = await measure('2 APIs + 2 workers', load);
    console.log(`   split / one process: create-subscription / GET ratio ${(split.ratio / single.ratio).toFixed(2)}×, p99 ${split.p99} ms vs ${single.p99} ms`);
    target('create-subscription / GET, one process (floor)', single.ratio, 0.06);
    target('create-subscription / GET, 2 APIs + 2 workers (floor)', split.ratio, 0.06);
    target('create-subscription p99, 2 APIs + 2 workers (ms)', split.p99, 200, 'lower');

    // The takeover: the projections' holder killed 3 s into a 15 s load (answers may wait up to the bound: no client timeout below 30 s).
    const holder = await projectionsHolder(apis[0].url);
    const pid = (await health(apis[0].url)).leases.workers.find((w) => w.worker === holder)?.pid;
    const victim = workers.find((w) => w.pid === pid);
    if (!victim) throw new Error(`topology: no worker process holds the projections (holder ${holder}, pid ${pid})`);
    const before = load.answered.size;
    const loaded = load.create(15, 30);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const killedAt = performance.now();
    await victim.stop('SIGKILL');
    let takeoverMs = Number.NaN;
    for (;;) {
      const now = await projectionsHolder(apis[0].url).catch(() => null);
      if (now && now !== holder) {
        takeoverMs = performance.now() - killedAt;
        break;
      }
      if (performance.now() - killedAt > 60_000) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const during = await loaded;
    console.log(
      `   SIGKILL of the projections' worker under load: the other holds them after ${fmt(takeoverMs)} ms; the load's slowest answer ${fmt(during.max)} ms, p99 ${during.p99} ms, ${fmt(during.answered)} answered, none failed`,
    );
    target('takeover of the projections after SIGKILL, under load (ms)', takeoverMs, 15_000, 'lower');

    // Every subscription answered (before and during the kill) is active, read through the other API.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const stored = new Map((await listAll<{ id: string; status: string }>({ ...service, url: apis[1].url }, '/v1/subscriptions')).map((s) => [s.id, s.status]));
    const missing = [...load.answered].filter((id) => stored.get(id) !== 'active');
    console.log(`   check: ${fmt(load.answered.size)} subscriptions answered (${fmt(load.answered.size - before)} during the takeover load), ${fmt(load.answered.size - missing.length)} active in GET /v1/subscriptions: ${missing.length ? 'FAILED' : 'OK'}`);
    if (missing.length) throw new Error(`topology: ${missing.length} answered subscriptions are not active (${missing.slice(0, 3).join(', ')})`);
  } finally {
    for (const p of processes.reverse()) await p.stop();
  }
}

export const topology: Section = { name: 'topology', run: topologyBench };
