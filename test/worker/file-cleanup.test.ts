/**
 * Removing file bytes in the background (docs/data-model.md: Files, "Removing bytes"; API.md 12:
 * "a purged document, a revision no longer kept and a deleted repository leave nothing in the
 * bucket once the background work is done", and the usage stays exact).
 *
 * Documents are made through the API, then given the file layout straight in the table (the
 * document item's `storage`, `objectKey`, `keptBytes`, no `content`; `CONTENT#<v>` items naming
 * objects; the repository's `USAGE`), with their objects put in the local S3 emulator. Then the
 * real thing runs: the API's trash and delete, and the local worker on the table's stream,
 * which signs its S3 requests with the worker's own key, held to `workerFunction.s3`. Steps
 * run by hand run as the worker too (`runAsFunction`), so a missing grant fails here as on AWS.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { BatchWriteCommand, DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { documentObjectsPrefix, repositoryObjectsPrefix } from '#core/bucket';
import { ConditionFailed, db, tableName, transactWrite } from '#core/db/client';
import { deleteEverythingUnder } from '#core/files/objects';
import { createDocument } from '#core/items/document';
import { contentKey, documentKey, documentPartition, entryKey, revisionKey, UPLOAD_PREFIX, usageKey } from '#core/items/keys';
import { createRepository } from '#core/items/repository';
import type { Task } from '#core/items/task';
import { DAY_MS } from '#core/limits';
import { nameKey } from '#core/names';
import { purgeDocument } from '#core/use-cases/purge';
import { reclaimRepository } from '#core/use-cases/reclaim-repository';
import { REMOVE_BYTES, type S3Action, workerFunction } from '#functions/routes';
import { pruneRevisions } from '#functions/worker/housekeeping';
import { runAsFunction } from '#lib/local/permissions';
import { rawItem } from '#test/support/dynamodb';
import { useService } from '#test/support/fixture';
import { ensure, newDocument, newFolder, newRepository, newUser } from '#test/support/http';
import { expectInvariants, scanTable } from '#test/support/invariants';

// Seeding objects and waiting for the worker on a shared, busy machine.
vi.setConfig({ testTimeout: 180_000 });

/** `ctx.bucket`, the local runtime's own S3 client (every right), is what the test seeds and inspects with. */
const ctx = useService({ seed: async (svc) => ({ owner: await newUser(svc) }) });
const Bucket = () => ctx.svc.s3.bucket;

const asWorker = <T>(work: () => Promise<T>) => runAsFunction(workerFunction, work);

async function putObject(Key: string, size: number): Promise<void> {
  await ctx.bucket.send(new PutObjectCommand({ Bucket: Bucket(), Key, Body: randomBytes(size) }));
}

/** A multipart upload in progress at `Key`, with one part sent. */
async function startUpload(Key: string): Promise<string> {
  const { UploadId } = await ctx.bucket.send(new CreateMultipartUploadCommand({ Bucket: Bucket(), Key }));
  await ctx.bucket.send(new UploadPartCommand({ Bucket: Bucket(), Key, UploadId, PartNumber: 1, Body: randomBytes(1024) }));
  return UploadId!;
}

async function keysUnder(Prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await ctx.bucket.send(new ListObjectsV2Command({ Bucket: Bucket(), Prefix, ContinuationToken }));
    keys.push(...(page.Contents ?? []).map((object) => object.Key!));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return keys.sort();
}

async function uploadsUnder(Prefix: string): Promise<string[]> {
  const page = await ctx.bucket.send(new ListMultipartUploadsCommand({ Bucket: Bucket(), Prefix }));
  return (page.Uploads ?? []).map((upload) => upload.Key!);
}

async function setUsage(repositoryId: string, bytes: number): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...usageKey(repositoryId), bytes } }));
}
const usageOf = async (repositoryId: string) => (await rawItem(usageKey(repositoryId)))?.bytes as number | undefined;

/** One version of a file document: the object it names (an earlier version's, for a restore) and its size. */
interface FileVersion {
  objectId: string;
  size: number;
  /** An older version's content item repeats the object: a revision restore (no bytes copied). */
  restoredFrom?: number;
}

/**
 * A file document whose versions are `versions` (1…n), in the layout the document writes leave:
 * made through the API (so its entry, revisions and changes are those of n versions), then its
 * items rewritten as a file document's, and each distinct object put in the bucket.
 */
async function fileDocument(repositoryId: string, folderId: string, versions: FileVersion[]) {
  const document = await newDocument(ctx.owner.api, folderId, { content: 'v1' });
  for (let v = 2; v <= versions.length; v++) ensure(await ctx.owner.api.put('/document', { id: document.id, content: `v${v}` }), 200);
  const prefix = documentObjectsPrefix(repositoryId, document.id);
  const objectKey = (v: number) => `${prefix}${versions[v - 1]!.objectId}`;
  const keptBytes = versions.reduce((sum, version) => sum + version.size, 0);
  for (const [i, version] of versions.entries()) {
    const v = i + 1;
    if (version.restoredFrom === undefined) await putObject(objectKey(v), version.size);
    const named = version.restoredFrom === undefined ? objectKey(v) : objectKey(version.restoredFrom);
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...contentKey(document.id, v), objectKey: named } }));
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: revisionKey(document.id, v),
        UpdateExpression: 'SET #storage = :file, #size = :size',
        ExpressionAttributeNames: { '#storage': 'storage', '#size': 'size' },
        ExpressionAttributeValues: { ':file': 'file', ':size': version.size },
      }),
    );
  }
  const last = versions.length;
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: documentKey(document.id),
      UpdateExpression: 'SET #storage = :file, #objectKey = :objectKey, #keptBytes = :kept, #size = :size REMOVE #content',
      ExpressionAttributeNames: {
        '#storage': 'storage',
        '#objectKey': 'objectKey',
        '#keptBytes': 'keptBytes',
        '#size': 'size',
        '#content': 'content',
      },
      ExpressionAttributeValues: { ':file': 'file', ':objectKey': objectKey(last), ':kept': keptBytes, ':size': versions[last - 1]!.size },
    }),
  );
  return { id: document.id, name: document.name, prefix, keptBytes, objectKey };
}

/** Every item of the document's partition. */
const itemsOf = async (documentId: string) => (await scanTable()).filter((item) => item.PK === documentPartition(documentId));

describe('purging a document', () => {
  it('deletes every object and upload under its prefix, then its items, and gives its keptBytes back to the usage once', async () => {
    const repo = await newRepository(ctx.owner.api);
    // Three versions, two objects: version 3 restored version 1 (its content item repeats the object).
    const doc = await fileDocument(repo.id, repo.rootFolderId, [
      { objectId: 'one', size: 1_000 },
      { objectId: 'two', size: 2_000 },
      { objectId: 'three', size: 1_000, restoredFrom: 1 },
    ]);
    expect(doc.keptBytes).toBe(4_000);
    const upload = `${doc.prefix}an-upload`;
    await startUpload(upload);
    // Beside it: a document whose id starts with this one's, which must keep its bytes.
    const neighbour = `${repositoryObjectsPrefix(repo.id)}${doc.id}x/kept`;
    await putObject(neighbour, 10);
    await setUsage(repo.id, 4_000 + 500);
    expect(await keysUnder(doc.prefix)).toEqual([doc.objectKey(1), doc.objectKey(2)].sort());
    expect(await uploadsUnder(doc.prefix)).toEqual([upload]);

    ensure(await ctx.owner.api.delete(`/document/${doc.id}`), 204);
    ensure(await ctx.owner.api.delete(`/${repo.id}/trash/${doc.id}`), 204);
    await ctx.svc.worker.settled();

    expect(await keysUnder(doc.prefix)).toEqual([]);
    expect(await uploadsUnder(doc.prefix)).toEqual([]);
    expect(await keysUnder(repositoryObjectsPrefix(repo.id))).toEqual([neighbour]);
    expect(await itemsOf(doc.id)).toEqual([]);
    expect(await usageOf(repo.id)).toBe(500);
    await expectInvariants();
  });

  it('is safe to run again, or to cut short: each step repeated does nothing more, and the usage is released once', async () => {
    const repo = await newRepository(ctx.owner.api);
    const doc = await fileDocument(repo.id, repo.rootFolderId, [
      { objectId: 'a', size: 300 },
      { objectId: 'b', size: 700 },
    ]);
    await setUsage(repo.id, 1_000);
    const task = { kind: 'purge-document', repositoryId: repo.id, documentId: doc.id, id: 'by-hand', createdAt: '', step: 0 } as Task & {
      kind: 'purge-document';
    };
    // The bytes phase, twice (a worker killed after it, before the task recorded its progress).
    for (let run = 0; run < 2; run++) expect(await asWorker(() => purgeDocument(task))).toEqual({ next: { phase: 'items' } });
    expect(await keysUnder(doc.prefix)).toEqual([]);
    // The last phase read twice before either commits (a retried batch beside the sweeper):
    // the first commit removes the document and releases its bytes, the second fails its condition.
    const items = { ...task, phase: 'items' };
    const [first, second] = await asWorker(() => Promise.all([purgeDocument(items), purgeDocument(items)]));
    expect(first!.next).toBe('done');
    expect(Object.keys(first!.writes ?? {}).sort()).toEqual(['document', 'usage']);
    await asWorker(() => transactWrite(first!.writes!));
    expect(await usageOf(repo.id)).toBe(0);
    await expect(asWorker(() => transactWrite(second!.writes!))).rejects.toBeInstanceOf(ConditionFailed);
    // Read again afterwards, the step has nothing left to write.
    expect(await asWorker(() => purgeDocument(items))).toEqual({ writes: {}, next: 'done' });
    expect(await usageOf(repo.id)).toBe(0);
    expect(await itemsOf(doc.id)).toEqual([]);
    // Purged by hand, never trashed: its folder entry is the test's to remove.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: entryKey('documents', repo.rootFolderId, nameKey(doc.name)) }));
  });

  it('purges a folder’s documents with the folder (emptying the trash): no object left, their keptBytes released', async () => {
    const repo = await newRepository(ctx.owner.api);
    const folder = await newFolder(ctx.owner.api, repo.rootFolderId);
    const inner = await newFolder(ctx.owner.api, folder.id);
    const a = await fileDocument(repo.id, folder.id, [{ objectId: 'a1', size: 100 }]);
    const b = await fileDocument(repo.id, inner.id, [
      { objectId: 'b1', size: 200 },
      { objectId: 'b2', size: 300 },
    ]);
    const text = await newDocument(ctx.owner.api, inner.id, { content: 'inline text' });
    const textKept = ((await rawItem(documentKey(text.id)))?.keptBytes as number | undefined) ?? 0;
    await setUsage(repo.id, 600 + textKept + 7);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    await ctx.svc.worker.settled();
    ensure(await ctx.owner.api.delete(`/${repo.id}/trash`), 204);
    await ctx.svc.worker.settled();

    expect(await keysUnder(repositoryObjectsPrefix(repo.id))).toEqual([]);
    for (const id of [a.id, b.id, text.id]) expect(await itemsOf(id)).toEqual([]);
    expect(await usageOf(repo.id)).toBe(7);
    await expectInvariants();
  });

  it('does not make the usage item again when the repository went first', async () => {
    const repo = await newRepository(ctx.owner.api);
    const doc = await fileDocument(repo.id, repo.rootFolderId, [{ objectId: 'x', size: 50 }]);
    await db().send(new DeleteCommand({ TableName: tableName(), Key: usageKey(repo.id) }));
    ensure(await ctx.owner.api.delete(`/document/${doc.id}`), 204);
    ensure(await ctx.owner.api.delete(`/${repo.id}/trash/${doc.id}`), 204);
    await ctx.svc.worker.settled();
    expect(await keysUnder(doc.prefix)).toEqual([]);
    expect(await itemsOf(doc.id)).toEqual([]);
    expect(await rawItem(usageKey(repo.id))).toBeUndefined();
  });
});

describe('pruning revisions', () => {
  const caller = { userId: 'pruner' };

  /**
   * A document of 102 versions, all 40 days old: 1 and 2 set objects, 3 restored 1 (its content
   * item names 1's object), 4…102 renamed (keeping 3's content). Pruning keeps the last 100
   * (3…102): 1 and 2 go, with their content items.
   */
  async function longHistory() {
    const { rootFolderId: folderId, id: repositoryId } = await createRepository(caller, {
      name: `prune-${randomBytes(4).toString('hex')}`,
      description: '',
    });
    const { id } = await createDocument(caller, { folderId, name: 'history.bin', content: 'x', contentType: 'application/octet-stream' });
    const prefix = documentObjectsPrefix(repositoryId, id);
    const [first, second] = [`${prefix}first`, `${prefix}second`];
    await putObject(first, 64);
    await putObject(second, 128);
    const old = new Date(Date.now() - 40 * DAY_MS).toISOString();
    const sizes = (v: number) => (v === 2 ? 128 : 64);
    const items: Record<string, unknown>[] = [
      { ...contentKey(id, 1), objectKey: first },
      { ...contentKey(id, 2), objectKey: second },
      { ...contentKey(id, 3), objectKey: first },
    ];
    for (let v = 1; v <= 102; v++) {
      const metadata = {
        name: `r${v}`,
        contentType: 'application/octet-stream',
        storage: 'file',
        size: sizes(v),
        updatedAt: old,
        updatedBy: caller.userId,
      };
      items.push({ ...revisionKey(id, v), version: v, ...metadata, contentVersion: Math.min(v, 3) });
    }
    for (let i = 0; i < items.length; i += 25) {
      const requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
      await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
    }
    const keptBytes = Array.from({ length: 102 }, (_, i) => sizes(i + 1)).reduce((a, b) => a + b, 0);
    await setUsage(repositoryId, keptBytes + 1_000);
    return { id, repositoryId, folderId, first, second, keptBytes };
  }

  /** The document at `version`, counting `keptBytes`; `prune`: as a write past the 100th version leaves it (the stream's filter passes it to the worker). */
  async function setDocument(doc: { id: string; folderId: string }, version: number, keptBytes: number, prune: boolean) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: entryKey('documents', doc.folderId, nameKey('history.bin')),
        UpdateExpression: 'SET version = :v',
        ExpressionAttributeValues: { ':v': version },
      }),
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: documentKey(doc.id),
        UpdateExpression: `SET version = :v, contentVersion = :cv, keptBytes = :kept, #storage = :file${prune ? ', pruneRevisions = :yes' : ''} REMOVE content`,
        ExpressionAttributeNames: { '#storage': 'storage' },
        ExpressionAttributeValues: { ':v': version, ':cv': 3, ':kept': keptBytes, ':file': 'file', ...(prune ? { ':yes': true } : {}) },
      }),
    );
  }

  it('takes the pruned sizes off keptBytes and the usage, and deletes an object only when no kept revision names it', async () => {
    const doc = await longHistory();
    await setDocument(doc, 102, doc.keptBytes, true);
    await ctx.svc.worker.settled();

    for (const v of [1, 2]) {
      expect(await rawItem(revisionKey(doc.id, v))).toBeUndefined();
      expect(await rawItem(contentKey(doc.id, v))).toBeUndefined();
    }
    expect(await rawItem(revisionKey(doc.id, 3))).toBeDefined();
    expect(await rawItem(contentKey(doc.id, 3))).toMatchObject({ objectKey: doc.first });
    // The first object is still named by version 3's content (a restore of 1); the second by nothing.
    expect(await keysUnder(documentObjectsPrefix(doc.repositoryId, doc.id))).toEqual([doc.first]);
    const stored = await rawItem(documentKey(doc.id));
    expect(stored?.keptBytes).toBe(doc.keptBytes - 64 - 128);
    // Done: the request to prune is taken off with the bytes, so that write does not bring the worker back.
    expect(stored).not.toHaveProperty('pruneRevisions');
    expect(await usageOf(doc.repositoryId)).toBe(doc.keptBytes + 1_000 - 64 - 128);
    expect((await scanTable()).filter((item) => item.PK.startsWith('TASK#'))).toEqual([]);
  });

  it('counts nothing twice when two passes race or a pass runs again', async () => {
    const doc = await longHistory();
    await setDocument(doc, 102, doc.keptBytes, false);
    const document = { id: doc.id, repositoryId: doc.repositoryId, version: 102 };
    await asWorker(() => Promise.all([pruneRevisions(document), pruneRevisions(document)]));
    await asWorker(() => pruneRevisions(document));
    await ctx.svc.worker.settled(); // the release-objects task, on the stream

    expect(await usageOf(doc.repositoryId)).toBe(doc.keptBytes + 1_000 - 64 - 128);
    expect((await rawItem(documentKey(doc.id)))?.keptBytes).toBe(doc.keptBytes - 64 - 128);
    expect(await keysUnder(documentObjectsPrefix(doc.repositoryId, doc.id))).toEqual([doc.first]);
  });
});

describe('deleting a repository', () => {
  it('leaves no object, no multipart upload and no item of it', async () => {
    const repo = await newRepository(ctx.owner.api);
    const folder = await newFolder(ctx.owner.api, repo.rootFolderId);
    const doc = await fileDocument(repo.id, folder.id, [
      { objectId: 'p', size: 10 },
      { objectId: 'q', size: 20 },
    ]);
    const trashed = await fileDocument(repo.id, repo.rootFolderId, [{ objectId: 'r', size: 30 }]);
    ensure(await ctx.owner.api.delete(`/document/${trashed.id}`), 204);
    // An upload session in progress: its item in the repository's partition, its multipart upload in the bucket.
    const uploadId = `${repo.id}${randomBytes(16).toString('base64url').slice(0, 22)}`;
    const objectKey = `${doc.prefix}${uploadId}`;
    const s3UploadId = await startUpload(objectKey);
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { PK: `REPO#${repo.id}`, SK: `${UPLOAD_PREFIX}${uploadId}`, id: uploadId, status: 'open', size: 5, objectKey, s3UploadId },
      }),
    );
    await setUsage(repo.id, 65);
    expect((await keysUnder(repositoryObjectsPrefix(repo.id))).length).toBe(3);

    ensure(await ctx.owner.api.delete(`/${repo.id}`), 204);
    await ctx.svc.worker.settled();

    expect(await keysUnder(repositoryObjectsPrefix(repo.id))).toEqual([]);
    expect(await uploadsUnder(repositoryObjectsPrefix(repo.id))).toEqual([]);
    const left = (await scanTable()).filter((item) => JSON.stringify(item).includes(repo.id));
    expect(left).toEqual([]);
    await expectInvariants({ deletedRepositories: [repo.id] });

    // Its last phases run again (a worker killed before the task recorded them): nothing comes back.
    const task = { kind: 'reclaim-repository', repositoryId: repo.id, id: 'by-hand', createdAt: '', step: 0 } as const;
    for (const phase of ['uploads', 'bytes', 'usage']) {
      const { writes } = await asWorker(() => reclaimRepository({ ...task, phase }));
      if (writes) await asWorker(() => transactWrite(writes));
    }
    expect(await rawItem(usageKey(repo.id))).toBeUndefined();
    expect(await keysUnder(repositoryObjectsPrefix(repo.id))).toEqual([]);
  });
});

describe('the worker’s S3 grants', () => {
  it('are each needed: without any one of them, clearing a prefix that holds an object and an upload fails', async () => {
    const prefix = `${repositoryObjectsPrefix(`grants-${randomBytes(4).toString('hex')}`)}doc/`;
    const declared = workerFunction.s3;
    const planted = workerFunction as { s3: readonly S3Action[] };
    try {
      // The grants for removing bytes (the worker holds those for verifying uploads besides).
      expect(declared).toEqual(expect.arrayContaining([...REMOVE_BYTES]));
      for (const missing of REMOVE_BYTES) {
        await putObject(`${prefix}object`, 10);
        await startUpload(`${prefix}upload`);
        planted.s3 = declared.filter((action) => action !== missing);
        await expect(
          asWorker(() => deleteEverythingUnder(prefix)),
          missing,
        ).rejects.toThrow(/AccessDenied|not authorized|Access Denied/);
        planted.s3 = declared;
        expect(await asWorker(() => deleteEverythingUnder(prefix))).toMatchObject({ objects: 1 });
      }
    } finally {
      planted.s3 = declared;
    }
    expect(await keysUnder(prefix)).toEqual([]);
    expect(await uploadsUnder(prefix)).toEqual([]);
    // Nothing outside the file prefix, whatever the grants.
    await expect(asWorker(() => deleteEverythingUnder('elsewhere/'))).rejects.toThrow(/Not a file prefix/);
  });
});

describe('how long removing bytes takes (printed: numbers for docs/data-model.md, not asserted)', () => {
  // 1,001: one past a listing page and a DeleteObjects batch (1,000 each). How the time grows with the count is the bench's.
  it.each([10, 1_001])('clears a prefix of %i objects (past 1,000: two pages)', async (count) => {
    const prefix = `${repositoryObjectsPrefix(`timing-${count}`)}doc/`;
    const keys = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(5, '0')}`);
    for (let i = 0; i < keys.length; i += 25) await Promise.all(keys.slice(i, i + 25).map((key) => putObject(key, 1_024)));
    const started = performance.now();
    const removed = await asWorker(() => deleteEverythingUnder(prefix));
    const ms = performance.now() - started;
    expect(removed).toEqual({ objects: count, uploads: 0 });
    expect(await keysUnder(prefix)).toEqual([]);
    console.info(`deleteEverythingUnder: ${count} objects in ${ms.toFixed(0)} ms (${(ms / count).toFixed(2)} ms an object)`);
  });

  it('purges a document with 200 objects end to end (trash, purge, worker)', async () => {
    const repo = await newRepository(ctx.owner.api);
    const doc = await fileDocument(repo.id, repo.rootFolderId, [{ objectId: 'first', size: 10 }]);
    const extra = Array.from({ length: 199 }, (_, i) => `${doc.prefix}extra-${i}`);
    for (let i = 0; i < extra.length; i += 25) await Promise.all(extra.slice(i, i + 25).map((key) => putObject(key, 1_024)));
    ensure(await ctx.owner.api.delete(`/document/${doc.id}`), 204);
    const started = performance.now();
    ensure(await ctx.owner.api.delete(`/${repo.id}/trash/${doc.id}`), 204);
    await ctx.svc.worker.settled();
    const ms = performance.now() - started;
    expect(await keysUnder(doc.prefix)).toEqual([]);
    console.info(`purge of a document with 200 objects, from DELETE to the worker settled: ${ms.toFixed(0)} ms`);
  });
});
