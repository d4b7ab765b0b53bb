import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Where each test file records the operations it got answers from (test/support/route-coverage.ts).
process.env.ROUTE_COVERAGE_FILE ??= join(tmpdir(), `documents-route-coverage-${randomBytes(6).toString('hex')}.jsonl`);

export default defineConfig({
  test: {
    // Each test file runs in its own process: handlers keep their configuration in process.env.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      // The SDK's "Node 22 will be required in 2027" notice is noise in test output.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    projects: [
      {
        extends: true,
        // One in-memory DynamoDB Local for the whole suite; each test file gets its own table.
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/completeness/**'],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/support/drop-tables.ts'],
        },
      },
      // After every other file: what the end-to-end suites covered (test/completeness/routes.test.ts).
      { extends: true, test: { name: 'completeness', include: ['test/completeness/**/*.test.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
