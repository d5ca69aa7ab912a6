/**
 * Jest runs the TypeScript sources as native ES modules through ts-jest (transpile only: `npm test`
 * type-checks the whole project with tsc first). Decorator metadata comes from tsconfig.json.
 */
export default {
  // Node's, plus a line naming a file that leaves a handle open (test/support/test-environment.cjs).
  testEnvironment: '<rootDir>/test/support/test-environment.cjs',
  roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/projections', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  // Relative `.js` specifiers name the `.ts` beside them; subpath imports (package.json "imports") the same way.
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^#projections/(.*)\\.js$': '<rootDir>/projections/$1',
    '^#test/(.*)\\.js$': '<rootDir>/test/$1',
    '^#(api|cli)/(.*)\\.js$': '<rootDir>/apps/$1/src/$2',
    '^#([a-z-]+)/(.*)\\.js$': '<rootDir>/libs/$1/src/$2',
  },
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  // One temporary directory for the whole run, removed at its end (test/support/global-setup.mjs).
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 120000,
  maxWorkers: 2,
  // A worker whose heap passed 1 GB after a file is replaced by a fresh one. A worker that ran many
  // files ends a full run with 1.5 GB or more resident, and tearing that heap down at exit took longer
  // than the half second jest gives it ("A worker process has failed to exit gracefully"); recycled,
  // the run also spends less time collecting garbage (351 s against 467 s for jest here).
  workerIdleMemoryLimit: '1GB',
};
