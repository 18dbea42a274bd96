/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Types are checked once by `npm run typecheck`; the test run only transpiles (tsconfig's
    // `isolatedModules` lets ts-jest compile each file on its own).
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  maxWorkers: 2,
  testTimeout: 60_000,
};
