/**
 * The local runtime's TTL (lib/local/ttl.ts), on a table with the sweep index: expired items are
 * deleted, others left, and the deletions it made are remembered across a restart until the
 * feeder has passed them — except one whose item is still there (its delete never happened).
 */
import { join } from 'node:path';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
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

it('deletes expired items outside the sweep index, remembers them across a restart, and forgets one whose item is back', async () => {
  const expired = seconds(-60);
  await put('TTL#expired', { expiresAt: { N: expired } });
  await put('TTL#later', { expiresAt: { N: seconds(3600) } });
  await put('TTL#none');
  const file = join(dir, 'ttl-deletions.json');
  const deletions = new TtlDeletions(file);
  await deletions.load(client, tableName);
  const ttl = startLocalTtl({ client, tableName, deletions, everyMs: 50, log: () => {} });
  const began = Date.now();
  while ((await exists('TTL#expired')) && Date.now() - began < 10_000) await new Promise((r) => setTimeout(r, 50));
  await ttl.stop();

  expect(await exists('TTL#expired')).toBe(false);
  expect(await exists('TTL#later')).toBe(true);
  expect(await exists('TTL#none')).toBe(true);
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
