/**
 * The life cycle of repositories and folders (docs/api.md: Life cycle): PUT /{id}, DELETE /{id},
 * PUT /folder, end to end, with every status each declares; the table's invariants after every
 * background job (test/support/invariants.ts); and the race the contract names: two folders
 * moved into each other at once, many times, never leave a cycle.
 */
import { describe, expect, it, vi } from 'vitest';
import { MAX_FOLDER_DEPTH } from '#core/limits';
import { problemOf } from '#test/support/errors';
import { useServiceWithRoles } from '#test/support/fixture';
import {
  type Api,
  ensure,
  expectJson,
  expectProblem,
  expectValidationError,
  type Folder,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  type Repository,
  setRole,
  type User,
  uniqueName,
} from '#test/support/http';
import { expectInvariants } from '#test/support/invariants';

// Most tests here wait for the background worker (settled()): on a busy machine that takes longer than 30 s.
vi.setConfig({ testTimeout: 120_000 });

const ctx = useServiceWithRoles(uniqueName('Lifecycle'));
const deletedRepositories: string[] = [];

/** Once the worker has done everything asked so far, the table holds together. */
async function settledAndSound(): Promise<void> {
  await ctx.svc.worker.settled();
  await expectInvariants({ deletedRepositories });
}

const freshFolder = (api: Api = ctx.owner.api, parentId = ctx.repo.rootFolderId, name?: string) => newFolder(api, parentId, name);

describe('PUT /{id}', () => {
  it('renames and describes a repository: 200, ETag, version + 1, and its root folder follows the name', async () => {
    const repository = await newRepository(ctx.owner.api, { name: uniqueName('before'), description: 'old' });
    const name = uniqueName('after');
    const res = await ctx.owner.api.put(`/${repository.id}`, { name, description: 'new' }, { 'If-Match': '"1"' });
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toMatchObject({ id: repository.id, name, description: 'new', version: 2, role: 'owner', updatedBy: ctx.owner.sub });
    expect(ensure(await ctx.owner.api.get(`/${repository.id}`), 200).body).toEqual({
      ...res.body,
      usage: { bytes: 0, quota: 10 * 1024 ** 3 },
    });
    const root = ensure(await ctx.owner.api.get(`/${repository.id}/folder`), 200).body as Folder;
    expect(root).toMatchObject({ name, version: 2, parentId: null });

    // A description alone leaves the root folder as it is.
    const described = ensure(await ctx.owner.api.put(`/${repository.id}`, { description: '' }), 200).body;
    expect(described).toMatchObject({ name, description: '', version: 3 });
    expect(ensure(await ctx.owner.api.get(`/${repository.id}/folder`), 200).body.version).toBe(2);
    await settledAndSound();
  });

  it("moves every member's GET / entry to the new name: at once for the caller, once the worker is done for the others", async () => {
    const a = await newRepository(ctx.owner.api, { name: `m-${uniqueName()}` });
    const b = await newRepository(ctx.owner.api, { name: `n-${uniqueName()}` });
    for (const repository of [a, b]) await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'viewer');
    const listed = async (user: User) => {
      const items = ensure(await user.api.get('/?limit=100'), 200).body.items as Repository[];
      return items.filter((r) => r.id === a.id || r.id === b.id).map((r) => r.name);
    };
    const renamed = `a-${uniqueName()}`;
    ensure(await ctx.owner.api.put(`/${b.id}`, { name: renamed }), 200);
    expect(await listed(ctx.owner)).toEqual([renamed, a.name]);
    // The viewer sees the new name at once, wherever it is listed; in its place once settled.
    expect((await listed(ctx.viewer)).sort()).toEqual([renamed, a.name].sort());
    await settledAndSound();
    expect(await listed(ctx.viewer)).toEqual([renamed, a.name]);
  });

  it('412 for a stale If-Match or version, and nothing changes', async () => {
    const repository = await newRepository(ctx.owner.api);
    expectProblem(await ctx.owner.api.put(`/${repository.id}`, { name: 'x' }, { 'If-Match': '"2"' }), 412);
    expectProblem(await ctx.owner.api.put(`/${repository.id}`, { name: 'x', version: 3 }), 412);
    expect(ensure(await ctx.owner.api.get(`/${repository.id}`), 200).body).toMatchObject({ name: repository.name, version: 1 });
  });

  it('403 for an editor or a viewer, 404 for a stranger and for a repository that does not exist', async () => {
    expectProblem(await ctx.editor.api.put(`/${ctx.repo.id}`, { name: 'mine now' }), 403);
    expectProblem(await ctx.viewer.api.put(`/${ctx.repo.id}`, { description: 'mine now' }), 403);
    expectProblem(await ctx.stranger.api.put(`/${ctx.repo.id}`, { name: 'mine now' }), 404);
    expectProblem(await ctx.owner.api.put('/AAAAAAAAAAAAAAAAAAAAAA', { name: 'nothing' }), 404);
    expect(ensure(await ctx.owner.api.get(`/${ctx.repo.id}`), 200).body.name).toBe(ctx.repo.name);
  });

  it('400 for a body that fails validation', async () => {
    expectValidationError(await ctx.owner.api.put(`/${ctx.repo.id}`, { name: ' ' }), 'name');
    expectValidationError(await ctx.owner.api.put(`/${ctx.repo.id}`, { name: 'x', rootFolderId: 'y' }), 'rootFolderId');
    expectValidationError(await ctx.owner.api.put(`/${ctx.repo.id}`, { description: 'x'.repeat(1025) }), 'description');
  });
});

describe('DELETE /{id}', () => {
  it('deletes a repository: 404 for every member from the answer on, gone from every GET /, nothing left once reclaimed', async () => {
    const repository = await newRepository(ctx.owner.api, { name: uniqueName('doomed') });
    await setRole(ctx.owner.api, repository.id, ctx.editor.sub, 'editor');
    await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'viewer');
    const folder = await freshFolder(ctx.owner.api, repository.rootFolderId);
    const sub = await newFolder(ctx.owner.api, folder.id);
    const document = await newDocument(ctx.owner.api, sub.id, { content: 'bye' });
    ensure(await ctx.owner.api.put('/document', { id: document.id, content: 'bye bye' }), 200);
    const trashed = await newDocument(ctx.owner.api, folder.id);
    ensure(await ctx.owner.api.delete(`/document/${trashed.id}`), 204);

    const res = await ctx.owner.api.delete(`/${repository.id}`, { 'If-Match': '"1"' });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    deletedRepositories.push(repository.id);
    for (const user of [ctx.owner, ctx.editor, ctx.viewer]) {
      expectProblem(await user.api.get(`/${repository.id}`), 404);
      expectProblem(await user.api.get(`/${repository.id}/folder`), 404);
      expectProblem(await user.api.get(`/folder/${folder.id}`), 404);
      expectProblem(await user.api.get(`/document/${document.id}`), 404);
      expectProblem(await user.api.get(`/${repository.id}/trash`), 404);
      const listed = ensure(await user.api.get('/?limit=100'), 200).body.items as Repository[];
      expect(listed.map((r) => r.id)).not.toContain(repository.id);
    }
    expectProblem(await ctx.editor.api.post('/document', { folderId: folder.id, name: 'late.txt' }), 404);
    expectProblem(await ctx.owner.api.delete(`/${repository.id}`), 404);
    await settledAndSound();
  });

  it('403 for an editor or a viewer, 404 for a stranger, 412 for a stale If-Match; nothing changes', async () => {
    const repository = await newRepository(ctx.owner.api);
    await setRole(ctx.owner.api, repository.id, ctx.editor.sub, 'editor');
    await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'viewer');
    expectProblem(await ctx.editor.api.delete(`/${repository.id}`), 403);
    expectProblem(await ctx.viewer.api.delete(`/${repository.id}`), 403);
    expectProblem(await ctx.stranger.api.delete(`/${repository.id}`), 404);
    expectProblem(await ctx.owner.api.delete(`/${repository.id}`, { 'If-Match': '"7"' }), 412);
    expect(ensure(await ctx.editor.api.get(`/${repository.id}`), 200).body.role).toBe('editor');
  });
});

describe('PUT /folder', () => {
  it('renames a folder: 200, ETag, version + 1; listed under its new name, the old one free', async () => {
    const parent = await freshFolder();
    const folder = await newFolder(ctx.owner.api, parent.id, 'Drafts');
    const res = await ctx.editor.api.put('/folder', { id: folder.id, name: 'Final' }, { 'If-Match': '"1"' });
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toEqual({ ...folder, name: 'Final', version: 2, updatedAt: expect.any(String), updatedBy: ctx.editor.sub });
    expect(await namesIn(ctx.owner.api, parent.id, 'folders')).toEqual(['Final']);
    expect(ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200).body).toEqual(res.body);
    await newFolder(ctx.owner.api, parent.id, 'drafts');
    // Only the case changes: the same name in the folder, so no clash with itself.
    expect(ensure(await ctx.owner.api.put('/folder', { id: folder.id, name: 'FINAL' }), 200).body.name).toBe('FINAL');
  });

  it('moves a folder with everything below it; it leaves its old parent and is listed in the new one', async () => {
    const from = await freshFolder();
    const to = await freshFolder();
    const moving = await newFolder(ctx.owner.api, from.id, 'Moving');
    const inside = await newFolder(ctx.owner.api, moving.id, 'Inside');
    const document = await newDocument(ctx.owner.api, inside.id, { name: 'deep.txt', content: 'deep' });
    const res = await ctx.owner.api.put('/folder', { id: moving.id, parentId: to.id, name: 'Moved', version: 1 });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ id: moving.id, parentId: to.id, name: 'Moved', version: 2 });
    expect(await namesIn(ctx.owner.api, from.id, 'folders')).toEqual([]);
    expect(await namesIn(ctx.owner.api, to.id, 'folders')).toEqual(['Moved']);
    expect(ensure(await ctx.owner.api.get(`/document/${document.id}`), 200).body).toMatchObject({ folderId: inside.id, version: 1 });
    expect(await namesIn(ctx.owner.api, inside.id, 'documents')).toEqual(['deep.txt']);
    // The depths and paths below are refreshed in the background.
    await settledAndSound();
  });

  it('409 when the target already has an item of that name; nothing moves', async () => {
    const from = await freshFolder();
    const to = await freshFolder();
    const folder = await newFolder(ctx.owner.api, from.id, 'Name');
    await newDocument(ctx.owner.api, to.id, { name: 'NAME' });
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, parentId: to.id }), 409);
    await newFolder(ctx.owner.api, from.id, 'Other');
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, name: 'other' }), 409);
    expect(ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200).body).toMatchObject({
      parentId: from.id,
      name: 'Name',
      version: 1,
    });
  });

  it('409 folder-cycle for a move into itself or below itself', async () => {
    const a = await freshFolder();
    const b = await newFolder(ctx.owner.api, a.id);
    const c = await newFolder(ctx.owner.api, b.id);
    for (const target of [a, b, c]) {
      const res = await ctx.owner.api.put('/folder', { id: a.id, parentId: target.id });
      expectProblem(res, 409, problemOf('folder-cycle'));
    }
    expectProblem(await ctx.owner.api.put('/folder', { id: b.id, parentId: c.id }), 409, problemOf('folder-cycle'));
    expect(ensure(await ctx.owner.api.get(`/folder/${a.id}`), 200).body.parentId).toBe(ctx.repo.rootFolderId);
  });

  it(`keeps folders within ${MAX_FOLDER_DEPTH} levels below the root: 409 depth-limit for a create or a move past it`, async () => {
    const chain: Folder[] = [await freshFolder()];
    while (chain.length < MAX_FOLDER_DEPTH) chain.push(await newFolder(ctx.owner.api, chain.at(-1)!.id, `level ${chain.length + 1}`));
    expectProblem(await ctx.owner.api.post('/folder', { parentId: chain.at(-1)!.id, name: 'too deep' }), 409, problemOf('depth-limit'));
    // A folder with one folder below it fits under level 48, not under level 49.
    const pair = await freshFolder();
    await newFolder(ctx.owner.api, pair.id, 'below');
    expectProblem(await ctx.owner.api.put('/folder', { id: pair.id, parentId: chain[48]!.id }), 409, problemOf('depth-limit'));
    ensure(await ctx.owner.api.put('/folder', { id: pair.id, parentId: chain[47]!.id }), 200);
    await settledAndSound();
    // Now at level 49 and 50: nothing more below.
    const below = (await namesIn(ctx.owner.api, pair.id, 'folders'))[0];
    expect(below).toBe('below');
    expectProblem(await ctx.owner.api.put('/folder', { id: chain[2]!.id, parentId: pair.id }), 409, problemOf('folder-cycle'));
    const leaf = await freshFolder();
    expectProblem(await ctx.owner.api.put('/folder', { id: leaf.id, parentId: chain.at(-1)!.id }), 409, problemOf('depth-limit'));
  });

  it('400 for the root folder, before any other rule of a move', async () => {
    const elsewhere = await freshFolder();
    expectValidationError(await ctx.owner.api.put('/folder', { id: ctx.repo.rootFolderId, name: 'renamed' }), 'name');
    expectValidationError(await ctx.owner.api.put('/folder', { id: ctx.repo.rootFolderId, parentId: elsewhere.id }), 'parentId');
    // Even with a target that does not exist, or a stale version.
    expectValidationError(
      await ctx.owner.api.put('/folder', { id: ctx.repo.rootFolderId, parentId: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      'parentId',
    );
    expectValidationError(
      await ctx.owner.api.put('/folder', { id: ctx.repo.rootFolderId, parentId: elsewhere.id, version: 9 }),
      'parentId',
    );
    expect(ensure(await ctx.owner.api.get(`/${ctx.repo.id}/folder`), 200).body).toMatchObject({ name: ctx.repo.name, version: 1 });
  });

  it('400 for a target in another repository the caller can see, 404 for one they cannot', async () => {
    const folder = await freshFolder();
    const mine = await newRepository(ctx.owner.api);
    const theirs = await newRepository(ctx.stranger.api);
    expectValidationError(await ctx.owner.api.put('/folder', { id: folder.id, parentId: mine.rootFolderId }), 'parentId');
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, parentId: theirs.rootFolderId }), 404);
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, parentId: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), 404);
  });

  it('404 for a target in the trash, or a folder that is not there or not visible; 403 for a viewer', async () => {
    const folder = await freshFolder();
    const trashed = await freshFolder();
    ensure(await ctx.owner.api.delete(`/folder/${trashed.id}`), 204);
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, parentId: trashed.id }), 404);
    expectProblem(await ctx.owner.api.put('/folder', { id: trashed.id, name: 'back?' }), 404);
    expectProblem(await ctx.stranger.api.put('/folder', { id: folder.id, name: 'mine' }), 404);
    expectProblem(await ctx.viewer.api.put('/folder', { id: folder.id, name: 'mine' }), 403);
    expectProblem(await ctx.viewer.api.put('/folder', { id: folder.id, name: 'mine' }, { 'If-Match': '"9"' }), 403);
    expect(ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200).body.version).toBe(1);
  });

  it('412 for a stale If-Match or version', async () => {
    const folder = await freshFolder();
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, name: 'x' }, { 'If-Match': '"2"' }), 412);
    expectProblem(await ctx.owner.api.put('/folder', { id: folder.id, name: 'x', version: 2 }), 412);
    expect(ensure(await ctx.owner.api.get(`/folder/${folder.id}`), 200).body).toMatchObject({ name: folder.name, version: 1 });
  });

  it('moves a folder deep inside a moved subtree, before and after its places are refreshed', async () => {
    const top = await freshFolder();
    const chain: Folder[] = [top];
    for (let i = 0; i < 6; i++) chain.push(await newFolder(ctx.owner.api, chain.at(-1)!.id, `n${i}`));
    const other = await freshFolder();
    const loose = await freshFolder();
    ensure(await ctx.owner.api.put('/folder', { id: top.id, parentId: other.id }), 200);
    // At once, whatever the worker got to: the paths below may still name the old place.
    ensure(await ctx.owner.api.put('/folder', { id: loose.id, parentId: chain.at(-1)!.id }), 200);
    expectProblem(await ctx.owner.api.put('/folder', { id: other.id, parentId: loose.id }), 409, problemOf('folder-cycle'));
    await settledAndSound();
    expectProblem(await ctx.owner.api.put('/folder', { id: other.id, parentId: chain[3]!.id }), 409, problemOf('folder-cycle'));
  });
});

describe('racing moves', () => {
  const ROUNDS = 20;
  it(`A into B while B moves into A: at most one succeeds, and the tree never holds a cycle (${ROUNDS} rounds)`, async () => {
    const outcomes: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const parent = await freshFolder(ctx.owner.api, ctx.repo.rootFolderId, `race ${round}`);
      const [a, b] = await Promise.all([newFolder(ctx.owner.api, parent.id, 'A'), newFolder(ctx.owner.api, parent.id, 'B')]);
      // Every other round one side is a level deeper, so the chains differ in length.
      const deeper = round % 2 === 1 ? await newFolder(ctx.owner.api, b.id, 'B2') : b;
      const [ab, ba] = await Promise.all([
        ctx.owner.api.put('/folder', { id: a.id, parentId: deeper.id }),
        ctx.editor.api.put('/folder', { id: b.id, parentId: a.id }),
      ]);
      const statuses = [ab.status, ba.status];
      outcomes[statuses.join('/')] = (outcomes[statuses.join('/')] ?? 0) + 1;
      expect(
        statuses.filter((s) => s === 200),
        `round ${round}: ${ab.text} / ${ba.text}`,
      ).toHaveLength(1);
      for (const res of [ab, ba]) if (res.status !== 200) expectProblem(res, 409, problemOf('folder-cycle'));
      // As stored: one of them under the other, never each under the other.
      const [storedA, storedB] = await Promise.all([ctx.owner.api.get(`/folder/${a.id}`), ctx.owner.api.get(`/folder/${b.id}`)]);
      expect(storedA.body.parentId === deeper.id && storedB.body.parentId === a.id, `round ${round}: a cycle`).toBe(false);
    }
    console.log(`[stats] racing moves: ${JSON.stringify(outcomes)}`);
    // Then the whole table: no cycle, no entry without its folder or the reverse.
    await settledAndSound();
  }, 360_000);
});
