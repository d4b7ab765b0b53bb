import { randomBytes } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { db, tableName } from '#core/store/client';
import type { Key } from '#core/store/keys';
import { ensureTable, localClient } from '#lib/local/dynamodb-local';

/** A fresh, empty table in the run's shared DynamoDB Local. */
export async function createTestTable(): Promise<{ endpoint: string; tableName: string }> {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `test-${randomBytes(6).toString('hex')}`;
  await ensureTable(endpoint, tableName);
  return { endpoint, tableName };
}

/**
 * Drops a test file's table when it is done with it: DynamoDB Local's one SQLite thread serves
 * the whole run, and its background jobs and stream reads walk every table and shard it holds.
 */
export async function dropTestTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
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
