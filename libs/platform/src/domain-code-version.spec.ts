import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { domainCodeFiles, domainCodeVersion } from './domain-code-version.js';

describe('the domain code version that snapshots are tagged with', () => {
  test('covers every domain file a split decider folds with, not only the file of its evolve', () => {
    const names = domainCodeFiles().map((f) => f.split('/libs/')[1]);
    for (const file of ['subscriptions/src/domain/subscription/subscription.evolve', 'collections/src/domain/collection/collection.evolve', 'collections/src/domain/collection/collection.state', 'invoicing/src/domain/invoice.decider']) {
      expect(names.some((n) => n.startsWith(file))).toBe(true);
    }
    expect(names.some((n) => /\.spec\./.test(n) || n.includes('/testing/'))).toBe(false);
    expect(domainCodeVersion()).toMatch(/^[0-9a-f]{16}$/);
  });

  test('a change in any domain file changes the files hashed', () => {
    const libs = mkdtempSync(join(tmpdir(), 'domain-code-'));
    mkdirSync(join(libs, 'a', 'src', 'domain', 'nested'), { recursive: true });
    writeFileSync(join(libs, 'a', 'src', 'domain', 'nested', 'helper.ts'), 'export const x = 1;');
    writeFileSync(join(libs, 'a', 'src', 'domain', 'thing.spec.ts'), 'test');
    mkdirSync(join(libs, 'b', 'src'), { recursive: true });
    expect(domainCodeFiles(libs).map((f) => f.slice(libs.length))).toEqual(['/a/src/domain/nested/helper.ts']);
  });
});
