import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { loadConfig } from './config.js';

/**
 * The heap policy, proven in processes of their own (a V8 flag is process-wide): heap-policy.ts is
 * compiled on its own and imported by a child that keeps ~40 MiB alive and churns objects that
 * outlive the young generation (what a billing run's renewals in flight and pipeline batches do).
 */
describe('heap policy (HEAP_GROWING_PERCENT)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'heap-policy-'));
  const source = readFileSync(new URL('./heap-policy.ts', import.meta.url), 'utf8');
  writeFileSync(join(dir, 'heap-policy.mjs'), ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText);
  writeFileSync(
    join(dir, 'churn.mjs'),
    `import { applyHeapPolicy } from './heap-policy.mjs';
     const applied = applyHeapPolicy(Number(process.argv[2]));
     const live = Array.from({ length: 300000 }, (_, i) => ({ i, s: 'live-' + i + '-' + 'x'.repeat(40) }));
     const ring = new Array(50000);
     let peak = 0;
     for (let i = 0; i < 4000000; i++) {
       ring[i % ring.length] = { i, s: 'churn-' + i, a: [i, i + 1, i + 2] };
       if (i % 10000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
     }
     console.log(JSON.stringify({ applied, peakMiB: peak / 1048576, kept: live.length + ring.length }));`,
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (percent: number, nodeFlags: string[] = []) =>
    JSON.parse(execFileSync(process.execPath, [...nodeFlags, join(dir, 'churn.mjs'), String(percent)], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } })) as {
      applied: number | null;
      peakMiB: number;
    };

  it('collects before the heap grows far past what is alive: the peak is well under V8’s own policy’s', () => {
    const own = run(0);
    const bounded = run(50);
    expect(bounded.applied).toBe(50);
    // V8's own policy lets this workload reach ~4× its ~70 MiB alive; 1.5× leaves it near 140 MiB.
    expect(bounded.peakMiB).toBeLessThan(own.peakMiB * 0.6);
    expect(bounded.peakMiB).toBeLessThan(200);
  });

  it('leaves a heap flag given by the operator alone', () => {
    expect(run(50, ['--heap-growing-percent=300']).applied).toBeNull();
    expect(run(50, ['--max_old_space_size=2048']).applied).toBeNull();
  });

  it('is 50 % unless HEAP_GROWING_PERCENT says otherwise (0: V8’s own)', () => {
    expect(loadConfig({}).heapGrowingPercent).toBe(50);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).toBe(0);
    expect(() => loadConfig({ HEAP_GROWING_PERCENT: 'lots' })).toThrow(/HEAP_GROWING_PERCENT/);
  });
});
