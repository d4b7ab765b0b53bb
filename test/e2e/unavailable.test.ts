/**
 * The database going away under a running service: 503 problem+json with Retry-After,
 * nothing internal in the body. The test starts its own DynamoDB Local to stop, so the
 * shared one keeps serving the other test files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes';
import { type DynamoDbLocal, ensureTable, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { type LocalService, startLocalService } from '#lib/local/service';
import { type HttpResponse, newDocument, newFolder, newRepository, newUser } from '#test/support/http';

let database: DynamoDbLocal;
let service: LocalService;
let dataDir: string;

beforeAll(async () => {
  database = await startDynamoDbLocal({ port: 0 });
  await ensureTable(database.endpoint, 'unavailable');
  dataDir = await mkdtemp(join(tmpdir(), 'documents-unavailable-'));
  service = await startLocalService({ port: 0, dataDir, tableName: 'unavailable', dynamodbEndpoint: database.endpoint, log: () => {} });
});
afterAll(async () => {
  await service?.stop();
  await database?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('when DynamoDB is unavailable', () => {
  it('answers 503 with Retry-After on every route that reads or writes the table, revealing nothing internal', async () => {
    const { api } = await newUser(service);
    const repository = await newRepository(api);
    const folder = await newFolder(api, repository.rootFolderId);
    const document = await newDocument(api, folder.id);
    const [r, f, d] = [repository.id, folder.id, document.id];
    // A request each route would answer with success, were the database there.
    const requests: Record<string, () => Promise<HttpResponse>> = {
      ListRepositories: () => api.get('/'),
      CreateRepository: () => api.post('/', { name: 'later' }),
      GetRepository: () => api.get(`/${r}`),
      UpdateRepository: () => api.put(`/${r}`, { name: 'renamed' }),
      DeleteRepository: () => api.delete(`/${r}`),
      GetRootFolder: () => api.get(`/${r}/folder`),
      GetFolder: () => api.get(`/folder/${f}`),
      CreateFolder: () => api.post('/folder', { parentId: f, name: 'later' }),
      UpdateFolder: () => api.put('/folder', { id: f, name: 'renamed' }),
      DeleteFolder: () => api.delete(`/folder/${f}?recursive=true`),
      ListFolders: () => api.get(`/folder/${f}/folders`),
      ListDocuments: () => api.get(`/folder/${f}/documents`),
      GetDocument: () => api.get(`/document/${d}`),
      CreateDocument: () => api.post('/document', { folderId: f, name: 'later.txt' }),
      UpdateDocument: () => api.put('/document', { id: d, content: 'later' }),
      DeleteDocument: () => api.delete(`/document/${d}`),
      ListTrash: () => api.get(`/${r}/trash`),
      RestoreTrashItem: () => api.post(`/${r}/trash/${d}/restore`, {}),
      DeleteTrashItem: () => api.delete(`/${r}/trash/${d}`),
      EmptyTrash: () => api.delete(`/${r}/trash`),
      ListRevisions: () => api.get(`/document/${d}/revisions`),
      GetRevision: () => api.get(`/document/${d}/revisions/1`),
      RestoreRevision: () => api.request('POST', `/document/${d}/revisions/1/restore`),
      ListChanges: () => api.get(`/${r}/changes?cursor=latest`),
      ListMembers: () => api.get(`/${r}/members`),
      PutMember: () => api.put(`/${r}/members/someone`, { role: 'viewer' }),
      RemoveMember: () => api.delete(`/${r}/members/someone`),
      // With an Idempotency-Key the key's record is the first thing written.
      CreateRepositoryOnce: () => api.post('/', { name: 'later' }, { 'Idempotency-Key': 'unavailable-1' }),
    };
    const backed = routes.filter((route) => route.dynamodb.length > 0).map((route) => route.name);
    expect(Object.keys(requests).filter((name) => !name.endsWith('Once'))).toEqual(expect.arrayContaining(backed));
    expect(backed).toHaveLength(Object.keys(requests).length - 1);
    await database.stop();

    for (const send of Object.values(requests)) {
      const res = await send();
      expect(res.status, res.request).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ type: 'urn:problem-type:documents:unavailable', status: 503 });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.ts|DynamoDB/i);
    }
  });
});
