import { setFlagsFromString } from 'node:v8';

/** V8 flags an operator may give on the command line (or NODE_OPTIONS) that this policy then leaves alone. */
const OPERATOR_FLAGS = ['--heap-growing-percent', '--max-old-space-size', '--max-heap-size'];

let applied: number | null = null;

/**
 * How far V8 lets the old generation grow past what the last full collection kept alive before it
 * collects again (HEAP_GROWING_PERCENT, default 50: to 1.5× the live heap; 0: V8's own policy).
 *
 * V8's own policy grows it up to 4× the live heap when the process allocates fast (its "mutator
 * speed" against its marking speed), which a billing run does: ~75 MiB live after every full
 * collection, flat in the number renewed, but the heap climbing to ~320 MiB of garbage objects
 * that had outlived two scavenges (a renewal in flight, a pipeline batch) before each collection —
 * RSS ~550 MiB. The factor is read at every collection, so setting it once the process runs
 * applies to the rest of it; unlike `--max-old-space-size` it sets no ceiling (a process that needs
 * more keeps growing, it only collects sooner). Applied once per process, by whatever builds the
 * application (the service, the worker, the CLI); a flag given by the operator wins.
 */
export function applyHeapPolicy(percent: number, argv: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): number | null {
  const given = argv.map((a) => `--${a.replace(/^--/, '').replace(/_/g, '-')}`);
  if (given.some((a) => OPERATOR_FLAGS.some((f) => a === f || a.startsWith(`${f}=`)))) return null;
  if (applied === percent) return applied;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  applied = percent;
  return applied;
}
