/** Unit tests sit beside the code (src/**); end-to-end tests in test/ start real servers. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/http', '<rootDir>/test', '<rootDir>/rest-adapter', '<rootDir>/schema', '<rootDir>/subscriptions'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  testTimeout: 120000,
  maxWorkers: 2,
  globalTeardown: '<rootDir>/test/global-teardown.ts',
};
