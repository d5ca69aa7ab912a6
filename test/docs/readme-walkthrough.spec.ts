import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChildService, startChild } from '../support/child-service.js';

/**
 * README's walk-throughs run as pasted, in order, against a fresh service: every ```sh block from
 * "Walk-through with curl" on (a block after `<!-- readme-walkthrough: skip … -->` is a reference,
 * not a step), in one bash session, with only the two placeholders a reader replaces (`KEY=sk_test_…`,
 * `BASE=…`) set to this service's. `npm run cli` runs the same CLI from the sources (no build).
 * Every request's status is recorded: the only refusals are the ones the README shows (`# {"error":…}`
 * after the command), in the same order, and a variable never ends up `undefined` or empty.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Block {
  line: number;
  code: string;
}

function walkthroughBlocks(readme: string): Block[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith('## Walk-through with curl'));
  expect(start).toBeGreaterThan(0);
  const blocks: Block[] = [];
  for (let i = start; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const skipped = lines.slice(Math.max(0, i - 2), i).some((l) => l.startsWith('<!-- readme-walkthrough: skip'));
    if (!skipped) blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The error codes README shows as answers (`# {"error":{…"code":"card_declined"…}}`), in order. */
const documentedRefusals = (blocks: Block[]) => blocks.flatMap((b) => [...b.code.matchAll(/^# \{"error":\{[^\n]*?"code":"([a-z_]+)"/gm)].map((m) => m[1]));

describe("README's walk-throughs", () => {
  let service: ChildService;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'readme-'));
    // No webhook delivery: the example endpoint is a receiver on this machine that the test does not start.
    service = await startChild(null, dataDir, { WEBHOOKS: 'off', LOG_LEVEL: 'error' });
  });
  afterAll(() => service.kill());

  test('every block runs as pasted, in order, and answers what the README says', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const blocks = walkthroughBlocks(readme);
    expect(blocks.length).toBeGreaterThan(10);
    expect(service.testKey).toMatch(/^sk_test_/);
    const first = blocks[0].code;
    expect(first).toMatch(/^KEY=sk_test_…/m);
    expect(first).toMatch(/^BASE=http:\/\/localhost:3000$/m);

    const work = mkdtempSync(join(tmpdir(), 'readme-run-'));
    const log = join(work, 'requests.log');
    const prelude = String.raw`
set -euo pipefail
cd ${JSON.stringify(ROOT)}
export DATA_DIR=${JSON.stringify(dataDir)}
# Every request's status (and a refusal's code) is recorded; the body is printed as curl would.
curl() {
  local out status code
  out=$(command curl -sS "$@" -w $'\n%{http_code}')
  status=${'$'}{out##*$'\n'}
  out=${'$'}{out%$'\n'*}
  code=$(printf '%s' "$out" | sed -n 's/^{"error":{[^}]*"code":"\([a-z_]*\)".*/\1/p')
  printf '%s %s\n' "$status" "$code" >> ${JSON.stringify(log)}
  printf '%s\n' "$out"
}
# npm run cli -- …: the same CLI, from the sources.
npm() {
  [ "$1" = run ] || { echo "unexpected: npm $*" >&2; return 99; }
  shift; [ "$1" = -s ] && shift
  [ "$1" = cli ] || { echo "unexpected: npm run $*" >&2; return 99; }
  shift; [ "$1" = -- ] && shift
  node --import ./test/support/register-ts.mjs apps/cli/src/main.ts "$@"
}
`;
    const steps = blocks
      .map((b, i) => {
        let code = b.code;
        if (i === 0) code = code.replace(/^KEY=sk_test_….*$/m, `KEY=${service.testKey}`).replace(/^BASE=http:\/\/localhost:3000$/m, `BASE=${service.url}`);
        return `echo "::block ${i} (README line ${b.line})::"\n${code}`;
      })
      .join('\n');
    const script = join(work, 'walkthrough.sh');
    writeFileSync(script, `${prelude}\n${steps}\necho "::done::"\n`);

    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('bash', [script], { cwd: ROOT, timeout: 300_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'error' } }, (error, out, err) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out, stderr: err }),
      );
    });
    const context = `\n--- stdout (end) ---\n${stdout.slice(-4000)}\n--- stderr (end) ---\n${stderr.slice(-4000)}`;
    if (code !== 0 || !stdout.includes('::done::')) throw new Error(`the walk-through stopped (exit ${code})${context}`);

    const requests = readFileSync(log, 'utf8').trim().split('\n').map((l) => {
      const [status, errorCode] = l.split(' ');
      return { status: Number(status), code: errorCode || null };
    });
    expect(requests.length).toBeGreaterThan(50);
    const refusals = requests.filter((r) => r.status >= 400);
    expect(refusals.filter((r) => r.status >= 500)).toEqual([]);
    if (JSON.stringify(refusals.map((r) => r.code)) !== JSON.stringify(documentedRefusals(blocks))) throw new Error(`refusals ${JSON.stringify(refusals)} differ from README's ${JSON.stringify(documentedRefusals(blocks))}${context}`);
    // A value parsed out of an answer that was not the expected object.
    expect(stdout.split('\n').filter((l) => l === 'undefined' || l === 'null')).toEqual([]);
    // What the README promises along the way.
    const promised = ['Mi Tienda SAS te envió un cobro.', '"number":"FE-77"', '"status":"partially_paid"', '"url":"http://localhost:4000/hooks"'];
    expect(promised.filter((p) => !stdout.includes(p))).toEqual([]);
  }, 360_000);
});
