// `npm run build`: copies every library's page templates (libs/*/views) and static files (libs/*/static)
// beside the compiled code in dist/, where the page renderer looks for them, and the plain-JavaScript
// modules tsc does not emit (the SQLite writer thread's entry, libs/*/src/*.mjs).
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
for (const lib of readdirSync('libs')) {
  for (const dir of ['views', 'static']) {
    const from = `libs/${lib}/${dir}`;
    if (existsSync(from)) cpSync(from, `dist/libs/${lib}/${dir}`, { recursive: true });
  }
}
for (const lib of readdirSync('libs')) {
  const src = `libs/${lib}/src`;
  if (!existsSync(src)) continue;
  for (const file of readdirSync(src)) if (file.endsWith('.mjs')) cpSync(`${src}/${file}`, `dist/${src}/${file}`);
}

// The compiled tree resolves its subpath imports (`#shared/money.js`) itself: a package.json at the top
// of dist/ with the project's "imports" (their targets are relative, and dist/ mirrors the sources).
const { imports } = JSON.parse(readFileSync('package.json', 'utf8'));
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'module', private: true, imports }, null, 2)}\n`);
