/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // Run on their own: the image's tests build it (minutes; `npm run test:image`, jest.image.config.js),
  // the browser tests drive Chromium (`npm run test:browser`, jest.browser.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/image/', '<rootDir>/tests/browser/'],
  transform: {
    // Types are checked once by `npm run typecheck`; the test run only transpiles (tsconfig's
    // `isolatedModules` lets ts-jest compile each file on its own).
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  // Debian tools the tests run (the age CLI), installed when missing.
  globalSetup: '<rootDir>/tests/support/install-test-tools.ts',
  maxWorkers: 2,
  testTimeout: 60_000,
};
