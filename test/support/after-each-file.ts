/**
 * Runs before each test file of the database tier (vitest setupFiles), which may share a process
 * with the files before it (./isolated-files.ts): when the file is done, what its clients were
 * answered is recorded and forgotten (./route-coverage.ts), its tables in DynamoDB Locals it did
 * not lease are dropped, its own DynamoDB Local (leased on first use, ./dynamodb.ts) is given back
 * to the pool (test/global-setup.ts), and a shared file that left process.env changed fails.
 */
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';
import { dropCreatedTables, releaseFileDatabase } from './dynamodb';
import { ISOLATED, SYSTEM } from './isolated-files';
import { recordFileAnswers } from './route-coverage';

/**
 * What a local service (lib/local/service.ts) and `useTestTable` (./dynamodb.ts) set: where the
 * file's own table, bucket and app are, and defaults. The next file's service sets them again, and
 * the handlers' clients follow them (functions/core/db/client.ts, functions/core/bucket.ts). And
 * Powertools' user agent, set once when it is first imported.
 */
const SET_BY_EVERY_SERVICE = new Set([
  'AWS_SDK_UA_APP_ID',
  'TABLE_NAME',
  'DYNAMODB_ENDPOINT',
  'BUCKET_NAME',
  'S3_ENDPOINT',
  'WEB_APP_URL',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'PAGING_TOKEN_SECRET',
  'POWERTOOLS_METRICS_NAMESPACE',
  'LOG_LEVEL',
  'DOCS_ASSETS_DIR',
]);

const environmentBefore = { ...process.env };
const testPath = expect.getState().testPath;
const file = testPath === undefined ? undefined : relative(process.cwd(), testPath);
const shared = file !== undefined && !ISOLATED.includes(file) && !SYSTEM.includes(file);

// Registered first, so it runs after the file's own afterAll hooks (they stop services first).
afterAll(async () => {
  recordFileAnswers();
  try {
    await dropCreatedTables();
  } finally {
    await releaseFileDatabase();
  }
  if (shared) {
    const changed = [...new Set([...Object.keys(environmentBefore), ...Object.keys(process.env)])].filter(
      (name) => !SET_BY_EVERY_SERVICE.has(name) && environmentBefore[name] !== process.env[name],
    );
    if (changed.length > 0) {
      throw new Error(
        `This file left process.env changed (${changed.join(', ')}), and the next file of its process would see it: restore it, or list the file in test/support/isolated-files.ts.`,
      );
    }
  }
}, 60_000);
