import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every environment variable the service reads is in README's configuration table, and the table names
 * none it does not read: an operator learns the whole configuration from one place.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Variables that belong to Node.js itself, not to this service. */
const NODE_OWN = new Set(['NODE_OPTIONS', 'NODE_ENV']);

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|mjs)$/.test(name) && !/\.spec\.ts$/.test(name)) out.push(path);
  }
  return out;
}

function variablesRead(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['apps', 'libs', 'projections']) {
    for (const file of sources(join(root, dir))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:process\.)?env(?:\.([A-Z][A-Z0-9_]+)|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) {
        const name = m[1] ?? m[2];
        if (!NODE_OWN.has(name)) names.add(name);
      }
    }
  }
  return names;
}

function variablesDocumented(): Set<string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Configuration');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const names = new Set<string>();
  for (const line of section.split('\n').filter((l) => l.startsWith('| `'))) {
    for (const m of line.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]);
  }
  return names;
}

describe("README's configuration table", () => {
  test('names every variable the service reads, and only those', () => {
    const read = variablesRead();
    const documented = variablesDocumented();
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((n) => !documented.has(n)).sort()).toEqual([]);
    expect([...documented].filter((n) => !read.has(n)).sort()).toEqual([]);
  });
});
