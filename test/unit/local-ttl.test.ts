/**
 * The local runtime's TTL (lib/local/ttl.ts) in the fast tier, against a table held in a Map that
 * answers its Scan and DeleteItem as DynamoDB would for the expressions it sends: which items it
 * takes (expired, outside the sweep index), that it deletes each only while it still has the
 * `expiresAt` it was found with, and what it remembers. test/local/ttl.test.ts runs it on DynamoDB Local.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { sweepIndex } from '#core/items/task';
import { DEFAULT_TTL_INTERVAL_MS, startLocalTtl, TtlDeletions } from '#lib/local/ttl';

type Attr = { S?: string; N?: string };
type Row = Record<string, Attr>;
const now = () => Math.floor(Date.now() / 1000);
const row = (pk: string, fields: Row = {}): Row => ({ PK: { S: pk }, SK: { S: 'ITEM' }, ...fields });

/** A table of `rows` answering the TTL's two requests; `beforeDelete` runs between a scan and a delete. */
function fakeTable(rows: Row[], options: { pageSize?: number; beforeDelete?: (pk: string) => void; fail?: string } = {}) {
  const items = new Map(rows.map((r) => [r.PK!.S!, r]));
  const sent: { name: string; input: Record<string, unknown> }[] = [];
  const client = {
    async send(command: { constructor: { name: string }; input: Record<string, unknown> }) {
      const name = command.constructor.name;
      const input = command.input as Record<string, unknown>;
      sent.push({ name, input });
      if (name === 'ScanCommand') {
        expect(input.FilterExpression).toBe('#ttl <= :now AND attribute_not_exists(#shard)');
        expect(input.ExpressionAttributeNames).toEqual({
          '#pk': 'PK',
          '#sk': 'SK',
          '#ttl': 'expiresAt',
          '#shard': sweepIndex.partitionKey,
        });
        expect(input.ProjectionExpression).toBe('#pk, #sk, #ttl');
        const at = Number((input.ExpressionAttributeValues as Record<string, Attr>)[':now']!.N);
        const all = [...items.values()].sort((a, b) => a.PK!.S!.localeCompare(b.PK!.S!));
        const start = input.ExclusiveStartKey ? all.findIndex((r) => r.PK!.S === (input.ExclusiveStartKey as Row).PK!.S) + 1 : 0;
        const page = all.slice(start, start + (options.pageSize ?? 100));
        const last = start + page.length < all.length ? { PK: page.at(-1)!.PK, SK: page.at(-1)!.SK } : undefined;
        const Items = page
          .filter((r) => r.expiresAt?.N !== undefined && Number(r.expiresAt.N) <= at && r[sweepIndex.partitionKey] === undefined)
          .map((r) => ({ PK: r.PK, SK: r.SK, expiresAt: r.expiresAt }));
        // The SDK's ScanCommandOutput may leave `Items` out: a page without any says nothing of them.
        return { ...(Items.length > 0 ? { Items } : {}), ...(last ? { LastEvaluatedKey: last } : {}) };
      }
      if (name === 'DeleteItemCommand') {
        const pk = (input.Key as Row).PK!.S!;
        if (pk === options.fail) throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
        options.beforeDelete?.(pk);
        expect(input.ConditionExpression).toBe('#ttl = :expiresAt');
        expect(input.ExpressionAttributeNames).toEqual({ '#ttl': 'expiresAt' });
        const expected = (input.ExpressionAttributeValues as Record<string, Attr>)[':expiresAt']!.N;
        if (items.get(pk)?.expiresAt?.N !== expected) {
          throw Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
        }
        items.delete(pk);
        return {};
      }
      if (name === 'GetItemCommand') {
        // Whether the delete happened: read strongly, by the item's whole key.
        expect(input).toEqual({ TableName: 't', Key: { PK: { S: expect.any(String) }, SK: { S: 'ITEM' } }, ConsistentRead: true });
        const found = items.get((input.Key as Row).PK!.S!);
        return found ? { Item: found } : {};
      }
      throw new Error(`unexpected ${name}`);
    },
  };
  return { client: client as unknown as DynamoDBClient, items, sent };
}

/** Runs the TTL until `done()` (at most 5 s). */
async function runUntil(client: DynamoDBClient, deletions: TtlDeletions, done: () => boolean, log: string[] = []) {
  const ttl = startLocalTtl({ client, tableName: 't', deletions, everyMs: 5, log: (line) => log.push(line) });
  const began = Date.now();
  while (!done() && Date.now() - began < 5_000) await new Promise((r) => setTimeout(r, 5));
  await ttl.stop();
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('the local TTL', () => {
  it('passes as often as DynamoDB Local’s own', () => {
    expect(DEFAULT_TTL_INTERVAL_MS).toBe(10_000);
  });

  it('deletes the expired items outside the sweep index, page by page, and no others', async () => {
    const expired = String(now() - 60);
    const { client, items, sent } = fakeTable(
      [
        row('A#expired', { expiresAt: { N: expired } }),
        row('B#now', { expiresAt: { N: String(now() - 1) } }),
        row('C#later', { expiresAt: { N: String(now() + 3600) } }),
        row('D#none'),
        row('E#indexed', { expiresAt: { N: expired }, [sweepIndex.partitionKey]: { S: '00' } }),
        row('F#expired', { expiresAt: { N: expired } }),
      ],
      { pageSize: 2 },
    );
    const deletions = new TtlDeletions(undefined);
    await runUntil(client, deletions, () => !items.has('F#expired'));
    expect([...items.keys()].sort()).toEqual(['C#later', 'D#none', 'E#indexed']);
    expect(deletions.isOurs('A#expired', 'ITEM', expired)).toBe(true);
    expect(deletions.isOurs('F#expired', 'ITEM', expired)).toBe(true);
    expect(deletions.isOurs('E#indexed', 'ITEM', expired)).toBe(false);
    expect(sent.filter((s) => s.name === 'ScanCommand').some((s) => s.input.ExclusiveStartKey !== undefined)).toBe(true);
    const scan = sent.find((s) => s.name === 'ScanCommand')!.input;
    expect(scan.TableName).toBe('t');
    expect(Math.abs(Number((scan.ExpressionAttributeValues as Record<string, Attr>)[':now']!.N) - now())).toBeLessThanOrEqual(1);
    expect(sent.find((s) => s.name === 'DeleteItemCommand')!.input).toMatchObject({
      TableName: 't',
      Key: { PK: { S: 'A#expired' }, SK: { S: 'ITEM' } },
      ExpressionAttributeValues: { ':expiresAt': { N: expired } },
    });
  });

  it('leaves an item rewritten between the scan and the delete, and does not take its later REMOVE for its own', async () => {
    const expired = String(now() - 60);
    const { client, items } = fakeTable([row('A#rewritten', { expiresAt: { N: expired } }), row('B#gone', { expiresAt: { N: expired } })], {
      beforeDelete: (pk) => {
        if (pk === 'A#rewritten') items.set(pk, row(pk, { expiresAt: { N: String(now() + 3600) } }));
      },
    });
    const deletions = new TtlDeletions(undefined);
    const log: string[] = [];
    await runUntil(client, deletions, () => !items.has('B#gone'), log);
    // A delete refused by its condition is no failure of the pass: it goes on to the next item.
    expect(log).toEqual([]);
    expect(items.has('A#rewritten')).toBe(true);
    expect(deletions.isOurs('A#rewritten', 'ITEM', expired)).toBe(false);
    expect(deletions.isOurs('B#gone', 'ITEM', expired)).toBe(true);
  });

  it('logs another failure of a pass, forgets what it did not delete, and tries again later', async () => {
    const expired = String(now() - 60);
    const { client, items, sent } = fakeTable([row('A#stuck', { expiresAt: { N: expired } })], { fail: 'A#stuck' });
    const deletions = new TtlDeletions(undefined);
    const log: string[] = [];
    await runUntil(client, deletions, () => sent.filter((s) => s.name === 'DeleteItemCommand').length >= 2, log);
    expect(items.has('A#stuck')).toBe(true);
    expect(deletions.isOurs('A#stuck', 'ITEM', expired)).toBe(false);
    expect(log[0]).toBe('ttl: throttled; trying again later');
  });

  it('passes over a table with nothing expired without a word', async () => {
    const { client, sent } = fakeTable([row('A#later', { expiresAt: { N: String(now() + 3600) } }), row('B#none')]);
    const log: string[] = [];
    await runUntil(client, new TtlDeletions(undefined), () => sent.length >= 3, log);
    expect(sent.map((s) => s.name)).toEqual(sent.map(() => 'ScanCommand'));
    expect(log).toEqual([]);
  });

  it('stopped while idle: no pass comes after', async () => {
    const expired = String(now() - 60);
    const { client, sent } = fakeTable([row('A', { expiresAt: { N: expired } })]);
    const ttl = startLocalTtl({ client, tableName: 't', deletions: new TtlDeletions(undefined), everyMs: 20, log: () => {} });
    await ttl.stop();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(sent).toEqual([]);
  });

  it('stopped during a pass: the item being deleted is the last, and no pass comes after', async () => {
    const expired = String(now() - 60);
    let stopping: Promise<void> | undefined;
    const { client, items, sent } = fakeTable(
      [row('A', { expiresAt: { N: expired } }), row('B', { expiresAt: { N: expired } }), row('C', { expiresAt: { N: expired } })],
      {
        // The first delete of the pass: stop is asked for while it is under way.
        beforeDelete: () => {
          stopping ??= ttl.stop();
        },
      },
    );
    const ttl = startLocalTtl({ client, tableName: 't', deletions: new TtlDeletions(undefined), everyMs: 5, log: () => {} });
    while (!stopping) await new Promise((resolve) => setTimeout(resolve, 2));
    await stopping;
    const after = sent.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect([...items.keys()]).toEqual(['B', 'C']);
    expect(sent.length).toBe(after);
    expect(sent.map((s) => s.name)).toEqual(['ScanCommand', 'DeleteItemCommand']);
  });
});

describe('the deletions it made', () => {
  it('are ours only for the key and the expiresAt deleted; forgotten on request', async () => {
    const deletions = new TtlDeletions(undefined);
    await deletions.add({ pk: 'P', sk: 'S', expiresAt: '100' });
    expect(deletions.isOurs('P', 'S', '100')).toBe(true);
    expect(deletions.isOurs('P', 'S', '101')).toBe(false);
    expect(deletions.isOurs('P', 'other', '100')).toBe(false);
    expect(deletions.isOurs(undefined, 'S', '100')).toBe(false);
    expect(deletions.isOurs('P', undefined, '100')).toBe(false);
    // A record without keys or without an old expiresAt is never ours, whatever is remembered.
    expect(deletions.isOurs(undefined, 'S', undefined)).toBe(false);
    expect(deletions.isOurs('P', undefined, undefined)).toBe(false);
    expect(deletions.isOurs(undefined, undefined, undefined)).toBe(false);
    await deletions.forget([{ pk: 'P', sk: 'S' }]);
    expect(deletions.isOurs('P', 'S', '100')).toBe(false);
  });

  it('are kept in their file across a restart, except one whose item is still there; a missing file is none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ttl-unit-'));
    dirs.push(dir);
    const file = join(dir, 'ttl-deletions.json');
    const { client } = fakeTable([row('BACK', { expiresAt: { N: '5' } })]);
    const first = new TtlDeletions(file);
    await first.load(client, 't');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual([]);
    await first.add({ pk: 'GONE', sk: 'ITEM', expiresAt: '5' });
    await first.add({ pk: 'BACK', sk: 'ITEM', expiresAt: '5' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toHaveLength(2);
    const second = new TtlDeletions(file);
    await second.load(client, 't');
    expect(second.isOurs('GONE', 'ITEM', '5')).toBe(true);
    expect(second.isOurs('BACK', 'ITEM', '5')).toBe(false);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual([{ pk: 'GONE', sk: 'ITEM', expiresAt: '5' }]);
    // Forgetting what it does not hold leaves the file alone.
    await writeFile(file, 'untouched');
    await second.forget([{ pk: 'NOT-THERE', sk: 'ITEM' }]);
    expect(await readFile(file, 'utf8')).toBe('untouched');
    await second.forget([{ pk: 'GONE', sk: 'ITEM' }]);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual([]);
    await writeFile(file, 'not json');
    await expect(new TtlDeletions(file).load(client, 't')).rejects.toThrow();
  });

  it('are kept in memory only without a file: loading reads nothing', async () => {
    const { client, sent } = fakeTable([row('A', { expiresAt: { N: '5' } })]);
    await new TtlDeletions(undefined).load(client, 't');
    expect(sent).toEqual([]);
  });
});
