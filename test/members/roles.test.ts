/**
 * Roles (docs/api.md): a viewer reads but gets 403 for every write, and nothing changes; an
 * editor writes. Roles are given through the API (PUT /{id}/members/{userId}); every endpoint
 * by every role is in role-matrix.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Api,
  type Document,
  expectProblem,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  type Repository,
  setRole,
} from '#test/support/http';
import { startTestService } from '#test/support/service';

let svc: Awaited<ReturnType<typeof startTestService>>;
let owner: Api;
let viewer: Api;
let editor: Api;
let repository: Repository;
let document: Document;

beforeAll(async () => {
  svc = await startTestService();
  owner = (await newUser(svc)).api;
  const viewerUser = await newUser(svc);
  const editorUser = await newUser(svc);
  viewer = viewerUser.api;
  editor = editorUser.api;
  repository = await newRepository(owner, { name: 'Shared' });
  document = await newDocument(owner, repository.rootFolderId, { name: 'shared.txt', content: 'original' });
  await setRole(owner, repository.id, viewerUser.sub, 'viewer');
  await setRole(owner, repository.id, editorUser.sub, 'editor');
});
afterAll(() => svc?.stop());

describe('a viewer', () => {
  it('reads the repository, its folders and documents, and sees its role', async () => {
    expect((await viewer.get(`/${repository.id}`)).body).toMatchObject({ id: repository.id, role: 'viewer' });
    expect((await viewer.get('/')).body.items).toEqual([expect.objectContaining({ id: repository.id, role: 'viewer' })]);
    expect((await viewer.get(`/${repository.id}/folder`)).status).toBe(200);
    expect((await viewer.get(`/folder/${repository.rootFolderId}/documents`)).body.items).toHaveLength(1);
    expect((await viewer.get(`/document/${document.id}`)).body.content).toBe('original');
  });

  it('gets 403 for every write, before any precondition, and changes nothing', async () => {
    expectProblem(await viewer.post('/folder', { parentId: repository.rootFolderId, name: 'nope' }), 403);
    expectProblem(await viewer.post('/document', { folderId: repository.rootFolderId, name: 'nope.txt' }), 403);
    expectProblem(await viewer.put('/document', { id: document.id, content: 'changed' }), 403);
    expectProblem(await viewer.put('/document', { id: document.id, content: 'changed' }, { 'If-Match': '"99"' }), 403);
    expectProblem(await viewer.delete(`/document/${document.id}`), 403);

    const after = await owner.get(`/document/${document.id}`);
    expect(after.body).toMatchObject({ content: 'original', version: 1 });
    expect((await owner.get(`/folder/${repository.rootFolderId}/folders`)).body.items).toEqual([]);
    expect((await owner.get(`/folder/${repository.rootFolderId}/documents`)).body.items).toHaveLength(1);
  });
});

describe('an editor', () => {
  it('creates, updates and deletes folders and documents', async () => {
    const folder = await newFolder(editor, repository.rootFolderId, 'Editor’s');
    expect(folder.createdBy).not.toBe(document.createdBy);
    const created = await newDocument(editor, folder.id, { name: 'draft.md', content: 'draft' });
    const updated = await editor.put('/document', { id: created.id, content: 'final' }, { 'If-Match': '"1"' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, updatedBy: created.createdBy });
    expect((await editor.delete(`/document/${created.id}`)).status).toBe(204);
    expect((await owner.get(`/document/${created.id}`)).status).toBe(404);
  });
});
