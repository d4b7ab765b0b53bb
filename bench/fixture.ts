/**
 * The data every scenario works on, made through the API (as a user would) except where
 * volume calls for seeding straight into the table (seed.ts).
 */
import { strict as assert } from 'node:assert';
import type { ServiceClient } from './run';

export const CONTENT_BYTES = 1024;
export const oneKb = (fill = 'x') => fill.repeat(CONTENT_BYTES);

export interface Api {
  url: string;
  token: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

export function api(url: string, token: string): Api {
  return {
    url,
    token,
    async call(method, path, body) {
      const response = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}

async function expectStatus(api: Api, status: number, method: string, path: string, body?: unknown) {
  const response = await api.call(method, path, body);
  assert.equal(response.status, status, `${method} ${path}: ${JSON.stringify(response.body)}`);
  return response.body;
}

export interface Fixture {
  api: Api;
  userId: string;
  repositoryId: string;
  rootFolderId: string;
  /** Holds `document` and 100 seeded documents: the list read by the throughput runs. */
  folderId: string;
  /** Ten sub folders, for GET /folder/{id}/folders. */
  parentId: string;
  /** A 1 KB document. */
  documentId: string;
  /** Where writes go: POST creates here, PUT and DELETE take seeded documents from here. */
  writeFolderId: string;
  /** More documents for PUT and DELETE, `count` at a time, seeded straight into the table. */
  seedWritable(count: number): Promise<string[]>;
}

export async function makeFixture(service: ServiceClient, url: string): Promise<Fixture> {
  const userId = 'bench-user';
  const owner = api(url, await service.token(userId));
  for (const name of ['Archive', 'Zeta']) await expectStatus(owner, 201, 'POST', '/', { name, description: '' });
  const repository = await expectStatus(owner, 201, 'POST', '/', { name: 'Bench', description: 'Benchmark data' });
  const folder = await expectStatus(owner, 201, 'POST', '/folder', { parentId: repository.rootFolderId, name: 'Read' });
  const parent = await expectStatus(owner, 201, 'POST', '/folder', { parentId: repository.rootFolderId, name: 'Parent' });
  for (let i = 0; i < 10; i++) await expectStatus(owner, 201, 'POST', '/folder', { parentId: parent.id, name: `Child ${i}` });
  const writes = await expectStatus(owner, 201, 'POST', '/folder', { parentId: repository.rootFolderId, name: 'Write' });
  const document = await expectStatus(owner, 201, 'POST', '/document', {
    folderId: folder.id,
    name: 'one-kb.txt',
    content: oneKb(),
    contentType: 'text/plain',
  });
  const context = { userId, repositoryId: repository.id, contentBytes: CONTENT_BYTES };
  await service.seed({ ...context, folderId: folder.id, count: 99, prefix: 'listed-' }, false);
  let batch = 0;
  return {
    api: owner,
    userId,
    repositoryId: repository.id,
    rootFolderId: repository.rootFolderId,
    folderId: folder.id,
    parentId: parent.id,
    documentId: document.id,
    writeFolderId: writes.id,
    seedWritable: (count) => service.seed({ ...context, folderId: writes.id, count, prefix: `w${batch++}-` }, true),
  };
}
