/**
 * One jest run for every layer. Two projects: `unit` needs nothing (no Java, no DynamoDB Local), and
 * `storage` (integration, end-to-end, infrastructure) shares one DynamoDB Local started by its global
 * setup, which jest runs only when a test of that project is selected:
 *   npx jest --selectProjects unit      the unit tests alone, on a machine without Java
 */
const os = require('node:os');

const common = {
  // Node's, plus: every process a test file starts is killed when the file ends (test/support/processes.ts).
  testEnvironment: '<rootDir>/test/support/environment.ts',
  // middy 6 ships ES modules only: let ts-jest turn them (and our TypeScript) into CommonJS.
  transform: {
    '^.+\\.[tj]s$': [
      'ts-jest',
      { tsconfig: { module: 'commonjs', allowJs: true, isolatedModules: true, esModuleInterop: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
};

module.exports = {
  testTimeout: 60000,
  // Jest's default on 2 cores is one worker, in band: every file after the other. Most files wait on
  // DynamoDB Local (its own process) or on child processes rather than compute, so 2 cores keep three
  // workers busy, the long fuzz file alone on one of them (wall times: docs/benchmarks.md).
  maxWorkers: Math.max(3, (os.availableParallelism?.() ?? os.cpus().length) - 1),
  // Handlers log one line per request; keep test output readable.
  silent: true,
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.test.ts'] },
    {
      ...common,
      displayName: 'storage',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/test/unit/'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
