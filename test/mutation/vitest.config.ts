/**
 * The test run StrykerJS mutates against (stryker.config.mjs; `npm run mutation`): fast-tier files
 * only (no database, no service), the ones that hold the rules of the modules it mutates. A mutant
 * that only the database tier could kill would restart DynamoDB Local for each of thousands of
 * mutants: hours on two cores. So those rules live in pure units that these files test.
 */
import { defineConfig } from 'vitest/config';

export const MUTATION_TESTS = [
  'test/unit/auth.test.ts',
  'test/unit/access.test.ts',
  'test/unit/usage.test.ts',
  'test/unit/upload-rules.test.ts',
  'test/unit/local-ttl.test.ts',
  'test/unit/local-permissions.test.ts',
  'test/guard/who-may.test.ts',
];

export default defineConfig({
  test: {
    // MUTATION_BASELINE=1: the fast tier's unit files as they were before these rules had their own (for comparison).
    include: process.env.MUTATION_BASELINE ? ['test/unit/**/*.test.ts'] : MUTATION_TESTS,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
