import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file that needs DynamoDB Local starts its own (test/support/dynamodb-local.ts) and stops it
    // after the file. Every runtime runs its functions as instances of their own (3 Api instances, the
    // stream's consumer, workflow tasks): on 2 cores one file at a time.
    setupFiles: ['test/support/per-file-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    // Every runtime runs its functions as instances of their own (3 Api instances, the stream's
    // consumer, the workflow tasks) beside another suite on 2 cores: a scene that takes 10 s alone
    // can take several times that there. The bounds are for hangs, not for speed.
    testTimeout: 90_000,
    hookTimeout: 180_000,
    env: {
      NODE_NO_WARNINGS: '1',
      ASSISTED_API_INSTANCES: process.env.ASSISTED_API_INSTANCES ?? '3',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  },
});
