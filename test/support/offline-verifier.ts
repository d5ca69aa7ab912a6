import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** The auditors' standalone verifier (docs/audit.md): one script, node only, no service running. */
const SCRIPT = join(process.cwd(), 'scripts/verify-audit-export.mjs');

/** Runs the offline verifier over an export with a trusted public key: its exit code and what it printed. */
export async function runOfflineVerifier(file: string, publicKey: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [SCRIPT, file, publicKey]);
    return { code: 0, out: stdout.trim() };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: `${e.stdout}${e.stderr}`.trim() };
  }
}
