const { readdirSync, readlinkSync } = require('node:fs');
const { basename, relative } = require('node:path');
const threads = require('node:worker_threads');
const { TestEnvironment } = require('jest-environment-node');

/** How long a file's last handles may take to close after its teardown (a child's exit, a socket's close). */
const GRACE_MS = 2000;

/**
 * jest's node environment, plus a check that a test file leaves nothing behind that keeps the process
 * alive: a server not closed, a child process not reaped, a timer or an interval still referenced, a
 * thread not ended. One such handle keeps jest's worker from exiting at the end of the run ("A worker
 * process has failed to exit gracefully"), and is hard to trace back to its file from there.
 *
 * The resources keeping the process alive (`process.getActiveResourcesInfo()`) are counted when the
 * file starts and again once it ends; when more are still there after a short grace, one line names
 * the file and what it left (run that file with `--detectOpenHandles` for the stack). The test does
 * not fail: the line is the signal. Worker threads are not among those resources: the ones the file
 * starts are followed, and one still running after the file (a store or a projection pipeline nobody
 * closed, each with its SQLite connection) is named too, even unref'd.
 */
class CheckedEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = relative(config.globalConfig.rootDir, context.testPath);
  }

  async setup() {
    await super.setup();
    // The process's stdout and stderr are opened on first use (a pipe each, in a jest worker): opened
    // now, so that a file writing first is not taken for one leaving them open.
    void process.stdout.fd;
    void process.stderr.fd;
    this.before = counts();
    this.sqliteBefore = sqliteFiles();
    // Threads are not among those resources: the ones this file starts are followed here.
    this.threads = followThreads();
  }

  async teardown() {
    await super.teardown();
    releaseStdin();
    const left = await leftOver(this.before, this.threads, this.sqliteBefore);
    this.threads.stop();
    if (left.length > 0) process.stderr.write(`open handles left by ${this.testPath}: ${left.join(', ')} (run it alone with --detectOpenHandles)\n`);
  }
}

/**
 * jest's ESM loader builds `import process from 'node:process'` (supports-color does, under
 * openapi-typescript) by reading every property of `process`, `stdin` included, which opens the
 * worker's standard input: a pipe from jest that nobody writes or reads. Never read, it does not hold
 * the process, but it counts among the resources above: it is unref'd (still readable) once the file
 * is done, so that it is not reported as the file's.
 */
function releaseStdin() {
  for (const handle of process._getActiveHandles()) {
    if (handle._handle && handle._handle.fd === 0 && typeof handle.unref === 'function') handle.unref();
  }
}

function counts() {
  const map = new Map();
  for (const type of process.getActiveResourcesInfo()) map.set(type, (map.get(type) ?? 0) + 1);
  return map;
}

/**
 * The worker threads started from now on (`new Worker` of node:worker_threads, which the file's modules
 * import from this process's copy) and whether each still keeps the process alive: running and not
 * unref()'d. `stop()` puts the original class back.
 */
function followThreads() {
  const Original = threads.Worker;
  const alive = new Set();
  class FollowedWorker extends Original {
    constructor(...args) {
      super(...args);
      const entry = { held: true };
      alive.add(entry);
      this.once('exit', () => alive.delete(entry));
      const ref = this.ref.bind(this);
      const unref = this.unref.bind(this);
      this.ref = () => ((entry.held = true), ref());
      this.unref = () => ((entry.held = false), unref());
    }
  }
  threads.Worker = FollowedWorker;
  return {
    held: () => [...alive].filter((e) => e.held).length,
    running: () => alive.size,
    stop: () => {
      if (threads.Worker === FollowedWorker) threads.Worker = Original;
    },
  };
}

/**
 * The SQLite files (database, -wal, -shm) this process holds open, by file descriptor. A connection
 * left open at the end of a file is closed by the worker's exit instead, which checkpoints its WAL and
 * syncs: slow enough on a busy machine for jest to call the worker's exit ungraceful.
 */
function sqliteFiles() {
  const open = new Set();
  try {
    for (const fd of readdirSync('/proc/self/fd')) {
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`);
        if (/\.sqlite(-wal|-shm)?$/.test(target)) open.add(`${fd}:${target}`);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // no /proc: nothing to tell
  }
  return open;
}

async function leftOver(before, followed, sqliteBefore) {
  const until = Date.now() + GRACE_MS;
  for (;;) {
    const now = counts();
    const extra = [...now].filter(([type, n]) => n > (before.get(type) ?? 0)).map(([type, n]) => `${type} ×${n - (before.get(type) ?? 0)}`);
    const held = followed.held();
    if (held > 0) extra.push(`Worker thread ×${held}`);
    // unref()'d, a thread does not hold the process, but one still running is a store or a pipeline
    // nobody closed, which the worker's exit then has to end.
    const idle = followed.running() - held;
    if (idle > 0) extra.push(`Worker thread still running (unref'd) ×${idle}`);
    const files = [...sqliteFiles()].filter((f) => !sqliteBefore.has(f)).map((f) => basename(f.slice(f.indexOf(':') + 1)));
    if (files.length > 0) extra.push(`SQLite files open ×${files.length} (${[...new Set(files)].slice(0, 4).join(', ')})`);
    if (extra.length === 0 || Date.now() >= until) return extra;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

module.exports = CheckedEnvironment;
