import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { freePort } from './free-port.js';
import { productionStoreEnv } from './production-stores.js';

const ROOT = resolve(process.cwd());

/**
 * The service compiled once into `.test-build/<dir>` (not dist/, which `npm start` owns), for tests
 * that run it as a child process they can SIGKILL.
 */
export function buildService(): string {
  mkdirSync(join(ROOT, '.test-build'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.test-build', 'svc-'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', dir], { cwd: ROOT, stdio: 'inherit' });
  // Page templates and static files beside the compiled code, as `npm run build` does (scripts/copy-assets.mjs).
  for (const lib of readdirSync(join(ROOT, 'libs'))) {
    for (const assets of ['views', 'static']) {
      const from = join(ROOT, 'libs', lib, assets);
      if (existsSync(from)) cpSync(from, join(dir, 'libs', lib, assets), { recursive: true });
    }
    // And the plain-JavaScript modules tsc does not emit (the SQLite writer thread's entry).
    const src = join(ROOT, 'libs', lib, 'src');
    if (existsSync(src)) for (const file of readdirSync(src)) if (file.endsWith('.mjs')) cpSync(join(src, file), join(dir, 'libs', lib, 'src', file));
  }
  // Its subpath imports (`#shared/money.js`) resolve inside the build, as dist/package.json does for dist/.
  const { imports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'module', private: true, imports }, null, 2)}\n`);
  return dir;
}

export function removeBuild(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface ChildService {
  process: ChildProcess;
  url: string;
  output: () => string;
  /** The default account's test key, when this start created it. */
  testKey: string | null;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the built service on `dataDir` and waits until it listens (`wait: false`: returns at once,
 * e.g. to kill it while it is still catching its projections up at start-up). `buildDir` null: the
 * TypeScript sources themselves, through test/support/register-ts.mjs (no build to wait for).
 */
export async function startChild(buildDir: string | null, dataDir: string, env: Record<string, string> = {}, options: { wait?: boolean } = {}): Promise<ChildService> {
  // A port found free can still be taken by a parallel suite before the child listens: another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(buildDir, dataDir, await freePort(), env, options);
    } catch (error) {
      if (attempt >= 3 || !/EADDRINUSE/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce(buildDir: string | null, dataDir: string, port: number, env: Record<string, string>, options: { wait?: boolean }): Promise<ChildService> {
  const entry = buildDir === null ? ['--import', './test/support/register-ts.mjs', 'apps/api/src/main.ts'] : [join(buildDir, 'apps/api/src/main.js')];
  const child = spawn(process.execPath, entry, {
    cwd: ROOT,
    // EVENTSTORE_URL / MONGO_URL pass through; a MongoDB database of this DATA_DIR's own (production-stores.ts).
    // HEALTH_PORT = PORT: a ROLE=worker process answers its health (only) on `url` too.
    env: { ...process.env, ...productionStoreEnv(dataDir), DATA_DIR: dataDir, PORT: String(port), HEALTH_PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; options.wait !== false; i++) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error(`service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // /health can answer before this process has read the child's start-up lines (the keys are printed
  // before listening, the "listening" line right after): wait for that line, briefly, so a first
  // start's keys are never missed under load.
  for (let waited = 0; options.wait !== false && waited < 5_000 && !/Billing service on|Worker running/.test(out) && child.exitCode === null; waited += 20) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const key = /test: (sk_test_\S+)/.exec(out)?.[1] ?? null;
  return {
    process: child,
    url,
    output: () => out,
    testKey: key,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** Probes until `ok` (a failed probe counts as not yet), at most `ms`; throws with the last value seen. */
export async function until<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, ms: number, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => null as T);
    if (value !== null && ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)?.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A client in front of several processes, as a proxy is: each request to the next live one, and a
 * connection refused or reset sent again to another (the same request: with its Idempotency-Key).
 */
export function sendToLive(processes: () => (ChildService | null)[]): (path: string, init: RequestInit) => Promise<Response> {
  let turn = 0;
  return async (path, init) => {
    for (let attempt = 0; ; attempt++) {
      const live = processes().filter((p): p is ChildService => p !== null && p.process.exitCode === null && !p.process.killed);
      const target = live[(turn++ + attempt) % Math.max(1, live.length)];
      try {
        if (!target) throw new Error('no process');
        return await fetch(`${target.url}${path}`, init);
      } catch (error) {
        if (attempt > 200) throw error;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
  };
}
