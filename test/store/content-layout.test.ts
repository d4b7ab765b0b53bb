/**
 * Where a document's content lives (functions/core/items/document.ts): small text in the `DOC`
 * item while it is one 4 KB read unit, larger text in `CONTENT#<v>`, and content the `DOC` item
 * held written to `CONTENT#<v>` only once replaced. Reads, answers and revisions must not see
 * the difference; documents written by the layout before (text in `CONTENT#<v>` and a `CONTENT`
 * copy) must read as they did.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { db, tableName } from '#core/db/client';
import { itemSize } from '#core/db/item-size';
import { measured } from '#core/db/metrics';
import { createDocument, currentContentOf, DOCUMENT_ITEM_BYTES, getDocument, updateDocument } from '#core/items/document';
import { contentKey, documentKey, ITEM_SORT_KEY, type Key } from '#core/items/keys';
import { createRepository } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { getRevision, restoreRevision } from '#core/use-cases/revisions';
import { rawItem, recordStoreRequests } from '#test/support/dynamodb';
import { useTable } from '#test/support/fixture';

const requests: string[] = [];
let n = 0;
const newCaller = (): Caller => ({ userId: `layout-${Date.now()}-${n++}` });

useTable();
recordStoreRequests(requests);
beforeEach(() => {
  requests.length = 0;
});

async function world() {
  const caller = newCaller();
  const repository = await createRepository(caller, { name: 'Layout', description: '' });
  const create = (name: string, content: string) =>
    createDocument(caller, { folderId: repository.rootFolderId, name, content, contentType: 'text/plain' });
  return { caller, create };
}

/**
 * The longest text a `DOC` item named `name` holds: its size without the text, measured on a probe
 * of 1,111 bytes (its size and kept bytes take as many bytes as ~3,600's: four significant digits).
 */
async function fittingLength(create: (name: string, content: string) => Promise<{ id: string }>, name: string) {
  const probe = await create(name, 'x'.repeat(1111));
  return DOCUMENT_ITEM_BYTES - (itemSize(await rawItem(documentKey(probe.id))) - 1111);
}

describe('a document item holds its text while it is one read unit', () => {
  it('holds text up to 4,096 bytes of item, attribute names included, and not one byte more', async () => {
    const { caller, create } = await world();
    const length = await fittingLength(create, 'a.txt');
    // Same name and content type, so the same metadata: only the text differs.
    const fits = await create('b.txt', 'y'.repeat(length));
    const over = await create('c.txt', 'z'.repeat(length + 1));
    const fitting = await rawItem(documentKey(fits.id));
    expect(itemSize(fitting)).toBe(DOCUMENT_ITEM_BYTES);
    expect(currentContentOf(fitting as never)).toEqual({ content: 'y'.repeat(length) });
    expect(await rawItem(contentKey(fits.id, 1))).toBeUndefined();
    // DynamoDB Local agrees it is one strongly consistent read unit (4 KB, ReturnConsumedCapacity).
    const read = (key: Key) => measured(() => db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true })));
    expect((await read(documentKey(fits.id))).metrics.readCapacityUnits).toBe(1);
    expect(await rawItem(documentKey(over.id))).not.toHaveProperty('content');
    expect(await rawItem(contentKey(over.id, 1))).toEqual({ ...contentKey(over.id, 1), content: 'z'.repeat(length + 1) });

    // Small: one BatchGetItem (the document and the role). Large: the content item is one read more.
    requests.length = 0;
    expect((await getDocument(caller, fits.id)).content).toBe('y'.repeat(length));
    expect(requests).toEqual(['BatchGetItem']);
    requests.length = 0;
    expect((await getDocument(caller, over.id)).content).toBe('z'.repeat(length + 1));
    expect(requests).toEqual(['BatchGetItem', 'BatchGetItem']);
  });

  it('renames large text without rewriting it, and answers with it', async () => {
    const { caller, create } = await world();
    const text = 'L'.repeat(10_000);
    const document = await create('large.txt', text);
    const renamed = await updateDocument(caller, { id: document.id, name: 'larger.txt' }, {});
    expect(renamed).toMatchObject({ name: 'larger.txt', content: text, version: 2 });
    expect(await rawItem(documentKey(document.id))).not.toHaveProperty('content');
    expect(await rawItem(contentKey(document.id, 2))).toBeUndefined();
    expect((await getRevision(caller, document.id, 2)).content).toBe(text);
    // New small text moves into the document item; the large one stays where it was, for revision 1 and 2.
    await updateDocument(caller, { id: document.id, content: 'small' }, {});
    expect(await rawItem(documentKey(document.id))).toMatchObject({ content: 'small', contentVersion: 3 });
    expect(await rawItem(contentKey(document.id, 1))).toMatchObject({ content: text });
    expect((await getRevision(caller, document.id, 1)).content).toBe(text);
    expect((await getRevision(caller, document.id, 3)).content).toBe('small');
  });

  it('moves text out of the document item when a longer name leaves no room, and reads it there', async () => {
    const { caller, create } = await world();
    const length = await fittingLength(create, 'n.txt');
    const text = 't'.repeat(length);
    const document = await create('m.txt', text);
    expect(await rawItem(documentKey(document.id))).toHaveProperty('content', text);
    const name = `${'é'.repeat(100)}.txt`;
    expect(await updateDocument(caller, { id: document.id, name }, {})).toMatchObject({ content: text, version: 2 });
    expect(await rawItem(documentKey(document.id))).not.toHaveProperty('content');
    expect(await rawItem(contentKey(document.id, 1))).toEqual({ ...contentKey(document.id, 1), content: text });
    expect((await getDocument(caller, document.id)).content).toBe(text);
    expect((await getRevision(caller, document.id, 1)).content).toBe(text);
  });

  it('restores a revision whose content is the current one (nothing copied) and one whose content was replaced', async () => {
    const { caller, create } = await world();
    const document = await create('r.txt', 'one');
    await updateDocument(caller, { id: document.id, name: 'r2.txt' }, {});
    expect(await restoreRevision(caller, document.id, 1, {})).toMatchObject({ version: 3, content: 'one' });
    expect(await rawItem(contentKey(document.id, 1))).toBeUndefined();
    await updateDocument(caller, { id: document.id, content: 'two' }, {});
    expect(await restoreRevision(caller, document.id, 2, {})).toMatchObject({ version: 5, content: 'one' });
    expect(await rawItem(documentKey(document.id))).toMatchObject({ content: 'one', contentVersion: 5 });
    expect(await rawItem(contentKey(document.id, 4))).toMatchObject({ content: 'two' });
    expect((await getRevision(caller, document.id, 4)).content).toBe('two');
  });
});

describe('documents written by the layout before', () => {
  it('reads text kept in CONTENT#<v> (the CONTENT copy is no longer read) and moves it into the item at the next change', async () => {
    const { caller, create } = await world();
    const document = await create('old.txt', 'current');
    // What the layout before wrote: no text in DOC, the text in CONTENT#1, a copy in CONTENT.
    await db().send(new UpdateCommand({ TableName: tableName(), Key: documentKey(document.id), UpdateExpression: 'REMOVE content' }));
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...contentKey(document.id, 1), content: 'current' } }));
    await db().send(
      new PutCommand({ TableName: tableName(), Item: { PK: documentKey(document.id).PK, SK: ITEM_SORT_KEY.content, content: 'stale' } }),
    );
    expect((await getDocument(caller, document.id)).content).toBe('current');
    expect(await updateDocument(caller, { id: document.id, name: 'old2.txt' }, {})).toMatchObject({ content: 'current' });
    expect(await rawItem(documentKey(document.id))).not.toHaveProperty('content');
    await updateDocument(caller, { id: document.id, content: 'new' }, {});
    expect(await rawItem(documentKey(document.id))).toMatchObject({ content: 'new', contentVersion: 3 });
    expect((await getRevision(caller, document.id, 2)).content).toBe('current');
    expect((await getDocument(caller, document.id)).content).toBe('new');
  });
});
