import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Response } from 'superagent';

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

/** A supertest parser that keeps a streamed body (an audit export's JSON Lines) as one text. */
export function asText(res: Response, done: (error: Error | null, body: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => done(null, text));
}
