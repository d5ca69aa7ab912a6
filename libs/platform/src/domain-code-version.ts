import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The libraries' folder beside this file's own (libs/ in the sources, dist/libs/ in the build). */
const LIBS = fileURLToPath(new URL('../../', import.meta.url));

/** Every domain source file of every library (libs/<lib>/src/domain/**, specs and test fixtures left out), sorted. */
export function domainCodeFiles(libs = LIBS): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'testing') walk(path);
      } else if (/\.(ts|js|mjs)$/.test(name) && !/\.(spec|d)\.[mc]?[jt]s$/.test(name)) {
        out.push(path);
      }
    }
  };
  for (const lib of readdirSync(libs)) {
    const domain = join(libs, lib, 'src', 'domain');
    try {
      if (statSync(domain).isDirectory()) walk(domain);
    } catch {
      // a library without a domain folder
    }
  }
  return out.sort();
}

let cached: string | null = null;

/**
 * A hash of the whole domain code this process runs. An aggregate snapshot is a cache of `evolve`
 * folded over a stream; `evolve` calls helpers in other files (a split decider's evolve file, its state
 * rules), so a snapshot is used only by the very domain code that took it: any change to a domain file
 * makes every snapshot of the old code unused (each stream folds from its events once, then snapshots
 * again). Read once per process.
 */
export function domainCodeVersion(): string {
  if (cached === null) {
    const hash = createHash('sha256');
    for (const file of domainCodeFiles()) hash.update(relative(LIBS, file).replace(/\.[mc]?[jt]s$/, '')).update('\0').update(readFileSync(file)).update('\0');
    cached = hash.digest('hex').slice(0, 16);
  }
  return cached;
}
