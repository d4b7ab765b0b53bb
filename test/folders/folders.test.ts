import { describe, expect, it } from 'vitest';
import { useServiceWithOwner } from '#test/support/fixture';
import {
  API_ID,
  byName,
  expectJson,
  expectProblem,
  expectRecentTime,
  type Folder,
  listAll,
  locationPath,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  uniqueName,
} from '#test/support/http';

const ctx = useServiceWithOwner();

/** A fresh, empty folder under the root, so each test starts from nothing. */
const freshFolder = () => newFolder(ctx.user.api, ctx.repo.rootFolderId);

describe('POST /folder', () => {
  it('creates a folder: 201, Location, every field', async () => {
    const name = uniqueName('Folder');
    const res = await ctx.user.api.post('/folder', { parentId: ctx.repo.rootFolderId, name });

    expectJson(res, 201);
    const folder = res.body as Folder;
    expect(folder).toEqual({
      // Folder ids are longer than SERVICE_ID: they carry their repository (functions/core/ids.ts).
      id: expect.stringMatching(API_ID),
      repositoryId: ctx.repo.id,
      parentId: ctx.repo.rootFolderId,
      name,
      version: 1,
      createdAt: expect.any(String),
      createdBy: ctx.user.sub,
      updatedAt: expect.any(String),
      updatedBy: ctx.user.sub,
    });
    expect(locationPath(res)).toBe(`/folder/${folder.id}`);
    expectRecentTime(folder.createdAt);
    expectRecentTime(folder.updatedAt);
  });

  it('creates nested folders', async () => {
    const parent = await freshFolder();
    const child = await newFolder(ctx.user.api, parent.id, 'child');
    const grandchild = await newFolder(ctx.user.api, child.id, 'grandchild');
    expect(child).toMatchObject({ parentId: parent.id, repositoryId: ctx.repo.id });
    expect(grandchild).toMatchObject({ parentId: child.id, repositoryId: ctx.repo.id });
  });

  it('stores the name trimmed and in NFC', async () => {
    const parent = await freshFolder();
    const res = await ctx.user.api.post('/folder', { parentId: parent.id, name: '\tcafe\u0301 ' });
    expectJson(res, 201);
    expect(res.body.name).toBe('caf\u00e9');
  });
});

describe('GET /folder/{id}', () => {
  it('returns the folder as created', async () => {
    const folder = await freshFolder();
    const res = await ctx.user.api.get(`/folder/${folder.id}`);
    expectJson(res, 200);
    expect(res.body).toEqual(folder);
  });
});

describe('GET /folder/{id}/folders', () => {
  it('lists direct sub folders only', async () => {
    const parent = await freshFolder();
    const a = await newFolder(ctx.user.api, parent.id, 'a');
    const b = await newFolder(ctx.user.api, parent.id, 'b');
    await newFolder(ctx.user.api, a.id, 'nested');
    await newDocument(ctx.user.api, parent.id, { name: 'a document' });

    const res = await ctx.user.api.get(`/folder/${parent.id}/folders`);
    expectJson(res, 200);
    expect(res.body.nextToken).toBeUndefined();
    expect(res.body.items.map((f: Folder) => f.id)).toEqual([a.id, b.id]);
    expect(res.body.items[1]).toEqual(b);
    expect(Object.keys(res.body.items[0]).sort()).toEqual(Object.keys(a).sort());
  });

  it('orders by name, case-insensitively', async () => {
    const parent = await freshFolder();
    for (const name of ['delta', 'Alpha', 'charlie', 'Bravo', 'alpine']) await newFolder(ctx.user.api, parent.id, name);
    expect(await namesIn(ctx.user.api, parent.id, 'folders')).toEqual(['Alpha', 'alpine', 'Bravo', 'charlie', 'delta']);
  });

  it('pages with limit and nextToken: no duplicates, no gaps, no token on the last page', async () => {
    const parent = await freshFolder();
    const created: Folder[] = [];
    for (let i = 0; i < 7; i++) created.push(await newFolder(ctx.user.api, parent.id, `${i % 2 ? 'F' : 'f'}older ${i}`));

    const { items, pages } = await listAll<Folder>(ctx.user.api, `/folder/${parent.id}/folders`, 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(items).toEqual(byName(created));
  });
});

describe('names within a folder', () => {
  it('rejects a folder whose name another folder has, in any case: 409', async () => {
    const parent = await freshFolder();
    await newFolder(ctx.user.api, parent.id, 'Reports');
    for (const name of ['Reports', 'reports', 'REPORTS', ' reports ']) {
      expectProblem(await ctx.user.api.post('/folder', { parentId: parent.id, name }), 409);
    }
    expect(await namesIn(ctx.user.api, parent.id, 'folders')).toEqual(['Reports']);
  });

  it('rejects a folder whose name a document has, in any case: 409', async () => {
    const parent = await freshFolder();
    await newDocument(ctx.user.api, parent.id, { name: 'Budget' });
    expectProblem(await ctx.user.api.post('/folder', { parentId: parent.id, name: 'budget' }), 409);
    expect(await namesIn(ctx.user.api, parent.id, 'folders')).toEqual([]);
  });

  it('rejects a document whose name a folder has, in any case: 409', async () => {
    const parent = await freshFolder();
    await newFolder(ctx.user.api, parent.id, 'Plans');
    expectProblem(await ctx.user.api.post('/document', { folderId: parent.id, name: 'PLANS' }), 409);
    expect(await namesIn(ctx.user.api, parent.id, 'documents')).toEqual([]);
  });

  it('compares names in NFC: composed and decomposed accents clash', async () => {
    const parent = await freshFolder();
    await newFolder(ctx.user.api, parent.id, 'caf\u00e9'); // é as one code point
    expectProblem(await ctx.user.api.post('/folder', { parentId: parent.id, name: 'cafe\u0301' }), 409); // e + combining acute
    expectProblem(await ctx.user.api.post('/folder', { parentId: parent.id, name: 'CAFE\u0301' }), 409);
    expectProblem(await ctx.user.api.post('/document', { folderId: parent.id, name: 'CAF\u00c9' }), 409);
    expect(await namesIn(ctx.user.api, parent.id, 'folders')).toEqual(['caf\u00e9']);
  });

  it('does not confuse names that only look alike without normalisation', async () => {
    const parent = await freshFolder();
    await newFolder(ctx.user.api, parent.id, 'cafe');
    await newFolder(ctx.user.api, parent.id, 'caf\u00e9');
    expect(await namesIn(ctx.user.api, parent.id, 'folders')).toHaveLength(2);
  });

  it('allows the same name in different folders and repositories', async () => {
    const one = await freshFolder();
    const two = await freshFolder();
    const other = await newRepository(ctx.user.api);
    await newFolder(ctx.user.api, one.id, 'Shared');
    await newFolder(ctx.user.api, two.id, 'Shared');
    await newFolder(ctx.user.api, other.rootFolderId, 'Shared');
    const nested = await newFolder(ctx.user.api, one.id, 'inner');
    await newFolder(ctx.user.api, nested.id, 'Shared');
    expect(await namesIn(ctx.user.api, two.id, 'folders')).toEqual(['Shared']);
  });

  it('allows a folder named like its parent or its repository', async () => {
    const parent = await newFolder(ctx.user.api, ctx.repo.rootFolderId, uniqueName('Parent'));
    await newFolder(ctx.user.api, parent.id, parent.name);
    await newFolder(ctx.user.api, ctx.repo.rootFolderId, ctx.repo.name);
  });
});
