import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDir } from './workdir.js';

export interface Service {
  url: string;
  /** Basic auth with the default account's test key, and a JSON content type. */
  headers: Record<string, string>;
  /** SIGTERM, resolved once the process has exited (so its port and files are free). */
  stop: () => Promise<void>;
}

/** The service's entry in the same build as this file (dist/apps/api/src/main.js beside dist/bench/). */
const MAIN = fileURLToPath(new URL('../../apps/api/src/main.js', import.meta.url));

/** A process of the built service: its URL (for a worker: its health port), its pid, and how to stop it. */
export interface ServiceProcess {
  url: string;
  pid: number;
  /** The default account's test key, printed by the process that made the account (the first start on empty stores). */
  key: string | null;
  /** SIGTERM (or the signal given), resolved once the process has exited (so its port and files are free). */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

export interface ProcessOptions {
  /** ROLE: `all` (the default), `api` or `worker`. */
  role?: 'all' | 'api' | 'worker';
  /** The DATA_DIR (several processes share one); default: `name` under the bench directory. */
  dataDir?: string;
  env?: Record<string, string>;
}

/**
 * Starts one process of the built service (`apps/api/src/main.js`), resolved once it is up: an API
 * (`all`, `api`) once it listens, a worker once it says it runs (its health on HEALTH_PORT).
 */
export async function startProcess(name: string, options: ProcessOptions = {}): Promise<ServiceProcess> {
  const role = options.role ?? 'all';
  const port = 3900 + Math.floor(Math.random() * 90);
  const child = spawn(process.execPath, [MAIN], {
    // RATE_LIMIT_MAX=0: the per-key limit (100/s by default) would answer the load with 429s.
    env: {
      ...process.env, ROLE: role, PORT: String(port), HEALTH_PORT: String(port), HOST: '127.0.0.1', DATA_DIR: options.dataDir ?? join(benchDir(), name), LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '0', ...options.env,
    },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let out = '';
  const ready = role === 'worker' ? 'Worker running' : 'Billing service on';
  const key = await new Promise<string | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} (${role}) did not start:\n${out}`)), 60_000);
    child.once('exit', (code, signal) => reject(new Error(`${name} (${role}) exited (${code ?? signal}) while starting:\n${out}`)));
    // The start-up text (the first start's keys, then "Billing service on …") is on stderr.
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve(/test: (sk_test_\w+)/.exec(out)?.[1] ?? null);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    key,
    stop: (signal: NodeJS.Signals = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** Basic auth with a test key, and a JSON content type. */
export const authHeaders = (key: string) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'content-type': 'application/json' });

/** Starts the built service (all in one process) on a fresh DATA_DIR (`name` under the bench directory), with its default test key. */
export async function startService(name: string): Promise<Service> {
  const started = await startProcess(name);
  return { url: started.url, headers: authHeaders(started.key!), stop: () => started.stop() };
}

/** A request to the service outside the load (set-up, checks); anything but a 2xx throws with the answer. */
export async function call<T>(service: Service, path: string, body?: object): Promise<T> {
  const res = await fetch(`${service.url}${path}`, { method: body ? 'POST' : 'GET', headers: service.headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${body ? 'POST' : 'GET'} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** Every object of a list endpoint, page by page (100 a page). */
export async function listAll<T extends { id: string }>(service: Service, path: string): Promise<T[]> {
  const all: T[] = [];
  for (let after = ''; ; ) {
    const page = await call<{ data: T[]; has_more: boolean }>(service, `${path}?limit=100${after && `&starting_after=${after}`}`);
    all.push(...page.data);
    if (!page.has_more || page.data.length === 0) return all;
    after = page.data[page.data.length - 1].id;
  }
}
