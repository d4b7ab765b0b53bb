import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { db, tableName } from '#core/db/client';
import type { Key } from '#core/items/keys';
import { ensureTable, localClient } from '#lib/local/dynamodb-local';

/** Tables this test file made in DynamoDB Locals of its own starting (dropped after it by test/support/after-each-file.ts). */
const created: { endpoint: string; tableName: string }[] = [];

let lease: Promise<{ id: string; endpoint: string }> | undefined;

/**
 * This test file's own DynamoDB Local, in memory and without tables: leased on first use from the
 * pool test/global-setup.ts keeps warm, and given back when the file is done (`releaseFileDatabase`,
 * by test/support/after-each-file.ts), to be emptied for a later file or stopped. One file at a time:
 * no other file's tables, TTL sweeps or streams share its one SQLite thread.
 */
export async function fileDatabase(): Promise<string> {
  lease ??= (async () => {
    const broker = inject('dynamodbBroker');
    if (!broker)
      throw new Error(
        'no DynamoDB Local here: the fast tier (vitest.config.ts: FAST) has none; a test that needs one belongs to the suite',
      );
    const res = await fetch(`${broker}/lease`, { method: 'POST' });
    const body = (await res.json()) as { id: string; endpoint: string; message?: string };
    if (!res.ok) throw new Error(`no DynamoDB Local for this test file: ${body.message}`);
    return body;
  })();
  return (await lease).endpoint;
}

/** Whether `endpoint` is this file's own DynamoDB Local (its tables go with it: no need to drop them). */
export async function isFileDatabase(endpoint: string): Promise<boolean> {
  return lease !== undefined && (await lease.catch(() => undefined))?.endpoint === endpoint;
}

/** Stops this file's DynamoDB Local, if it leased one (after the file's own afterAll hooks). */
export async function releaseFileDatabase(): Promise<void> {
  const leased = await lease?.catch(() => undefined);
  lease = undefined;
  if (leased) await fetch(`${inject('dynamodbBroker')}/release/${leased.id}`, { method: 'POST' });
}

/** A fresh, empty table in this file's own DynamoDB Local (or in `endpoint`'s). */
export async function createTestTable(endpoint?: string): Promise<{ endpoint: string; tableName: string }> {
  if (endpoint === undefined) {
    const own = await fileDatabase();
    const tableName = `test-${randomBytes(6).toString('hex')}`;
    await ensureTable(own, tableName);
    return { endpoint: own, tableName };
  }
  const tableName = `test-${randomBytes(6).toString('hex')}`;
  await ensureTable(endpoint, tableName);
  created.push({ endpoint, tableName });
  return { endpoint, tableName };
}

/** A fresh table, and this process's environment pointed at it: the store's functions called directly use it. */
export async function useTestTable(): Promise<{ endpoint: string; tableName: string }> {
  const { endpoint, tableName } = await createTestTable();
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    PAGING_TOKEN_SECRET: 'integration-secret',
  });
  return { endpoint, tableName };
}

/**
 * Drops every table this file made in a DynamoDB Local it did not lease that is still there.
 * DynamoDB Local gives each table with a TTL a job that walks it 20 items every 10 s, on a pool of
 * 10 threads for all tables: tables left behind kept those threads busy, and a later TTL waited minutes.
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
 * every table it holds, and its background jobs and stream reads walk every table and shard.
 * A table in the file's own DynamoDB Local goes when that stops: nothing to do then.
 */
export async function dropTestTable(endpoint: string, tableName: string): Promise<void> {
  if (await isFileDatabase(endpoint)) return;
  const client = localClient(endpoint);
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    const index = created.findIndex((table) => table.endpoint === endpoint && table.tableName === tableName);
    if (index >= 0) created.splice(index, 1);
  } finally {
    client.destroy();
  }
}

/**
 * From this file's first test to its end, appends the name of every request the store's client
 * sends (`BatchGetItem`, …; retries included: interceptors wrap each attempt) to `into`. Call it
 * at the top level, after the table's hooks (`useTable`). The client may serve the next file of
 * this process (vitest.config.ts: ISOLATED): the recorder goes with the file.
 */
export function recordStoreRequests(into: string[]): void {
  const name = 'testRequestRecorder';
  beforeAll(() => {
    db().middlewareStack.add(
      (next, context) => async (args) => {
        into.push((context.commandName ?? '').replace(/Command$/, ''));
        return next(args);
      },
      { step: 'initialize', name },
    );
  });
  afterAll(() => void db().middlewareStack.remove(name));
}

/** An item as stored, read past the store (strongly consistent). */
export async function rawItem(key: Key): Promise<Record<string, unknown> | undefined> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
}
