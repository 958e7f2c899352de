/** Unit tests sit beside the code (src/**); end-to-end tests in test/ start real servers. */
// One id per jest run, inherited by its workers: the run's job schemas on a shared PostgreSQL carry it (test/helpers/test-server.ts).
process.env.TEST_RUN_ID ??= require('node:crypto').randomBytes(4).toString('hex');
module.exports = {
  testEnvironment: '<rootDir>/test/jest-environment.ts',
  roots: ['<rootDir>/app', '<rootDir>/src', '<rootDir>/http', '<rootDir>/test', '<rootDir>/rest-adapter', '<rootDir>/schema', '<rootDir>/subscriptions', '<rootDir>/clients', '<rootDir>/sdk/chip-reader/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  // A ceiling that only bounds a hang (issue 47): on a 2-core machine at load 40, a server start has taken over 2 minutes
  // and a hook that starts a server, then runs the CLI five times and signs a member in, over 5.
  testTimeout: 600000,
  // Three workers on two cores: the files wait on servers, browsers and CLI processes as much as they compute (the cores
  // were idle a quarter of a 2-worker run); measured in docs/benchmarks.md, "The test suite's time".
  maxWorkers: 3,
  testSequencer: '<rootDir>/scripts/jest-slowest-first.js',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
