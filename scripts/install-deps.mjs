// `npm run deps`: installs the dependencies with `npm ci` when they are missing or older than
// package-lock.json, and says what is happening while it does (the first install compiles
// better-sqlite3 from source, about two minutes on two cores, and npm prints nothing meanwhile).
// When node_modules is already up to date it does nothing: `npm ci` deletes node_modules first,
// which would pull the files from under a service running from this checkout.
// Plain Node, no dependency: it runs on a fresh clone.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const installed = 'node_modules/.package-lock.json'; // written by npm at the end of every install
const upToDate =
  existsSync(installed) &&
  statSync(installed).mtimeMs >= statSync('package-lock.json').mtimeMs &&
  existsSync('node_modules/better-sqlite3/build/Release/better_sqlite3.node');

if (upToDate && !process.argv.includes('--force')) {
  console.log('Dependencies are up to date (node_modules matches package-lock.json); nothing to install.');
  process.exit(0);
}

console.log('Installing dependencies with npm ci. better-sqlite3 (the embedded store) is compiled from source:');
console.log('about two minutes on two cores, during which npm prints nothing.');
const started = Date.now();
const ticker = setInterval(() => console.log(`  … still installing (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
const npm = spawn('npm', ['ci', '--loglevel=error', '--no-fund', '--no-audit'], { stdio: 'inherit' });
npm.on('exit', (code, signal) => {
  clearInterval(ticker);
  if (code === 0) console.log(`Dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  else console.error(`npm ci failed (${signal ?? `exit code ${code}`}); see its messages above.`);
  process.exit(code ?? 1);
});
