// `npm run test:image`: builds the image with buildah and runs it (tests/image). Kept out of
// `npm test` because a build takes minutes; jest's flags pass through (`-- --json --outputFile=…`).
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/tests/image'],
  testPathIgnorePatterns: [],
  maxWorkers: 1,
  testTimeout: 180_000,
};
