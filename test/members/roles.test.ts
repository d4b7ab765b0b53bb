/**
 * Roles (docs/api.md): a viewer reads but gets 403 for every write, and nothing changes; an
 * editor writes. Roles are given through the API (PUT /{id}/members/{userId}); every endpoint
 * by every role is in role-matrix.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { useService } from '#test/support/fixture';
import { expectProblem, newDocument, newFolder, newRepository, newUser, setRole } from '#test/support/http';

const ctx = useService({
  seed: async (svc) => {
    const owner = (await newUser(svc)).api;
    const viewerUser = await newUser(svc);
    const editorUser = await newUser(svc);
    const repository = await newRepository(owner, { name: 'Shared' });
    const document = await newDocument(owner, repository.rootFolderId, { name: 'shared.txt', content: 'original' });
    await setRole(owner, repository.id, viewerUser.sub, 'viewer');
    await setRole(owner, repository.id, editorUser.sub, 'editor');
    return { owner, viewer: viewerUser.api, editor: editorUser.api, repository, document };
  },
});

describe('a viewer', () => {
  it('reads the repository, its folders and documents, and sees its role', async () => {
    expect((await ctx.viewer.get(`/${ctx.repository.id}`)).body).toMatchObject({ id: ctx.repository.id, role: 'viewer' });
    expect((await ctx.viewer.get('/')).body.items).toEqual([expect.objectContaining({ id: ctx.repository.id, role: 'viewer' })]);
    expect((await ctx.viewer.get(`/${ctx.repository.id}/folder`)).status).toBe(200);
    expect((await ctx.viewer.get(`/folder/${ctx.repository.rootFolderId}/documents`)).body.items).toHaveLength(1);
    expect((await ctx.viewer.get(`/document/${ctx.document.id}`)).body.content).toBe('original');
  });

  it('gets 403 for every write, before any precondition, and changes nothing', async () => {
    expectProblem(await ctx.viewer.post('/folder', { parentId: ctx.repository.rootFolderId, name: 'nope' }), 403);
    expectProblem(await ctx.viewer.post('/document', { folderId: ctx.repository.rootFolderId, name: 'nope.txt' }), 403);
    expectProblem(await ctx.viewer.put('/document', { id: ctx.document.id, content: 'changed' }), 403);
    expectProblem(await ctx.viewer.put('/document', { id: ctx.document.id, content: 'changed' }, { 'If-Match': '"99"' }), 403);
    expectProblem(await ctx.viewer.delete(`/document/${ctx.document.id}`), 403);

    const after = await ctx.owner.get(`/document/${ctx.document.id}`);
    expect(after.body).toMatchObject({ content: 'original', version: 1 });
    expect((await ctx.owner.get(`/folder/${ctx.repository.rootFolderId}/folders`)).body.items).toEqual([]);
    expect((await ctx.owner.get(`/folder/${ctx.repository.rootFolderId}/documents`)).body.items).toHaveLength(1);
  });
});

describe('an editor', () => {
  it('creates, updates and deletes folders and documents', async () => {
    const folder = await newFolder(ctx.editor, ctx.repository.rootFolderId, 'Editor’s');
    expect(folder.createdBy).not.toBe(ctx.document.createdBy);
    const created = await newDocument(ctx.editor, folder.id, { name: 'draft.md', content: 'draft' });
    const updated = await ctx.editor.put('/document', { id: created.id, content: 'final' }, { 'If-Match': '"1"' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, updatedBy: created.createdBy });
    expect((await ctx.editor.delete(`/document/${created.id}`)).status).toBe(204);
    expect((await ctx.owner.get(`/document/${created.id}`)).status).toBe(404);
  });
});
