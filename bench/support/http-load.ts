import autocannon from 'autocannon';
import { fmt } from './format.js';
import { middleOf } from './median.js';
import { call, type Service } from './service.js';

/** autocannon's connections in the HTTP sections. */
export const CONNECTIONS = 32;
export const WARM_UP_S = 2;
/** Measurements of each HTTP load: a single 5 s load here swung by ±15 % from one run to the next. */
export const ROUNDS = 3;

export async function load(opts: autocannon.Options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: 5, ...opts });
  if (result.non2xx || result.errors) {
    throw new Error(`${opts.title}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors`);
  }
  return result;
}

const row = (label: string, r: autocannon.Result) =>
  console.log(`   ${label.padEnd(44)} ${fmt(r.requests.average).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`);

export interface Rounds {
  get: autocannon.Result[];
  write: autocannon.Result[];
}

/**
 * An HTTP section's measurement: the authenticated GET of one product (the baseline) and `write`,
 * each first run WARM_UP_S unmeasured (both timed warm, past the JIT compiling their paths), then
 * ROUNDS rounds of GET then write, alternating so that a slow spell of the machine weighs on both.
 * `write(duration)` runs the write load (`duration` given: the warm-up).
 */
export async function alternating(service: Service, write: (duration?: number) => Promise<autocannon.Result>): Promise<Rounds> {
  const { id } = await call<{ id: string }>(service, '/v1/products', { name: 'Bench' });
  const get: autocannon.Options = { url: `${service.url}/v1/products/${id}`, headers: service.headers, title: 'GET' };
  await load({ ...get, duration: WARM_UP_S, title: 'GET warm-up' });
  await write(WARM_UP_S);
  const rounds: Rounds = { get: [], write: [] };
  for (let i = 0; i < ROUNDS; i++) {
    rounds.get.push(await load(get));
    rounds.write.push(await write());
  }
  return rounds;
}

/** Prints each round and the medians; the ratio of the medians and the write's median p99. */
export function compare(rounds: Rounds, name: string, label: string): { ratio: number; p99: number } {
  rounds.get.forEach((get, i) => {
    row(`round ${i + 1}: GET /v1/products/{id} (baseline)`, get);
    row(`round ${i + 1}: ${label}`, rounds.write[i]);
  });
  const get = middleOf(rounds.get.map((r) => r.requests.average));
  const write = middleOf(rounds.write.map((r) => r.requests.average));
  const p99 = middleOf(rounds.write.map((r) => r.latency.p99));
  console.log(`   medians of ${ROUNDS}: GET ${fmt(get)} req/s, ${name} ${fmt(write)} req/s (p99 ${p99} ms): ${name} / GET throughput ratio ${(write / get).toFixed(2)}`);
  return { ratio: write / get, p99 };
}
