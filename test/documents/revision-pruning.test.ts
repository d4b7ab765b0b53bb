/**
 * Retention of revisions (docs/api.md: Revisions): a document keeps at least its last 100
 * revisions, or all of the last 30 days, whichever is more; the worker reclaims the rest when a
 * write past the 100th version asks it to. The history is seeded straight into the service's
 * table (revision and content items as documents.ts writes them, some 40 days old), then one
 * write through the API triggers the real worker on the stream, and what is left is read back
 * through the API and from the table.
 */
import { createHash, randomUUID } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { db, tableName } from '#core/db/client';
import { createDocument } from '#core/items/document';
import { contentKey, documentKey, revisionKey } from '#core/items/keys';
import { createRepository } from '#core/items/repository';
import { DAY_MS } from '#core/limits';
import type { Caller } from '#core/resources';
import { rawItem } from '#test/support/dynamodb';
import { useService } from '#test/support/fixture';
import { Api, listAll } from '#test/support/http';

// Each test seeds hundreds of items and waits for the worker: on a busy shared DynamoDB Local, more than 30 s.
vi.setConfig({ testTimeout: 120_000 });

const caller: Caller = { userId: 'pruner' };
const ctx = useService({
  seed: async (svc) => ({
    api: new Api(svc.url, await svc.issueToken(caller.userId)),
    folderId: (await createRepository(caller, { name: 'Retention', description: '' })).rootFolderId,
  }),
});

/**
 * A document with revisions 1…`version`: `contentAt(v)` is the content version v set (undefined:
 * it kept the content, as a rename does), and revisions up to `oldUpTo` are 40 days old.
 */
async function documentWith(version: number, contentAt: (v: number) => string | undefined, oldUpTo: number): Promise<string> {
  const first = contentAt(1)!;
  const { id } = await createDocument(caller, {
    folderId: ctx.folderId,
    name: `doc-${randomUUID()}`,
    content: first,
    contentType: 'text/plain',
  });
  const items: Record<string, unknown>[] = [];
  let contentVersion = 1;
  let content = first;
  let keptBytes = 0;
  for (let v = 1; v <= version; v++) {
    const set = contentAt(v);
    if (set !== undefined) {
      contentVersion = v;
      content = set;
      items.push({ ...contentKey(id, v), content });
    }
    const updatedAt = new Date(Date.now() - (v <= oldUpTo ? 40 * DAY_MS : 0)).toISOString();
    const metadata = {
      name: `r${v}`,
      contentType: 'text/plain',
      storage: 'inline',
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      updatedAt,
      updatedBy: caller.userId,
    };
    items.push({ ...revisionKey(id, v), version: v, ...metadata, contentVersion });
    keptBytes += content.length;
  }
  for (let i = 0; i < items.length; i += 25) {
    const requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
  }
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: documentKey(id),
      // Every version's text in its own item, none in the document item (what large text looks like, and every document before layout 5).
      UpdateExpression: 'SET version = :v, contentVersion = :cv, size = :s, sha256 = :h, keptBytes = :k REMOVE content',
      ExpressionAttributeValues: {
        ':v': version,
        ':cv': contentVersion,
        ':s': content.length,
        ':h': createHash('sha256').update(content).digest('hex'),
        ':k': keptBytes,
      },
    }),
  );
  return id;
}

/** One more version, through the API (PUT /document); past the 100th it asks the worker to prune. */
async function write(id: string, fields: { name?: string; content?: string }): Promise<number> {
  const res = await ctx.api.put('/document', { id, ...fields });
  expect(res.status, res.text).toBe(200);
  return res.body.version;
}

const versions = async (id: string) =>
  (await listAll<{ version: number }>(ctx.api, `/document/${id}/revisions`, 100)).items.map((r) => r.version);
/** Newest first, as the list is. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => to - i);
const revision = (id: string, v: number) => ctx.api.get(`/document/${id}/revisions/${v}`);

describe('revision retention', () => {
  it('keeps every revision of the last 30 days, however many; past 30 days, the last 100', async () => {
    const recent = await documentWith(130, (v) => `content ${v}`, 0);
    expect(await write(recent, { content: 'content 131' })).toBe(131);
    const id = await documentWith(130, (v) => `content ${v}`, 60);
    expect(await write(id, { content: 'content 131' })).toBe(131);
    await ctx.svc.worker.settled();

    expect(await versions(recent)).toEqual(range(1, 131)); // all recent: all kept
    // The last 100 (32…131) stay, old or not; 1…31 are old and before them: gone, content too.
    expect(await versions(id)).toEqual(range(32, 131));
    expect((await revision(id, 31)).status).toBe(404);
    expect(await rawItem(revisionKey(id, 31))).toBeUndefined();
    expect(await rawItem(contentKey(id, 1))).toBeUndefined();
    expect(await rawItem(contentKey(id, 31))).toBeUndefined();
    expect((await revision(id, 32)).body).toMatchObject({ version: 32, content: 'content 32' });
  });

  it('never reclaims content a kept revision points at; reclaims it once none does', async () => {
    // 1 sets the content, 2…109 rename (pointing at 1); all old: 11…110 are kept and point at 1.
    const id = await documentWith(109, (v) => (v === 1 ? 'base' : undefined), 109);
    expect(await write(id, { name: 'trigger-1' })).toBe(110);
    // 122 changes the content, 123… rename: once 122 is the oldest kept, the content of 1 goes.
    const later = await documentWith(221, (v) => (v === 1 ? 'base' : v === 122 ? 'changed' : undefined), 121);
    expect(await write(later, { name: 'trigger-2' })).toBe(222);
    await ctx.svc.worker.settled();

    expect(await versions(id)).toEqual(range(11, 110));
    expect(await rawItem(revisionKey(id, 1))).toBeUndefined();
    expect(await rawItem(contentKey(id, 1))).toMatchObject({ content: 'base' });
    expect((await revision(id, 11)).body).toMatchObject({ version: 11, content: 'base' });
    expect((await revision(id, 1)).status).toBe(404);

    // 122 is recent: kept by its age, though older than the last 100. Before it, all old: gone.
    expect(await versions(later)).toEqual(range(122, 222));
    expect(await rawItem(contentKey(later, 1))).toBeUndefined();
    expect((await revision(later, 123)).body).toMatchObject({ content: 'changed' });
    expect((await revision(later, 121)).status).toBe(404);
  });

  it('asks for pruning only past 100 versions; the request is bookkeeping, never part of the document', async () => {
    const id = await documentWith(99, (v) => `v${v}`, 0);
    expect(await write(id, { content: 'v100' })).toBe(100);
    expect(await rawItem(documentKey(id))).not.toHaveProperty('pruneRevisions');
    expect(await write(id, { content: 'v101' })).toBe(101);
    expect(await rawItem(documentKey(id))).toMatchObject({ pruneRevisions: true });
    expect((await ctx.api.get(`/document/${id}`)).body).not.toHaveProperty('pruneRevisions');
  });
});
