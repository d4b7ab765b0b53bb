/**
 * The local runtime's TTL (lib/local/ttl.ts), on a table with the sweep index: expired items are
 * deleted, others left, and the deletions it made are remembered across a restart until the
 * feeder has passed them — except one whose item is still there (its delete never happened).
 */
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sweepIndex } from '#core/items/task';
import { localClient } from '#lib/local/dynamodb-local';
import { checkLayoutVersion } from '#lib/local/layout-version';
import { startLocalTtl, TtlDeletions } from '#lib/local/ttl';
import { createTestTable } from '#test/support/dynamodb';
import { useTempDir } from '#test/support/temp-dir';

const dir = useTempDir('local-ttl-');
let client: ReturnType<typeof localClient>;
let tableName: string;
beforeAll(async () => {
  const table = await createTestTable();
  // With the sweep index, as the service's table has it: DynamoDB Local's own TTL then leaves these items alone.
  await checkLayoutVersion(table.endpoint, table.tableName, dir);
  client = localClient(table.endpoint);
  tableName = table.tableName;
});
afterAll(() => client?.destroy());

const seconds = (fromNow: number) => String(Math.floor(Date.now() / 1000) + fromNow);
const put = (pk: string, item: Record<string, { S: string } | { N: string }> = {}) =>
  client.send(new PutItemCommand({ TableName: tableName, Item: { PK: { S: pk }, SK: { S: 'ITEM' }, ...item } }));
const exists = async (pk: string) =>
  Boolean(
    (await client.send(new GetItemCommand({ TableName: tableName, Key: { PK: { S: pk }, SK: { S: 'ITEM' } }, ConsistentRead: true }))).Item,
  );

/** Runs the local TTL until `pk` is gone (at most 10 s). */
async function runUntilGone(pk: string, deletions: TtlDeletions) {
  const ttl = startLocalTtl({ client, tableName, deletions, everyMs: 50, log: () => {} });
  const began = Date.now();
  while ((await exists(pk)) && Date.now() - began < 10_000) await new Promise((r) => setTimeout(r, 50));
  await ttl.stop();
}

it('deletes expired items outside the sweep index, remembers them across a restart, and forgets one whose item is back', async () => {
  const expired = seconds(-60);
  await put('TTL#expired', { expiresAt: { N: expired } });
  await put('TTL#later', { expiresAt: { N: seconds(3600) } });
  await put('TTL#none');
  // Expired, and in the sweep index: DynamoDB Local's own TTL deletes such items, so ours never does.
  await put('TTL#indexed', {
    expiresAt: { N: expired },
    [sweepIndex.partitionKey]: { S: '00' },
    [sweepIndex.sortKey]: { S: '2026-01-01T00:00:00.000Z' },
  });
  const file = join(dir, 'ttl-deletions.json');
  const deletions = new TtlDeletions(file);
  await deletions.load(client, tableName);
  await runUntilGone('TTL#expired', deletions);

  expect(await exists('TTL#expired')).toBe(false);
  expect(await exists('TTL#later')).toBe(true);
  expect(await exists('TTL#none')).toBe(true);
  expect(deletions.isOurs('TTL#indexed', 'ITEM', expired)).toBe(false);
  expect(deletions.isOurs('TTL#expired', 'ITEM', expired)).toBe(true);
  expect(deletions.isOurs('TTL#expired', 'ITEM', seconds(-1))).toBe(false); // another item that had the key

  // A restart before the feeder passed the record: still ours.
  const restarted = new TtlDeletions(file);
  await restarted.load(client, tableName);
  expect(restarted.isOurs('TTL#expired', 'ITEM', expired)).toBe(true);
  // Its item there again (as if the delete had never happened): not ours, so a later REMOVE is the service's.
  await put('TTL#expired', { expiresAt: { N: expired } });
  const again = new TtlDeletions(file);
  await again.load(client, tableName);
  expect(again.isOurs('TTL#expired', 'ITEM', expired)).toBe(false);
  // Forgotten once the feeder has passed it.
  await restarted.forget([{ pk: 'TTL#expired', sk: 'ITEM' }]);
  expect(restarted.isOurs('TTL#expired', 'ITEM', expired)).toBe(false);
});

it('deletes an item only if it still has the expiresAt it was found with: one rewritten meanwhile stays', async () => {
  const expired = seconds(-60);
  const renewed = seconds(3600);
  await put('TTL#rewritten', { expiresAt: { N: expired } });
  await put('TTL#gone', { expiresAt: { N: expired } });
  // Between the scan that finds it and the delete, the item is written anew (a trash record
  // restored and trashed again, an idempotency key used again): it is no longer the one that expired.
  const rewrite = (next: (args: never) => Promise<unknown>, context: { commandName?: string }) => async (args: never) => {
    const key = (args as { input: { Key?: { PK?: { S?: string } } } }).input.Key?.PK?.S;
    if (context.commandName === 'DeleteItemCommand' && key === 'TTL#rewritten') await put('TTL#rewritten', { expiresAt: { N: renewed } });
    return next(args);
  };
  client.middlewareStack.add(rewrite as never, { step: 'initialize', name: 'rewriteBeforeDelete' });
  try {
    const deletions = new TtlDeletions(undefined);
    await runUntilGone('TTL#gone', deletions);
    expect(await exists('TTL#gone')).toBe(false);
    expect(await exists('TTL#rewritten')).toBe(true);
    // Not taken for a TTL deletion: a later REMOVE of this key is the service's own.
    expect(deletions.isOurs('TTL#rewritten', 'ITEM', expired)).toBe(false);
    expect(deletions.isOurs('TTL#gone', 'ITEM', expired)).toBe(true);
  } finally {
    client.middlewareStack.remove('rewriteBeforeDelete');
  }
});
