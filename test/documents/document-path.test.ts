/**
 * A document's folder path (docs/api.md: Get a document's folder path): the folders from the root
 * down to the document's folder, root first, right after moves too; 404 for what is not visible.
 */
import { describe, expect, it } from 'vitest';
import { useServiceWithRoles } from '#test/support/fixture';
import { type Api, ensure, expectProblem, expectValidationError, type Folder, newDocument, newFolder } from '#test/support/http';

const ctx = useServiceWithRoles();

const pathOf = async (api: Api, documentId: string) => {
  const res = ensure(await api.get(`/document/${documentId}/path`), 200);
  return (res.body.items as Folder[]).map((folder) => folder.id);
};

describe('GET /document/{id}/path', () => {
  it('is the root folder alone for a document in the root folder, with the whole folder', async () => {
    const document = await newDocument(ctx.owner.api, ctx.repo.rootFolderId);
    const res = ensure(await ctx.viewer.api.get(`/document/${document.id}/path`), 200);
    expect(res.body.items).toEqual([ensure(await ctx.owner.api.get(`/folder/${ctx.repo.rootFolderId}`), 200).body]);
  });

  it('lists the folders from the root down, root first', async () => {
    const a = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const b = await newFolder(ctx.owner.api, a.id);
    const c = await newFolder(ctx.owner.api, b.id);
    const document = await newDocument(ctx.owner.api, c.id);
    expect(await pathOf(ctx.viewer.api, document.id)).toEqual([ctx.repo.rootFolderId, a.id, b.id, c.id]);
  });

  it('is the new path at once after a folder above the document moves, and after the document moves', async () => {
    const a = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const b = await newFolder(ctx.owner.api, a.id);
    const target = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const document = await newDocument(ctx.owner.api, b.id);
    ensure(await ctx.owner.api.put('/folder', { id: a.id, parentId: target.id }), 200);
    expect(await pathOf(ctx.owner.api, document.id)).toEqual([ctx.repo.rootFolderId, target.id, a.id, b.id]);
    ensure(await ctx.owner.api.put('/document', { id: document.id, folderId: target.id }), 200);
    expect(await pathOf(ctx.owner.api, document.id)).toEqual([ctx.repo.rootFolderId, target.id]);
  });

  it('is 404 for a document in the trash, under a folder in the trash, or to a non-member', async () => {
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const trashed = await newDocument(ctx.owner.api, folder.id);
    ensure(await ctx.owner.api.delete(`/document/${trashed.id}`), 204);
    expectProblem(await ctx.owner.api.get(`/document/${trashed.id}/path`), 404);

    const below = await newDocument(ctx.owner.api, folder.id);
    expectProblem(await ctx.stranger.api.get(`/document/${below.id}/path`), 404);
    ensure(await ctx.owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
    expectProblem(await ctx.owner.api.get(`/document/${below.id}/path`), 404);
  });

  it('is 400 for a malformed id', async () => {
    expectValidationError(await ctx.owner.api.get('/document/not-an-id!/path'), 'id');
  });
});
