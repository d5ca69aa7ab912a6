import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string | null = null;

/** The run's scratch directory (stores, DATA_DIRs), made when a section first asks for it. */
export function benchDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'billing-bench-'));
  return dir;
}

/** Removes the scratch directory, if a section made it. */
export function removeBenchDir(): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
}
