// Node module hooks that run the TypeScript sources in a child process or a worker thread (the service
// killed with SIGKILL in test/http/webhooks-crash.spec.ts, the projection pipeline's thread): `.js`
// specifiers resolve to the `.ts` beside them, and `.ts` files are transpiled (no type check) with the
// project's decorator settings. A transpiled file is kept in the temporary directory (the test run's
// own, test/support/global-setup.mjs), keyed by its path and source, so that every later process or
// thread of the run loads it without TypeScript.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cacheDir = join(tmpdir(), 'billing-ts-cache');
let ts = null;

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    // A relative, absolute or subpath (`#shared/money.js`) specifier of a `.ts` file written with `.js`.
    if (specifier.endsWith('.js') && /^(\.|\/|file:|#)/.test(specifier)) return next(`${specifier.slice(0, -3)}.ts`, context);
    throw error;
  }
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = await readFile(new URL(url), 'utf8');
  const cached = join(cacheDir, `${createHash('sha256').update(url).update('\0').update(source).digest('hex')}.js`);
  try {
    return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
  } catch {
    // Not transpiled yet in this run.
  }
  ts ??= (await import('typescript')).default;
  const { outputText } = ts.transpileModule(source, {
    fileName: new URL(url).pathname,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      useDefineForClassFields: false,
      esModuleInterop: true,
    },
  });
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written whole under another name, then renamed: a concurrent reader never sees half a file.
    const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, outputText);
    renameSync(partial, cached);
  } catch {
    // A cache that cannot be written only costs the next load a transpile.
  }
  return { format: 'module', source: outputText, shortCircuit: true };
}
