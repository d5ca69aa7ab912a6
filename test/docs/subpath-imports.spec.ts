import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file names what it uses, not where it sits: an import that leaves its own unit (a library under
 * libs/, projections/, an app, test/) goes through a subpath import declared in package.json
 * ("imports": `#shared/money.js`, `#projections/…`, `#api/…`, `#test/…`), never `../../../…`.
 * Imports inside one unit stay relative.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function unitOf(rel: string): string {
  const p = rel.split(sep);
  if (p[0] === 'libs' || p[0] === 'apps') return `${p[0]}/${p[1]}`;
  return p[0];
}

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'dist', 'generated'].includes(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

test('imports that leave their unit use the package.json subpaths, and every subpath is declared', () => {
  const { imports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { imports: Record<string, string> };
  const declared = Object.keys(imports).map((k) => k.replace('*', ''));
  const crossing: string[] = [];
  const undeclared: string[] = [];
  let checked = 0;
  for (const top of ['apps', 'libs', 'projections', 'test']) {
    for (const file of sources(join(ROOT, top))) {
      const from = unitOf(relative(ROOT, file));
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([.#][^'"]+)['"]/g)) {
        checked++;
        const spec = m[1];
        if (spec.startsWith('#')) {
          if (!declared.some((d) => spec.startsWith(d))) undeclared.push(`${relative(ROOT, file)}: ${spec}`);
        } else if (unitOf(relative(ROOT, resolve(dirname(file), spec))) !== from && !unitOf(relative(ROOT, resolve(dirname(file), spec))).startsWith('bench')) {
          crossing.push(`${relative(ROOT, file)}: ${spec}`);
        }
      }
    }
  }
  expect(checked).toBeGreaterThan(1000);
  expect(crossing).toEqual([]);
  expect(undeclared).toEqual([]);
});

test('dependencies run one way: projections/ reads the libraries, no library imports projections/', () => {
  // A context owns its read models' types and helpers (libs/<context>/src/read-models/*.read-model.ts),
  // the projection runtime is a library (libs/projection-runtime); the projectors import both.
  const upward: string[] = [];
  let checked = 0;
  for (const file of sources(join(ROOT, 'libs'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      checked++;
      const spec = m[1];
      const target = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : spec;
      if (spec.startsWith('#projections/') || target.split(sep)[0] === 'projections') upward.push(`${relative(ROOT, file)}: ${spec}`);
    }
  }
  expect(checked).toBeGreaterThan(1000);
  expect(upward).toEqual([]);
});
