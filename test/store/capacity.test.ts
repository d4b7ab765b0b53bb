/**
 * Consumed capacity per operation for a 1 KB document, as DynamoDB Local reports it
 * (ReturnConsumedCapacity: TOTAL), through the metrics every request records for the access
 * log. `npm run bench` measures the same with AWS's billing rules (bench/results.md).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, type Item, tableName } from '#core/db/client';
import { itemSize, transactionalWriteUnits } from '#core/db/item-size';
import { measured, type StoreMetrics } from '#core/db/metrics';
import { createDocument, getDocument, updateDocument } from '#core/items/document';
import { createFolder, getFolder, getRootFolder, listDocuments, listFolders } from '#core/items/folder';
import { type Key, usageKey } from '#core/items/keys';
import { createRepository, getRepository, listRepositories } from '#core/items/repository';
import { trashDocument } from '#core/use-cases/trash';
import { rawItem } from '#test/support/dynamodb';
import { useTable } from '#test/support/fixture';

const table: Record<string, StoreMetrics> = {};
async function measure(name: string, work: () => Promise<unknown>) {
  const { metrics } = await measured(work);
  table[name] = metrics;
  return metrics;
}

useTable();

describe('consumed capacity for a 1 KB document', () => {
  it('matches the access-pattern table', async () => {
    const caller = { userId: 'capacity-user' };
    const content = 'x'.repeat(1024);
    let repositoryId = '';
    await measure('POST /', async () => {
      repositoryId = (await createRepository(caller, { name: 'Capacity', description: '' })).id;
    });
    await measure('GET /', () => listRepositories(caller, { limit: 50 }));
    await measure('GET /{id}', () => getRepository(caller, repositoryId));
    await measure('GET /{id}/folder', () => getRootFolder(caller, repositoryId));
    let folderId = '';
    await measure('POST /folder', async () => {
      folderId = (await createFolder(caller, { parentId: repositoryId, name: 'Sub' })).id;
    });
    await measure('GET /folder/{id}', () => getFolder(caller, folderId));
    await measure('GET /folder/{id}/folders', () => listFolders(caller, repositoryId, { limit: 50 }));
    let documentId = '';
    await measure('POST /document', async () => {
      documentId = (await createDocument(caller, { folderId, name: 'one-kb.txt', content, contentType: 'text/plain' })).id;
    });
    await measure('GET /folder/{id}/documents', () => listDocuments(caller, folderId, { limit: 50 }));
    await measure('GET /document/{id}', () => getDocument(caller, documentId));
    await measure('PUT /document (content)', () => updateDocument(caller, { id: documentId, content: 'y'.repeat(1024) }, {}));
    await measure('PUT /document (rename)', () => updateDocument(caller, { id: documentId, name: 'renamed.txt' }, {}));
    await measure('DELETE /document/{id}', () => trashDocument(caller, documentId, {}));

    console.table(
      Object.fromEntries(
        Object.entries(table).map(([k, m]) => [
          k,
          { requests: m.requests.join(' + '), RCU: m.readCapacityUnits, WCU: m.writeCapacityUnits },
        ]),
      ),
    );
    // Every request reports what it consumed; reads never write; writes are one transaction.
    for (const [name, metrics] of Object.entries(table)) {
      const transactions = metrics.requests.filter((r) => r === 'TransactWriteItems');
      if (name.startsWith('GET')) {
        expect(metrics.readCapacityUnits, name).toBeGreaterThan(0);
        expect(metrics.writeCapacityUnits, name).toBe(0);
        expect(transactions, name).toEqual([]);
      } else {
        expect(metrics.writeCapacityUnits, name).toBeGreaterThan(0);
        expect(transactions, name).toEqual(['TransactWriteItems']);
      }
    }
  });
});

describe('the item-size model the benchmark bills with (functions/core/db/item-size.ts)', () => {
  it('sizes items as DynamoDB does: one write unit per started KB, around every boundary', async () => {
    // A plain PutItem costs 1 WCU per started KB of the item: DynamoDB Local computes that
    // from its own item size, so it checks the model's size at each KB boundary.
    const base = { PK: 'SIZE#probe', SK: 'ITEM', n: 12345, nothing: null, list: ['a', 1], map: { k: 'v' } };
    for (const target of [1000, 1024, 1025, 2048, 2049, 4095]) {
      const pad = target - itemSize({ ...base, pad: '' });
      const item = { ...base, pad: 'é'.repeat(Math.floor(pad / 2)) + 'x'.repeat(pad % 2) };
      expect(itemSize(item)).toBe(target);
      const { metrics } = await measured(() => db().send(new PutCommand({ TableName: tableName(), Item: item })));
      expect(metrics.writeCapacityUnits, `${target} bytes`).toBe(Math.ceil(target / 1024));
    }
  });
});

/**
 * What AWS bills for the items of the transactions `work` sends: 2 write units per started KB of
 * the larger of each item's images (before and after), as bench/recorder.ts models it.
 */
async function billedWriteUnits(work: () => Promise<unknown>, written: Item[] = []): Promise<number> {
  let units = 0;
  const name = 'capacityTestRecorder';
  const image = async (key: Key) => (await db().send(new GetCommand({ TableName: tableName(), Key: key }))).Item;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const keys = (args.input as { TransactItems: Record<string, { Key?: Key; Item?: Key }>[] }).TransactItems.map((step) => {
        const { Key: key, Item: item } = Object.values(step)[0]!;
        return { PK: (key ?? item)!.PK, SK: (key ?? item)!.SK };
      });
      const before = await Promise.all(keys.map(image));
      const result = await next(args);
      const after = await Promise.all(keys.map(image));
      units += keys.reduce((sum, _, i) => sum + transactionalWriteUnits(Math.max(itemSize(before[i]), itemSize(after[i]))), 0);
      written.push(...after.filter((item) => item !== undefined));
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db().middlewareStack.remove(name);
  }
  return units;
}

describe('consumed capacity of a rename of a 256 KiB inline document', () => {
  it('writes the small items only: the content is not rewritten by a rename', async () => {
    const caller = { userId: 'capacity-rename' };
    const repository = await createRepository(caller, { name: 'Rename', description: '' });
    const document = await createDocument(caller, {
      folderId: repository.rootFolderId,
      name: 'big.txt',
      content: 'x'.repeat(256 * 1024),
      contentType: 'text/plain',
    });
    // Two renames alike: one measured as DynamoDB Local reports it, one billed (its image reads would count in the first).
    const { metrics } = await measured(() => updateDocument(caller, { id: document.id, name: 'renamed.txt' }, {}));
    const billed = await billedWriteUnits(() => updateDocument(caller, { id: document.id, name: 'again.txt' }, {}));
    console.log(
      `rename of a 256 KiB inline document: DynamoDB Local ${metrics.writeCapacityUnits} WCU, AWS ${billed} WCU (${metrics.requests.join(' + ')})`,
    );
    // The document and role, then its text for the answer (too large for the document item), then the transaction.
    expect(metrics.requests).toEqual(['BatchGetItem', 'BatchGetItem', 'TransactWriteItems']);
    // The items a rename writes are small: a few KB in all (the 256 KiB alone would be 514 units).
    expect(billed).toBeLessThan(40);
  });
});

describe('write units of POST /, as AWS bills them', () => {
  // Before (bench/results.md, 2026-11-27): 28, with 8 role lanes and a usage item of 0 bytes.
  it('writes the repository, its root folder, the owner in each of their 4 lanes, member, membership and profile: 18', async () => {
    const caller = { userId: 'capacity-repository' };
    const written: Item[] = [];
    let id = '';
    const units = await billedWriteUnits(async () => {
      id = (await createRepository(caller, { name: 'Units', description: '' })).id;
    }, written);
    expect(written.map((item) => String(item.SK).replace(/#.*/, '#'))).toEqual([
      'REPO',
      'FOLDER',
      'ACL',
      'ACL',
      'ACL',
      'ACL',
      'M#',
      'REPO#',
      'PROFILE',
    ]);
    expect(units).toBe(18);
    // No usage item until a version is written: that write makes it with its size.
    expect(await rawItem(usageKey(id))).toBeUndefined();
    await createDocument(caller, { folderId: id, name: 'a.txt', content: 'abc', contentType: 'text/plain' });
    expect(await rawItem(usageKey(id))).toMatchObject({ bytes: 3 });
  });
});

describe('write units of the document writes, as AWS bills them (a 1 KB document)', () => {
  // Before the text moved into the document item (bench/results.md, 2026-11-27): 24, 22 and 18; then 18, 20, 20.
  it('writes each text and each revision once: POST /document 16, PUT /document (content) 20, a rename 20', async () => {
    const caller = { userId: 'capacity-writes' };
    const repository = await createRepository(caller, { name: 'Writes', description: '' });
    const [first, second] = ['a'.repeat(1024), 'b'.repeat(1024)];
    /** The written items (after the transaction) that hold `text`. */
    const holding = (items: Item[], text: string) => items.filter((item) => Object.values(item).includes(text)).map((item) => item.SK);
    const created: Item[] = [];
    let id = '';
    const create = await billedWriteUnits(async () => {
      id = (await createDocument(caller, { folderId: repository.rootFolderId, name: 'a.txt', content: first, contentType: 'text/plain' }))
        .id;
    }, created);
    const changed: Item[] = [];
    const change = await billedWriteUnits(() => updateDocument(caller, { id, content: second }, {}), changed);
    const renamed: Item[] = [];
    const rename = await billedWriteUnits(() => updateDocument(caller, { id, name: 'b.txt' }, {}), renamed);
    console.log(`AWS write units, 1 KB document: POST /document ${create}, PUT /document (content) ${change}, rename ${rename}`);
    // The text once, in the document item; no content item beside it.
    expect(holding(created, first)).toEqual(['DOC']);
    // The new text in the document item, the text it replaced in the item of the version that set it: each once.
    expect(holding(changed, second)).toEqual(['DOC']);
    expect(holding(changed, first)).toEqual(['CONTENT#0000000001']);
    expect(holding(renamed, second)).toEqual(['DOC']);
    // A new document writes no revision item (the document item is its current revision); each
    // later version writes the revision of the one it replaces.
    expect(created.map((item) => item.SK)).not.toContainEqual(expect.stringMatching(/^REV#/));
    expect(changed.map((item) => item.SK)).toContain('REV#0000000001');
    expect(renamed.map((item) => item.SK)).toContain('REV#0000000002');
    expect([create, change, rename]).toEqual([16, 20, 20]);
  });
});
