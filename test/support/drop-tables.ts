/**
 * Runs before each test file of the database tier (vitest setupFiles): when the file is done, its
 * tables in DynamoDB Locals it did not lease are dropped, and its own DynamoDB Local (leased on
 * first use, test/support/dynamodb.ts) is given back to the pool (test/global-setup.ts).
 */
import { afterAll } from 'vitest';
import { dropCreatedTables, releaseFileDatabase } from './dynamodb';

// Registered first, so it runs after the file's own afterAll hooks (they stop services first).
afterAll(async () => {
  try {
    await dropCreatedTables();
  } finally {
    await releaseFileDatabase();
  }
}, 60_000);
