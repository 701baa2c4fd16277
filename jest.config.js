/** One jest run for every layer: unit, integration (DynamoDB Local), end-to-end (local gateway) and infrastructure. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // middy 6 ships ES modules only: let ts-jest turn them (and our TypeScript) into CommonJS.
  transform: {
    '^.+\\.[tj]s$': [
      'ts-jest',
      { tsconfig: { module: 'commonjs', allowJs: true, isolatedModules: true, esModuleInterop: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  // Handlers log one line per request; keep test output readable.
  silent: true,
};
