// Node module hooks that run the TypeScript sources in a child process (the service killed with
// SIGKILL in test/http/webhooks-crash.spec.ts): `.js` specifiers resolve to the `.ts` beside them,
// and `.ts` files are transpiled (no type check) with the project's decorator settings.
import { readFile } from 'node:fs/promises';
import ts from 'typescript';

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (specifier.endsWith('.js') && /^(\.|\/|file:)/.test(specifier)) return next(`${specifier.slice(0, -3)}.ts`, context);
    throw error;
  }
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const source = await readFile(new URL(url), 'utf8');
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
  return { format: 'module', source: outputText, shortCircuit: true };
}
