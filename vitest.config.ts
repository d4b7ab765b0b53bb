import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One in-memory DynamoDB Local for the whole run; each test file gets its own table.
    globalSetup: ['test/global-setup.ts'],
    // Each test file runs in its own process: handlers keep their configuration in process.env.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      // The SDK's "Node 22 will be required in 2027" notice is noise in test output.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
