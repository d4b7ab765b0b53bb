import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { ISOLATED, SYSTEM } from '#test/support/isolated-files';

/**
 * The fast tier (`npm run test:fast`): no database, no service, no bundling; it answers in
 * seconds. `npm test` runs it first, then the database tier (`npm run test:slow`); the system
 * tier (`npm run test:system`, project `system`) runs on its own. Each file runs once.
 */
/** Files that run with the service's limits lowered (functions/core/limits.ts): a limit test seeds 4, not 999. */
const LOWERED_LIMITS = ['test/repositories/limits.test.ts'];

/**
 * The fast tier's files that synthesize the stack. They run in a project of their own that shares
 * one module cache per worker (`isolate: false`): aws-cdk-lib and the app load once, not once a
 * file, and a template one file synthesized is there for the next (test/support/stack.ts,
 * `testTemplate`). None of them changes process.env or mocks a module.
 */
const TEMPLATES = [
  'test/infra/stack.test.ts',
  'test/infra/file-bucket.test.ts',
  'test/infra/monitoring.test.ts',
  'test/infra/web-app-stack.test.ts',
  'test/infra/stack-size.test.ts',
  'test/unit/cost-model.test.ts',
  'test/web/stack-web-app.test.ts',
  'test/web/stack-web-app-hosting.test.ts',
];

const FAST = [
  'test/unit/**/*.test.ts',
  'test/cli/progress.test.ts',
  'test/guard/**/*.test.ts',
  'test/contract/openapi.test.ts',
  'test/contract/schemas.test.ts',
  'test/contract/contract-check.test.ts',
  'test/web/logic.test.ts',
  'test/web/refreshing-fetch.test.ts',
  'test/web/bundle.test.ts',
  'test/auth/**/*.test.ts',
  'test/search/query.test.ts',
];

/**
 * The longest files of the database and system tiers (vitest's JSON report, README: Test it), started first:
 * a few files run at a time, and a long file started last (cdk synth bundling every function) kept
 * one worker busy minutes after the other had finished. A fresh clone has no timings cached, and
 * vitest would start the largest files first, which are not the longest.
 */
const LONGEST_FIRST = [
  'test/web/app.test.ts',
  'test/infra/synth.test.ts',
  'test/infra/bundles.test.ts',
  'test/members/members.test.ts',
  'test/worker/worker-outage.test.ts',
  'test/contract/service.test.ts',
  'test/trash/trash.test.ts',
  'test/worker/file-cleanup.test.ts',
  'test/worker/worker-restart.test.ts',
  'test/members/role-matrix.test.ts',
  'test/uploads/upload-durability.test.ts',
  'test/repositories/lifecycle.test.ts',
  'test/local/durability.test.ts',
  'test/links/links.test.ts',
  'test/local/sam-invoke.test.ts',
  'test/search/search.test.ts',
  'test/api/errors.test.ts',
  'test/local/local-s3.test.ts',
  'test/changes/feed-follower.test.ts',
  'test/api/readme.test.ts',
  'test/api/faults.test.ts',
  'test/uploads/large-verify-kill.test.ts',
  'test/documents/documents.test.ts',
  'test/uploads/large-verify.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    const order = new Map(sorted.map((spec, index) => [spec, index]));
    return [...sorted].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b) || order.get(a)! - order.get(b)!,
    );
  }
}

/**
 * Files of the database tier at a time (TEST_WORKERS overrides it). Such a file keeps a core busy
 * only part of its time: it waits on its DynamoDB Local's one SQLite thread, on the worker's
 * stream rounds, on child processes, kills and restarts. Summed over the tier, the files' CPU time
 * was a little over half of what two cores give in the run's length with two files at a time; a
 * third fills those gaps. The fast tier is CPU-bound (imports): two at a time, the default below.
 */
const WORKERS = Number(process.env.TEST_WORKERS) || 3;
// One DynamoDB Local started ahead for each of them (test/global-setup.ts).
process.env.TEST_DYNAMODB_WARM ??= String(WORKERS);

/** The run's temporary folder, removed when it ends (every project). */
const RUN_TEMP = 'test/support/run-temp.ts';
const databaseTier = {
  globalSetup: [RUN_TEMP, 'test/global-setup.ts'],
  setupFiles: ['test/support/after-each-file.ts'],
  maxWorkers: WORKERS,
};

// .ci/run sets TEST_REPORT_DIR: each vitest run (one per npm script) writes its JSON report there.
const reportDir = process.env.TEST_REPORT_DIR;
const reporting = reportDir
  ? {
      reporters: ['default', 'json'],
      outputFile: { json: join(reportDir, `vitest-${(process.env.npm_lifecycle_event ?? 'run').replace(/[^\w-]/g, '-')}.json`) },
    }
  : {};

export default defineConfig({
  test: {
    // Each test file runs in its own process (handlers keep their configuration in process.env),
    // but for the projects that say otherwise: `templates`, and `suite` (test/support/isolated-files.ts).
    pool: 'forks',
    isolate: true,
    // Two files at a time on this 2-core machine (vitest's default would be one: cores - 1); the
    // database tier runs more (WORKERS above).
    maxWorkers: 2,
    // 60 s: several files at a time share the 2 cores with their DynamoDB Locals, and on a machine
    // loaded by other work a bundles test took just over 30 s (a timeout is for a hang, not a budget).
    testTimeout: 60_000,
    sequence: { sequencer: LongestFirst },
    hookTimeout: 60_000,
    env: {
      // The SDK's "Node 22 will be required in 2027" notice is noise in test output.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // A handler called directly (no local service, whose metrics sink decides) would print its EMF
      // lines to stdout, into the test report. Off for Powertools' own output only: the lines a
      // test reads come through setMetricsSink (functions/core/metrics.ts), which this leaves alone.
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
    ...reporting,
    projects: [
      { extends: true, test: { name: 'fast', include: FAST, exclude: TEMPLATES, globalSetup: [RUN_TEMP] } },
      { extends: true, test: { name: 'templates', include: TEMPLATES, isolate: false, globalSetup: [RUN_TEMP] } },
      {
        extends: true,
        // A fresh in-memory DynamoDB Local for each test file that uses one, from a pool kept warm.
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: ['test/completeness/**', ...FAST, ...TEMPLATES, ...LOWERED_LIMITS, ...ISOLATED, ...SYSTEM],
          isolate: false,
          ...databaseTier,
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, ...databaseTier } },
      { extends: true, test: { name: 'system', include: SYSTEM, ...databaseTier } },
      {
        extends: true,
        test: {
          name: 'limits',
          include: LOWERED_LIMITS,
          env: { DOCUMENTS_TEST_LIMITS: JSON.stringify({ members: 5, repositoriesPerUser: 5 }) },
          ...databaseTier,
        },
      },
      // After every other file: what the end-to-end suites covered (test/completeness/routes.test.ts).
      { extends: true, test: { name: 'completeness', include: ['test/completeness/**/*.test.ts'], sequence: { groupOrder: 1 } } },
    ],
  },
});
