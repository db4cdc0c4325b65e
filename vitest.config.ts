import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Integration suites share one DynamoDB Local per run; keep workers few on 2-core CI.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { NODE_NO_WARNINGS: '1', ASSISTED_API_INSTANCES: process.env.ASSISTED_API_INSTANCES ?? '3', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' },
  },
});
