/** `npm run test:browser`: the dashboard in a real headless Chromium (not part of `npm test`). */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests/browser'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globalSetup: '<rootDir>/tests/support/install-browser.ts',
  maxWorkers: 1,
  testTimeout: 120_000,
};
