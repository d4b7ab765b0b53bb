// Mutation testing (README: Testing; `npm run mutation`): the modules where money, data and access
// are decided, mutated against the fast tier's files that hold their rules (test/mutation/vitest.config.ts).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: false },
  mutate: [
    'functions/core/items/usage.ts',
    'functions/core/items/role.ts',
    'functions/core/auth.ts',
    'functions/core/use-cases/uploads.ts',
    'functions/core/use-cases/finish-upload.ts',
    'functions/core/use-cases/upload-rules.ts',
    'lib/local/ttl.ts',
    'lib/local/permissions.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['.data', 'cdk.out', 'reports', 'bench', 'web'],
};
