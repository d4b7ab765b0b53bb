/**
 * The trash (docs/api.md: Trash): DELETE /folder/{id}, GET /{id}/trash, restore, permanent
 * delete of one item and emptying, end to end (the 30-day purge: trash-expiry.test.ts), with every status each endpoint declares, and the table's invariants after every
 * background job (test/support/invariants.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { DAY_MS } from '#core/limits';
import { problemOf } from '#test/support/errors';
import { useServiceWithRoles } from '#test/support/fixture';
import {
  type Api,
  type Document,
  ensure,
  expectJson,
  expectProblem,
  expectValidationError,
  type Folder,
  type HttpResponse,
  inBatches,
  listAll,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  type Repository,
  setRole,
  uniqueName,
} from '#test/support/http';
import { expectInvariants, scanTable } from '#test/support/invariants';

// Most tests here wait for the background worker (settled()): on a busy machine that takes longer than 30 s.
vi.setConfig({ testTimeout: 120_000 });

const ctx = useServiceWithRoles(uniqueName('Trash'));

interface TrashItem {
  id: string;
  kind: 'document' | 'folder';
  name: string;
  folderId: string;
  deletedAt: string;
  deletedBy: string;
  purgeAt: string;
}

async function settledAndSound(): Promise<void> {
  await ctx.svc.worker.settled();
  await expectInvariants();
}

/** A repository of its own (the trash is per repository), shared like `repo`. */
async function freshRepository(): Promise<Repository> {
  const repository = await newRepository(ctx.owner.api);
  await setRole(ctx.owner.api, repository.id, ctx.editor.sub, 'editor');
  await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'viewer');
  return repository;
}

/** Items of the table that hold or name one of these ids, the feed's record of their changes aside. */
const leftOf = async (ids: ReadonlySet<string>) =>
  (await scanTable()).filter(
    (item) => !String(item.PK).startsWith('FEED#') && (ids.has(item.id) || [...ids].some((id) => String(item.PK).endsWith(`#${id}`))),
  );

const trashOf = async (repositoryId: string, api: Api = ctx.owner.api) =>
  (await listAll<TrashItem>(api, `/${repositoryId}/trash`, 100)).items;

/** A folder holding `documents` documents and a sub folder with as many again. */
async function filledFolder(parentId: string, documents = 3): Promise<{ folder: Folder; sub: Folder; inside: Document[] }> {
  const folder = await newFolder(ctx.owner.api, parentId);
  const sub = await newFolder(ctx.owner.api, folder.id, 'sub');
  const inside = await inBatches([...Array(documents * 2).keys()], 8, (i) =>
    newDocument(ctx.owner.api, i < documents ? folder.id : sub.id, { name: `d${i}.txt`, content: `document ${i}` }),
  );
  return { folder, sub, inside };
}

describe('DELETE /folder/{id}', () => {
  it('moves an empty folder to the trash: 204, gone from its parent, 404, one trash item', async () => {
    const repository = await freshRepository();
    const folder = await newFolder(ctx.owner.api, repository.rootFolderId, 'Empty');
    const res = await ctx.editor.api.delete(`/folder/${folder.id}`, { 'If-Match': '"1"' });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await ctx.owner.api.get(`/folder/${folder.id}`), 404);
    expect(await namesIn(ctx.owner.api, repository.rootFolderId, 'folders')).toEqual([]);
    const [item] = await trashOf(repository.id);
    expect(item).toEqual({
      id: folder.id,
      kind: 'folder',
      name: 'Empty',
      folderId: repository.rootFolderId,
      deletedAt: expect.any(String),
      deletedBy: ctx.editor.sub,
      purgeAt: new Date(Date.parse(item!.deletedAt) + 30 * DAY_MS).toISOString(),
    });
    // Its name is free again in the parent.
    await newFolder(ctx.owner.api, repository.rootFolderId, 'Empty');
    await settledAndSound();
  });

  it('409 folder-not-empty without recursive=true; with it, everything below follows into the trash', async () => {
    const repository = await freshRepository();
    const { folder, sub, inside } = await filledFolder(repository.rootFolderId);
    expectProblem(await ctx.owner.api.delete(`/folder/${folder.id}`), 409, problemOf('folder-not-empty'));
    expectProblem(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=false`), 409, problemOf('folder-not-empty'));
    expect(ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200).body.version).toBe(1);

    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    expectProblem(await ctx.owner.api.get(`/folder/${folder.id}`), 404);
    expectProblem(await ctx.owner.api.get(`/folder/${folder.id}/documents`), 404);
    // Nothing can be made in it from the answer on.
    expectProblem(await ctx.owner.api.post('/document', { folderId: folder.id, name: 'late.txt' }), 404);
    await settledAndSound();
    for (const document of inside) expectProblem(await ctx.owner.api.get(`/document/${document.id}`), 404);
    expectProblem(await ctx.owner.api.get(`/folder/${sub.id}`), 404);
    expectProblem(await ctx.owner.api.post('/folder', { parentId: sub.id, name: 'late' }), 404);
    // One item in the trash: what was below is not listed on its own.
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([folder.id]);
  });

  it('what is made below a folder while it goes to the trash goes with it', async () => {
    const repository = await freshRepository();
    const { folder, sub, inside } = await filledFolder(repository.rootFolderId, 40);
    const made: Document[] = [];
    /** Names whose create was a 503: made or not (the database may have committed it), nothing else. */
    const unavailable: string[] = [];
    const deleting = ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`);
    // Keep making documents in the sub folder until it is in the trash too: it is marked in the
    // background, a step after its parent (more documents than a step takes come first).
    let closed = false;
    for (let i = 0; i < 200 && !closed; i++) {
      const name = `racing-${i}.txt`;
      const res = await ctx.editor.api.post('/document', { folderId: sub.id, name });
      if (res.status === 404) {
        expectProblem(res, 404);
        closed = true;
      } else if (res.status === 503) {
        expectProblem(res, 503);
        unavailable.push(name);
      } else {
        expectJson(res, 201);
        made.push(res.body);
      }
    }
    ensure(await deleting, 204);
    console.log(`[stats] made below a folder going to the trash: ${made.length} (503: ${unavailable.length}); closed: ${closed}`);
    // The race was run: documents were made there while the folder went to the trash.
    expect(
      made.length,
      `nothing was made below the folder while it went to the trash (${unavailable.length} answered 503)`,
    ).toBeGreaterThan(0);
    expect(unavailable.length, 'a loaded database answered 503 to more than a quarter of the creates').toBeLessThanOrEqual(
      (made.length + unavailable.length) / 4,
    );
    await settledAndSound();
    // Gone with the folder: 404, nothing can be made there any more, and the trash lists the folder alone.
    for (const document of made) expectProblem(await ctx.owner.api.get(`/document/${document.id}`), 404);
    expectProblem(await ctx.editor.api.post('/document', { folderId: sub.id, name: 'too-late.txt' }), 404);
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([folder.id]);
    // In the trash, not lost: a restore brings them back with the rest, as they were made.
    ensure(await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 200);
    await settledAndSound();
    const names = await namesIn(ctx.owner.api, sub.id, 'documents');
    const expected = [...inside.filter((d) => d.folderId === sub.id), ...made].map((d) => d.name);
    expect(names.filter((name) => !unavailable.includes(name)).sort()).toEqual(expected.sort());
    for (const document of made)
      expect(ensure(await ctx.owner.api.get(`/document/${document.id}`), 200).body).toMatchObject({ version: 1 });
  });

  it('400 for the root folder; 404 for one in the trash, not there, or not visible; 403 for a viewer; 412 for a stale If-Match', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    expectValidationError(await ctx.owner.api.delete(`/folder/${ctx.repo.rootFolderId}`), 'id');
    expectValidationError(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=yes`), 'recursive');
    expectProblem(await ctx.viewer.api.delete(`/folder/${folder.id}`), 403);
    expectProblem(await ctx.stranger.api.delete(`/folder/${folder.id}`), 404);
    expectProblem(await ctx.owner.api.delete('/folder/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 404);
    expectProblem(await ctx.owner.api.delete(`/folder/${folder.id}`, { 'If-Match': '"2"' }), 412);
    ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}`), 204);
    expectProblem(await ctx.owner.api.delete(`/folder/${folder.id}`), 404);
  });

  it('a document or folder whose folder just went to the trash is 404 to every write, even before the worker marks it', async () => {
    const repository = await freshRepository();
    const { folder, inside } = await filledFolder(repository.rootFolderId, 1);
    const document = inside[0]!;
    const elsewhere = await newFolder(ctx.owner.api, repository.rootFolderId);
    const child = await newFolder(ctx.owner.api, folder.id, 'child');
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    expectProblem(await ctx.owner.api.put('/document', { id: document.id, name: 'escaped.txt' }), 404);
    expectProblem(await ctx.owner.api.put('/document', { id: document.id, folderId: elsewhere.id }), 404);
    expectProblem(await ctx.owner.api.delete(`/document/${document.id}`), 404);
    expectProblem(await ctx.owner.api.put('/folder', { id: child.id, parentId: elsewhere.id }), 404);
    expectProblem(await ctx.owner.api.put('/folder', { id: child.id, name: 'renamed' }), 404);
    expectProblem(await ctx.owner.api.delete(`/folder/${child.id}`), 404);
    await settledAndSound();
  });
});

describe('GET /{id}/trash', () => {
  it('lists documents and folders deleted, newest first, in pages; any member may read it', async () => {
    const repository = await freshRepository();
    const deleted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const document = await newDocument(ctx.owner.api, repository.rootFolderId, { name: `t${i}.txt` });
      ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
      deleted.unshift(document.id);
    }
    const { items, pages } = await listAll<TrashItem>(ctx.viewer.api, `/${repository.id}/trash`, 2);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(items.map((i) => i.id)).toEqual(deleted);
    expect(items[0]).toMatchObject({ kind: 'document', name: 't4.txt', folderId: repository.rootFolderId, deletedBy: ctx.owner.sub });
    const res = await ctx.viewer.api.get(`/${repository.id}/trash?limit=1`);
    expectJson(res, 200);
    expectProblem(await ctx.viewer.api.get(`/${repository.id}/trash?nextToken=${encodeURIComponent('not-a-token')}`), 400);
    // A token of another list (the root folder's documents: two stay there, so a page of one has one).
    for (const name of ['kept-1.txt', 'kept-2.txt']) await newDocument(ctx.owner.api, repository.rootFolderId, { name });
    const otherToken = ensure(await ctx.owner.api.get(`/folder/${repository.rootFolderId}/documents?limit=1`), 200).body.nextToken;
    expect(otherToken, 'a page of one of two documents has a nextToken').toEqual(expect.any(String));
    expectValidationError(await ctx.owner.api.get(`/${repository.id}/trash?nextToken=${encodeURIComponent(otherToken)}`), 'nextToken');
    // The trash's own token still works.
    const second = ensure(
      await ctx.viewer.api.get(`/${repository.id}/trash?limit=2&nextToken=${encodeURIComponent(res.body.nextToken)}`),
      200,
    );
    expect(second.body.items.map((i: TrashItem) => i.id)).toEqual(deleted.slice(1, 3));
  });

  it('404 for a stranger and for a repository that does not exist', async () => {
    expectProblem(await ctx.stranger.api.get(`/${ctx.repo.id}/trash`), 404);
    expectProblem(await ctx.owner.api.get('/AAAAAAAAAAAAAAAAAAAAAA/trash'), 404);
  });
});

describe('POST /{id}/trash/{itemId}/restore', () => {
  it('puts a document back where it was, with the same version; it leaves the trash', async () => {
    const repository = await freshRepository();
    const folder = await newFolder(ctx.owner.api, repository.rootFolderId);
    const document = await newDocument(ctx.owner.api, folder.id, { name: 'back.txt', content: 'back' });
    ensure(await ctx.owner.api.put('/document', { id: document.id, content: 'back again' }), 200);
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    const res = await ctx.editor.api.post(`/${repository.id}/trash/${document.id}/restore`, {});
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toMatchObject({ id: document.id, folderId: folder.id, name: 'back.txt', content: 'back again', version: 2 });
    expect(ensure(await ctx.owner.api.get(`/document/${document.id}`), 200).body).toEqual(res.body);
    expect(await namesIn(ctx.owner.api, folder.id, 'documents')).toEqual(['back.txt']);
    expect(await trashOf(repository.id)).toEqual([]);
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${document.id}/restore`, {}), 404);
    await settledAndSound();
  });

  it('puts a folder back with everything below it, its version unchanged; the body may be left out', async () => {
    const repository = await freshRepository();
    const { folder, sub, inside } = await filledFolder(repository.rootFolderId, 5);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    await settledAndSound();
    const res = await ctx.owner.api.request('POST', `/${repository.id}/trash/${folder.id}/restore`);
    expectJson(res, 200);
    expect(res.body).toEqual(folder);
    expect(await namesIn(ctx.owner.api, repository.rootFolderId, 'folders')).toEqual([folder.name]);
    await settledAndSound();
    for (const document of inside) expect(ensure(await ctx.owner.api.get(`/document/${document.id}`), 200).body.version).toBe(1);
    expect((await namesIn(ctx.owner.api, sub.id, 'documents')).length).toBe(5);
    expect(await trashOf(repository.id)).toEqual([]);
  });

  it('restores a folder at once after its delete, while the worker is still marking what is below', async () => {
    const repository = await freshRepository();
    const { folder, inside } = await filledFolder(repository.rootFolderId, 30);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    ensure(await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 200);
    await settledAndSound();
    for (const document of inside) ensure(await ctx.owner.api.get(`/document/${document.id}`), 200);
    // Deleted again and restored again, quickly: still nothing half in the trash.
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    ensure(await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 200);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    await settledAndSound();
    for (const document of inside.slice(0, 5)) expectProblem(await ctx.owner.api.get(`/document/${document.id}`), 404);
  });

  it('409 when the name is taken there, unless the body gives another name (a rename: version + 1)', async () => {
    const repository = await freshRepository();
    const document = await newDocument(ctx.owner.api, repository.rootFolderId, { name: 'taken.txt' });
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    await newFolder(ctx.owner.api, repository.rootFolderId, 'TAKEN.txt');
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${document.id}/restore`, {}), 409);
    const res = await ctx.owner.api.post(`/${repository.id}/trash/${document.id}/restore`, { name: 'free.txt' });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ name: 'free.txt', version: 2, folderId: repository.rootFolderId, updatedBy: ctx.owner.sub });
    expect(ensure(await ctx.owner.api.get(`/document/${document.id}/revisions/2`), 200).body).toMatchObject({ name: 'free.txt' });
    await settledAndSound();
  });

  it('409 restore-target-gone when its folder is in the trash or gone, unless the body names another folder', async () => {
    const repository = await freshRepository();
    const folder = await newFolder(ctx.owner.api, repository.rootFolderId);
    const document = await newDocument(ctx.owner.api, folder.id, { name: 'orphan.txt' });
    const child = await newFolder(ctx.owner.api, folder.id, 'child');
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    ensure(await ctx.owner.api.delete(`/folder/${child.id}`), 204);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    for (const id of [document.id, child.id]) {
      expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${id}/restore`, {}), 409, problemOf('restore-target-gone'));
      expectProblem(
        await ctx.owner.api.post(`/${repository.id}/trash/${id}/restore`, { name: 'x' }),
        409,
        problemOf('restore-target-gone'),
      );
    }
    // Its folder purged for good: still 409, and the body decides.
    ensure(await ctx.owner.api.delete(`/${repository.id}/trash/${folder.id}`), 204);
    await settledAndSound();
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${document.id}/restore`, {}), 409, problemOf('restore-target-gone'));
    const elsewhere = await newFolder(ctx.owner.api, repository.rootFolderId, 'Elsewhere');
    const res = await ctx.owner.api.post(`/${repository.id}/trash/${document.id}/restore`, { folderId: elsewhere.id });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ folderId: elsewhere.id, version: 2 });
    expect(
      ensure(await ctx.owner.api.post(`/${repository.id}/trash/${child.id}/restore`, { folderId: elsewhere.id }), 200).body,
    ).toMatchObject({
      parentId: elsewhere.id,
      name: 'child',
    });
    await settledAndSound();
  });

  it('restores a folder into another folder (a move), keeping folders within the depth limit', async () => {
    const repository = await freshRepository();
    const { folder, sub } = await filledFolder(repository.rootFolderId, 2);
    const target = await newFolder(ctx.owner.api, repository.rootFolderId);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    const res = await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, { folderId: target.id });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ id: folder.id, parentId: target.id, version: 2 });
    await settledAndSound();
    expect(ensure(await ctx.owner.api.get(`/folder/${sub.id}`), 200).body.parentId).toBe(folder.id);

    // 49 levels below the root: a folder with one level below it no longer fits.
    let deep = target;
    for (let level = 2; level <= 49; level++) deep = await newFolder(ctx.owner.api, deep.id, `l${level}`);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    expectProblem(
      await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, { folderId: deep.id }),
      409,
      problemOf('depth-limit'),
    );
    await settledAndSound();
  });

  it('400 for a folder of another repository, 404 for a target not visible; 415 for a body that is not JSON', async () => {
    const repository = await freshRepository();
    const document = await newDocument(ctx.owner.api, repository.rootFolderId);
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    const mine = await newRepository(ctx.owner.api);
    const theirs = await newRepository(ctx.stranger.api);
    const path = `/${repository.id}/trash/${document.id}/restore`;
    expectValidationError(await ctx.owner.api.post(path, { folderId: mine.rootFolderId }), 'folderId');
    expectProblem(await ctx.owner.api.post(path, { folderId: theirs.rootFolderId }), 404);
    expectValidationError(await ctx.owner.api.post(path, { name: '' }), 'name');
    expectValidationError(await ctx.owner.api.post(path, { parentId: repository.rootFolderId }), 'parentId');
    expectProblem(await ctx.owner.api.request('POST', path, { raw: 'folderId=x', headers: { 'content-type': 'text/plain' } }), 415);
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([document.id]);
  });

  it('403 for a viewer; 404 for a stranger, an item not in the trash, or one below a deleted folder', async () => {
    const repository = await freshRepository();
    const { folder, inside } = await filledFolder(repository.rootFolderId, 1);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    await ctx.svc.worker.settled();
    expectProblem(await ctx.viewer.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 403);
    expectProblem(await ctx.stranger.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 404);
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${inside[0]!.id}/restore`, {}), 404);
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${repository.rootFolderId}/restore`, {}), 404);
    expectProblem(await ctx.owner.api.post(`/${ctx.repo.id}/trash/${folder.id}/restore`, {}), 404);
  });
});

describe('DELETE /{id}/trash/{itemId}', () => {
  it('purges one item for good: gone from the trash at once, nothing of it left once the worker is done', async () => {
    const repository = await freshRepository();
    const { folder, sub, inside } = await filledFolder(repository.rootFolderId, 4);
    for (const document of inside.slice(0, 3)) ensure(await ctx.owner.api.put('/document', { id: document.id, content: 'v2' }), 200);
    const kept = await newDocument(ctx.owner.api, repository.rootFolderId, { name: 'kept.txt' });
    ensure(await ctx.owner.api.delete(`/document/${kept.id}`), 204);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    const res = await ctx.editor.api.delete(`/${repository.id}/trash/${folder.id}`);
    expect(res.status, res.text).toBe(204);
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([kept.id]);
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 404);
    expectProblem(await ctx.owner.api.delete(`/${repository.id}/trash/${folder.id}`), 404);
    await settledAndSound();
    const ids = new Set([folder.id, sub.id, ...inside.map((d) => d.id)]);
    expect(await leftOf(ids)).toEqual([]);
  });

  it('what is deeper below a purged folder may change until the purge reaches it, and goes with it', async () => {
    const repository = await freshRepository();
    const folder = await newFolder(ctx.owner.api, repository.rootFolderId);
    // More documents than a step of the purge takes, and a sub folder named to come after them:
    // its turn comes a few steps after the answer.
    await inBatches([...Array(40).keys()], 8, (i) => newDocument(ctx.owner.api, folder.id, { name: `d${i}.txt` }));
    const deep = await newFolder(ctx.owner.api, folder.id, 'zz');
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    ensure(await ctx.owner.api.delete(`/${repository.id}/trash/${folder.id}`), 204);
    const made: string[] = [];
    let changed = 0;
    let unavailable = 0;
    /** Set once the purge reached `deep`: from then on everything below it is 404. */
    let reached: HttpResponse | undefined;
    // A few are enough to show it (a slow machine would otherwise make hundreds before the purge gets there).
    for (let i = 0; i < 200 && made.length < 8 && !reached; i++) {
      const res = await ctx.editor.api.post('/document', { folderId: deep.id, name: `late-${i}.txt` });
      if (res.status === 503) {
        expectProblem(res, 503); // a loaded database: made or not, the checks below hold
        unavailable++;
        continue;
      }
      if (res.status === 404) {
        expectProblem(res, 404);
        reached = res;
        break;
      }
      expectJson(res, 201);
      made.push(res.body.id);
      // Made there, it can be changed there until the purge reaches `deep`: then it is a 200
      // with the change, or (the purge got there in between) a 404 that changed nothing.
      const put = await ctx.editor.api.put('/document', { id: res.body.id, content: 'changed' });
      if (put.status === 404) {
        expectProblem(put, 404);
        reached = put;
      } else {
        expectJson(put, 200);
        expect(put.body).toMatchObject({ id: res.body.id, content: 'changed', version: 2 });
        changed++;
      }
    }
    // The purge reached `deep` (or the loop had its few): once it has, nothing below is writable again.
    if (reached) expectProblem(await ctx.editor.api.post('/document', { folderId: deep.id, name: 'after-reached.txt' }), 404);
    expect(made.length, `nothing was made below the purged folder before the purge reached it (503: ${unavailable})`).toBeGreaterThan(0);
    expect(changed, 'nothing made below the purged folder could be changed before the purge reached it').toBeGreaterThan(0);
    expect(unavailable, 'a loaded database answered 503 to more than a quarter of the creates').toBeLessThanOrEqual(
      (made.length + unavailable) / 4,
    );
    console.log(`[stats] made below a purged folder before the purge reached it: ${made.length}, changed: ${changed}, 503: ${unavailable}`);
    await settledAndSound();
    for (const id of made) expectProblem(await ctx.owner.api.get(`/document/${id}`), 404);
    expect(await leftOf(new Set([folder.id, deep.id, ...made]))).toEqual([]);
  });

  it('403 for a viewer, 404 for a stranger and for an item not in the trash', async () => {
    const repository = await freshRepository();
    const document = await newDocument(ctx.owner.api, repository.rootFolderId);
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    expectProblem(await ctx.viewer.api.delete(`/${repository.id}/trash/${document.id}`), 403);
    expectProblem(await ctx.stranger.api.delete(`/${repository.id}/trash/${document.id}`), 404);
    expectProblem(await ctx.owner.api.delete(`/${repository.id}/trash/${repository.rootFolderId}`), 404);
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([document.id]);
  });
});

describe('DELETE /{id}/trash', () => {
  it('empties the trash: it reads empty from the answer on, and nothing of what it held is left once purged', async () => {
    const repository = await freshRepository();
    const { folder } = await filledFolder(repository.rootFolderId, 3);
    const documents = await inBatches([...Array(25).keys()], 8, (i) =>
      newDocument(ctx.owner.api, repository.rootFolderId, { name: `e${i}.txt` }),
    );
    await inBatches(documents, 8, async (document) => ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204));
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    const res = await ctx.owner.api.delete(`/${repository.id}/trash`);
    expect(res.status, res.text).toBe(204);
    expect(await trashOf(repository.id)).toEqual([]);
    expectProblem(await ctx.owner.api.post(`/${repository.id}/trash/${documents[0]!.id}/restore`, {}), 404);
    expectProblem(await ctx.owner.api.delete(`/${repository.id}/trash/${folder.id}`), 404);
    // What is deleted after it is in the trash as usual.
    const after = await newDocument(ctx.owner.api, repository.rootFolderId, { name: 'after.txt' });
    ensure(await ctx.owner.api.delete(`/document/${after.id}`), 204);
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([after.id]);
    await settledAndSound();
    expect(await leftOf(new Set([folder.id, ...documents.map((d) => d.id)]))).toEqual([]);
  });

  it('403 for an editor or a viewer, 404 for a stranger', async () => {
    const repository = await freshRepository();
    const document = await newDocument(ctx.owner.api, repository.rootFolderId);
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    expectProblem(await ctx.editor.api.delete(`/${repository.id}/trash`), 403);
    expectProblem(await ctx.viewer.api.delete(`/${repository.id}/trash`), 403);
    expectProblem(await ctx.stranger.api.delete(`/${repository.id}/trash`), 404);
    expectProblem(await ctx.owner.api.delete('/AAAAAAAAAAAAAAAAAAAAAA/trash'), 404);
    expect((await trashOf(repository.id)).map((i) => i.id)).toEqual([document.id]);
  });
});

describe('moving to the trash and back', () => {
  it('does not change versions, and lists the item where it was', async () => {
    const repository = await freshRepository();
    const folder = await newFolder(ctx.owner.api, repository.rootFolderId, 'Versions');
    ensure(await ctx.owner.api.put('/folder', { id: folder.id, name: 'Versioned' }), 200);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}`, { 'If-Match': '"2"' }), 204);
    const restored = ensure(await ctx.owner.api.post(`/${repository.id}/trash/${folder.id}/restore`, {}), 200);
    expect(restored.headers.get('etag')).toBe('"2"');
    expect(ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200).body).toMatchObject({ name: 'Versioned', version: 2 });
    await settledAndSound();
  });
});
