import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { db, tableName } from '#core/store/client';
import type { Key } from '#core/store/keys';
import { ensureTable, localClient } from '#lib/local/dynamodb-local';

/** Tables this test file made (dropped after it by test/support/drop-tables.ts). */
const created: { endpoint: string; tableName: string }[] = [];

/** A fresh, empty table in the run's shared DynamoDB Local (or in `endpoint`'s). */
export async function createTestTable(endpoint = inject('dynamodbEndpoint')): Promise<{ endpoint: string; tableName: string }> {
  const tableName = `test-${randomBytes(6).toString('hex')}`;
  await ensureTable(endpoint, tableName);
  created.push({ endpoint, tableName });
  return { endpoint, tableName };
}

/** A fresh table, and this process's environment pointed at it: the store's functions called directly use it. */
export async function useTestTable(): Promise<void> {
  const { endpoint, tableName } = await createTestTable();
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    PAGING_TOKEN_SECRET: 'integration-secret',
  });
}

/**
 * Drops every table this file made that is still there. DynamoDB Local gives each table with a
 * TTL a job that walks it 20 items every 10 s, on a pool of 10 threads for all tables: tables
 * left behind by finished files kept those threads busy, and a later file's TTL waited minutes.
 */
export async function dropCreatedTables(): Promise<void> {
  for (const { endpoint, tableName } of created.splice(0)) {
    await dropTestTable(endpoint, tableName).catch((error: unknown) => {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    });
  }
}

/**
 * Drops a test file's table when it is done with it: DynamoDB Local's one SQLite thread serves
 * the whole run, and its background jobs and stream reads walk every table and shard it holds.
 */
export async function dropTestTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    const index = created.findIndex((table) => table.endpoint === endpoint && table.tableName === tableName);
    if (index >= 0) created.splice(index, 1);
  } finally {
    client.destroy();
  }
}

/** Appends the name of every request the store's client sends (`BatchGetItem`, …) to `into`. */
export function recordStoreRequests(into: string[]): void {
  db().middlewareStack.add(
    (next, context) => async (args) => {
      into.push((context.commandName ?? '').replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'testRequestRecorder' },
  );
}

/** An item as stored, read past the store (strongly consistent). */
export async function rawItem(key: Key): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
}
