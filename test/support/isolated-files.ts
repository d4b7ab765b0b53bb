/**
 * The database tier's files that each run in a process of their own (vitest.config.ts, project
 * `isolated`): they change process.env beyond pointing it at their own table and service, mock
 * a module, or count on their first request being the process's first (a cold start).
 *
 * The rest of the tier shares one process, and one module cache, per worker (project `suite`,
 * `isolate: false`): node's start and the imports are paid once per worker, not once per file
 * (7 % of the tier's CPU, docs/testing.md). A setting such a file left behind would reach the
 * next file, or be missed by a module that read it once (the logger reads LOG_LEVEL once), so
 * ./after-each-file.ts fails a shared file that leaves process.env changed.
 */
export const ISOLATED = [
  'test/cli/expiring-urls.test.ts',
  'test/documents/content.test.ts',
  'test/links/links.test.ts',
  'test/local/data-api.test.ts',
  'test/local/local-issuer.test.ts',
  'test/local/metrics.test.ts',
  'test/local/local-s3.test.ts',
  'test/store/file-versions.test.ts',
  'test/uploads/large-verify.test.ts',
  'test/uploads/uploads.test.ts',
  'test/worker/function-timeouts.test.ts',
  'test/worker/sweeper.test.ts',
];

/**
 * The system tier (`npm run test:system`, after `npm test` in .ci/run): files whose subject is a
 * whole program run as a process of its own, as a person or AWS runs it: the service killed and
 * started again (`npm start` children), the command-line tools and the README's commands, the
 * real CDK CLI, each function's bundle in a fresh Node process, DynamoDB Local's own processes, a
 * browser. Alone they take about as much CPU as the rest of the database tier (620 against 654
 * CPU-s on this 2-core machine), and `npm test` ran past its 10-minute budget with them
 * (docs/testing.md). Each runs in a process of its own.
 */
export const SYSTEM = [
  'test/web/app.test.ts',
  'test/browser/docs.test.ts',
  'test/infra/synth.test.ts',
  'test/infra/bundles.test.ts',
  'test/infra/lambda-credentials.test.ts',
  'test/local/durability.test.ts',
  'test/local/dynamodb-local.test.ts',
  'test/local/sam-invoke.test.ts',
  'test/uploads/upload-durability.test.ts',
  'test/uploads/large-verify-kill.test.ts',
  'test/worker/worker-restart.test.ts',
  'test/worker/worker-outage.test.ts',
  'test/api/readme.test.ts',
  'test/cli/files-walkthrough.test.ts',
  'test/cli/files-tools.test.ts',
];
