/**
 * Jest runs the TypeScript sources as native ES modules through ts-jest (transpile only: `npm test`
 * type-checks the whole project with tsc first). Decorator metadata comes from tsconfig.json.
 */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/projections', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
  // One temporary directory for the whole run, removed at its end (test/support/global-setup.mjs).
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 120000,
  maxWorkers: 2,
};
