/**
 * The regression floors: each a ratio (or a bound) measured in this run, printed with PASS/FAIL where
 * it is measured and summed up at the end; reported, never asserted. Correctness checks that fail are
 * recorded here too: `npm run bench` exits non-zero when there is any.
 */
interface Target {
  name: string;
  value: number;
  bound: number;
  better: 'higher' | 'lower';
  pass: boolean;
}

const targets: Target[] = [];
const failures: string[] = [];

export function target(name: string, value: number, bound: number, better: 'higher' | 'lower' = 'higher'): void {
  const pass = better === 'higher' ? value >= bound : value <= bound;
  targets.push({ name, value, bound, better, pass });
  console.log(`   target: ${name} = ${value.toFixed(value < 10 ? 3 : 0)} (${better === 'higher' ? '≥' : '≤'} ${bound}): ${pass ? 'PASS' : 'FAIL'}`);
}

/** A section's correctness check failed (the section's name and the error's message). */
export function failed(section: string, message: string): void {
  failures.push(`${section}: ${message}`);
}

/** The summary at the end of a run: every target with PASS/FAIL, then the correctness checks (exit code 1 if any failed). */
export function printSummary(): void {
  console.log('\nTargets (ratios measured in this run; reported, not asserted):');
  for (const t of targets) console.log(`   ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.value.toFixed(3)} (${t.better === 'higher' ? '≥' : '≤'} ${t.bound})`);
  if (failures.length) {
    console.log(`\nCorrectness checks FAILED:\n${failures.map((f) => `   ${f}`).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('\nEvery correctness check: OK');
  }
}
