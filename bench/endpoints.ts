/**
 * Every endpoint the bench measures, one entry each: its HTTP request; the same work as a direct
 * store call (the baseline: no HTTP, JWT, middy or validation); the status it must answer; the
 * least it could do (the round trips, and the item kinds of bench/recorder.ts it cannot avoid
 * reading and writing: why each is needed, docs/data-model.md). Every scenario reads this list.
 */

import { readChanges } from '#core/items/change';
import { createDocument, getDocument, updateDocument } from '#core/items/document';
import { createFolder, getFolder, getRootFolder, listDocuments, listFolders } from '#core/items/folder';
import { aclBucket } from '#core/items/keys';
import { listMembers, putMember, removeMember } from '#core/items/member';
import { createRepository, deleteRepository, getRepository, listRepositories, updateRepository } from '#core/items/repository';
import { listTrash } from '#core/items/trash';
import { DEFAULT_PAGE_SIZE } from '#core/requests';
import { documentContent, putContent, revisionContent } from '#core/use-cases/content';
import { getDocumentPath } from '#core/use-cases/document-path';
import { completeUpload } from '#core/use-cases/finish-upload';
import { updateFolder } from '#core/use-cases/move-folder';
import { emptyTrash, purgeFromTrash } from '#core/use-cases/purge';
import { restoreFromTrash } from '#core/use-cases/restore';
import { getRevision, listRevisions, restoreRevision } from '#core/use-cases/revisions';
import { trashDocument, trashFolder } from '#core/use-cases/trash';
import { cancelUpload, getUpload, partUrls, startUpload } from '#core/use-cases/uploads';
import { type Fixture, oneKb, type TargetKind } from './fixture';
import type { Request } from './load';

/** The `n`th call of a run; `target` is made for it (fixture.ts: makeTargets) when the endpoint names its `targets`. */
export interface Call {
  n: number;
  target: string;
}

export interface Endpoint {
  /** `METHOD /route`, plus a variant in parentheses when a route is measured twice. */
  name: string;
  status: number;
  minimum: { roundTrips: number; reads: string[]; writes: string[] };
  /** Requests/s and latency against the direct store call, at 1 and 32 connections. */
  throughput?: boolean;
  /** What the calls change, made before a run: one of `kind` for each call, or with `pool` that many, taken in turn. */
  targets?: { kind: TargetKind; pool?: number };
  http(f: Fixture, call: Call): Request;
  store(f: Fixture, call: Call): Promise<unknown>;
}

type More = Pick<Endpoint, 'throughput' | 'targets'>;
const expect = (status: number, roundTrips: number, reads: string[], writes: string[] = [], more: More = {}) => ({
  status,
  minimum: { roundTrips, reads, writes },
  ...more,
});
/** A change of a document: read it (its entry and name are known only then) with the caller's role, then the transaction. */
const change = (status: number, writes: string[], more: More = {}, reads = ['document', 'role']) => expect(status, 2, reads, writes, more);
const get = (path: string): Request => ({ method: 'GET', path });
const post = (path: string, body?: unknown): Request => ({ method: 'POST', path, body });
const put = (path: string, body: unknown): Request => ({ method: 'PUT', path, body });
const del = (path: string): Request => ({ method: 'DELETE', path });
const unique = (n: number) => `${process.hrtime.bigint().toString(36)}-${n}`;
const page = { limit: DEFAULT_PAGE_SIZE };
const LISTED = ['folder', 'role', 'entry'];
const TRASH_READS = ['document', 'folder', 'repository', 'role'];
const MEMBER_WRITES = ['member', 'membership', 'profile', 'repository', 'role', 'role', 'change'];
const newDocument = (f: Fixture, n: number) => ({
  folderId: f.writeFolderId,
  name: `doc-${unique(n)}.txt`,
  content: oneKb(),
  contentType: 'text/plain',
});
/** Call n's member: never in the caller's role bucket, so every member write touches two role items. */
function memberOf(f: Fixture, n: number): string {
  for (let k = 0; ; k++) {
    const userId = `bench-member-${n}${k === 0 ? '' : `-${k}`}`;
    if (aclBucket(userId) !== aclBucket(f.caller.userId)) return userId;
  }
}

export const endpoints: Endpoint[] = [
  {
    name: 'GET /',
    ...expect(200, 2, ['membership', 'repository'], [], { throughput: true }),
    http: () => get('/'),
    store: (f) => listRepositories(f.caller, page),
  },
  {
    name: 'POST /',
    ...expect(201, 1, [], ['repository', 'folder', 'role', 'member', 'membership', 'profile']),
    http: (_, { n }) => post('/', { name: `Repository ${unique(n)}`, description: '' }),
    store: (f, { n }) => createRepository(f.caller, { name: `Repository ${unique(n)}`, description: '' }),
  },
  {
    name: 'GET /{id}',
    ...expect(200, 1, ['repository', 'role'], [], { throughput: true }),
    http: (f) => get(`/${f.repositoryId}`),
    store: (f) => getRepository(f.caller, f.repositoryId),
  },
  // Renamed in turn: a user may be in at most 1,000 repositories.
  {
    name: 'PUT /{id}',
    ...expect(200, 2, ['repository', 'role', 'member'], ['repository', 'folder', 'membership', 'membership', 'member', 'role', 'change'], {
      targets: { kind: 'repository', pool: 50 },
    }),
    http: (_, { n, target }) => put(`/${target}`, { name: `Renamed ${unique(n)}` }),
    store: (f, { n, target }) => updateRepository(f.caller, target, { name: `Renamed ${unique(n)}` }, {}),
  },
  {
    name: 'DELETE /{id}',
    ...expect(204, 2, ['repository', 'role', 'member'], ['repository', 'role', 'member', 'membership', 'profile', 'task'], {
      targets: { kind: 'repository' },
    }),
    http: (_, { target }) => del(`/${target}`),
    store: (f, { target }) => deleteRepository(f.caller, target, {}),
  },
  {
    name: 'GET /{id}/folder',
    ...expect(200, 1, ['folder', 'role'], [], { throughput: true }),
    http: (f) => get(`/${f.repositoryId}/folder`),
    store: (f) => getRootFolder(f.caller, f.repositoryId),
  },
  {
    name: 'GET /folder/{id}',
    ...expect(200, 1, ['folder', 'role'], [], { throughput: true }),
    http: (f) => get(`/folder/${f.folderId}`),
    store: (f) => getFolder(f.caller, f.folderId),
  },
  {
    name: 'POST /folder',
    ...expect(201, 2, ['folder', 'role'], ['folder', 'role', 'folder', 'entry', 'entry', 'change']),
    http: (f, { n }) => post('/folder', { parentId: f.writeFolderId, name: `Folder ${unique(n)}` }),
    store: (f, { n }) => createFolder(f.caller, { parentId: f.writeFolderId, name: `Folder ${unique(n)}` }),
  },
  {
    name: 'GET /folder/{id}/folders',
    ...expect(200, 1, LISTED, [], { throughput: true }),
    http: (f) => get(`/folder/${f.parentId}/folders`),
    store: (f) => listFolders(f.caller, f.parentId, page),
  },
  {
    name: 'GET /folder/{id}/documents',
    ...expect(200, 1, LISTED, [], { throughput: true }),
    http: (f) => get(`/folder/${f.folderId}/documents?limit=50`),
    store: (f) => listDocuments(f.caller, f.folderId, { limit: 50 }),
  },
  {
    name: 'PUT /folder (rename)',
    ...expect(200, 2, ['folder', 'role'], ['folder', 'folder', 'role', 'entry', 'entry', 'entry', 'change'], {
      targets: { kind: 'folder' },
    }),
    http: (_, { n, target }) => put('/folder', { id: target, name: `Renamed ${unique(n)}` }),
    store: (f, { n, target }) => updateFolder(f.caller, { id: target, name: `Renamed ${unique(n)}` }, {}),
  },
  {
    name: 'PUT /folder (move)',
    ...expect(200, 2, ['folder', 'role', 'folder', 'entry'], ['folder', 'folder', 'folder', 'role', 'entry', 'entry', 'entry', 'change'], {
      targets: { kind: 'folder' },
    }),
    http: (f, { target }) => put('/folder', { id: target, parentId: f.moveTargetId }),
    store: (f, { target }) => updateFolder(f.caller, { id: target, parentId: f.moveTargetId }, {}),
  },
  {
    name: 'DELETE /folder/{id}',
    ...expect(204, 2, ['folder', 'role', 'entry'], ['folder', 'entry', 'folder', 'trash record', 'role', 'task', 'change'], {
      targets: { kind: 'folder' },
    }),
    http: (_, { target }) => del(`/folder/${target}`),
    store: (f, { target }) => trashFolder(f.caller, target, {}, { recursive: false }),
  },
  {
    name: 'DELETE /folder/{id} (recursive, with content)',
    ...expect(204, 2, ['folder', 'role'], ['folder', 'entry', 'folder', 'trash record', 'role', 'task', 'change'], {
      targets: { kind: 'folder with a document' },
    }),
    http: (_, { target }) => del(`/folder/${target}?recursive=true`),
    store: (f, { target }) => trashFolder(f.caller, target, {}, { recursive: true }),
  },
  {
    name: 'GET /document/{id}',
    ...expect(200, 1, ['document', 'role'], [], { throughput: true }),
    http: (f) => get(`/document/${f.documentId}`),
    store: (f) => getDocument(f.caller, f.documentId),
  },
  {
    // Inline text: the document, its current content and the caller's role in one read.
    name: 'GET /document/{id}/content',
    ...expect(200, 1, ['document', 'role', 'current content']),
    http: (f) => get(`/document/${f.documentId}/content`),
    store: (f) => documentContent(f.caller, f.documentId),
  },
  {
    // The bytes go to the bucket first (not a DynamoDB round trip); a JSON body is bytes like any other.
    name: 'PUT /document/{id}/content',
    ...change(200, ['document', 'revision', 'content', 'folder', 'role', 'entry', 'usage', 'change'], { targets: { kind: 'document' } }, [
      'document',
      'role',
      'usage',
    ]),
    http: (_, { target }) => put(`/document/${target}/content`, { bytes: oneKb('z') }),
    store: (f, { target }) => putContent(f.caller, target, Buffer.from(oneKb('z')), 'application/octet-stream', {}),
  },
  {
    // The document names its folder, the folder its ancestors (its path): each read needs the one before.
    name: 'GET /document/{id}/path',
    ...expect(200, 3, ['document', 'role', 'folder', 'folder'], []),
    http: (f) => get(`/document/${f.documentId}/path`),
    store: (f) => getDocumentPath(f.caller, f.documentId),
  },
  {
    name: 'POST /document',
    ...expect(201, 1, [], ['folder', 'role', 'document', 'revision', 'content', 'entry', 'entry', 'change'], { throughput: true }),
    http: (f, { n }) => post('/document', newDocument(f, n)),
    store: (f, { n }) => createDocument(f.caller, newDocument(f, n)),
  },
  {
    name: 'PUT /document',
    ...change(200, ['document', 'revision', 'content', 'folder', 'role', 'entry', 'change'], {
      throughput: true,
      targets: { kind: 'document', pool: 500 },
    }),
    http: (_, { target }) => put('/document', { id: target, content: oneKb('y') }),
    store: (f, { target }) => updateDocument(f.caller, { id: target, content: oneKb('y') }, {}),
  },
  {
    name: 'PUT /document (rename)',
    ...change(200, ['document', 'revision', 'folder', 'role', 'entry', 'entry', 'entry', 'change'], { targets: { kind: 'document' } }),
    http: (_, { n, target }) => put('/document', { id: target, name: `renamed-${unique(n)}.txt` }),
    store: (f, { n, target }) => updateDocument(f.caller, { id: target, name: `renamed-${unique(n)}.txt` }, {}),
  },
  {
    name: 'DELETE /document/{id}',
    ...change(204, ['document', 'entry', 'folder', 'trash record', 'role', 'change'], { throughput: true, targets: { kind: 'document' } }),
    http: (_, { target }) => del(`/document/${target}`),
    store: (f, { target }) => trashDocument(f.caller, target, {}),
  },
  {
    // One read (the folder, the caller's role, the usage, the name's two entries), then the transaction
    // that records the upload and reserves its size (the bucket's CreateMultipartUpload only for more than one part).
    name: 'POST /uploads',
    ...expect(201, 2, ['folder', 'role', 'usage', 'entry', 'entry'], ['upload', 'usage', 'role', 'folder']),
    http: (f, { n }) => post('/uploads', { folderId: f.writeFolderId, name: `upload-${unique(n)}`, size: 5 }),
    store: (f, { n }) => startUpload(f.caller, { folderId: f.writeFolderId, name: `upload-${unique(n)}`, size: 5 }),
  },
  {
    // The upload alone (its id names its repository); the bucket says which parts it holds.
    name: 'GET /uploads/{id}',
    ...expect(200, 1, ['upload'], [], { targets: { kind: 'upload', pool: 10 } }),
    http: (_, { target }) => get(`/uploads/${target}`),
    store: (f, { target }) => getUpload(f.caller, target),
  },
  {
    name: 'POST /uploads/{id}/parts',
    ...expect(200, 1, ['upload'], [], { targets: { kind: 'upload', pool: 10 } }),
    http: (_, { target }) => post(`/uploads/${target}/parts`, { numbers: [1] }),
    store: (f, { target }) => partUrls(f.caller, target, [1]),
  },
  {
    // The upload; its move to `verifying` before the parts are joined (so the Object Created event
    // that brings finds it taken care of); the version's transaction, which also completes it.
    name: 'POST /uploads/{id}/complete',
    ...expect(200, 3, ['upload'], ['upload', 'upload', 'document', 'revision', 'content', 'entry', 'change'], {
      targets: { kind: 'sent upload' },
    }),
    http: (_, { target }) => post(`/uploads/${target}/complete`),
    store: (f, { target }) => completeUpload(f.caller, target),
  },
  {
    name: 'DELETE /uploads/{id}',
    // The upload, then its cancel with the reservation given back; once its bytes are gone, it leaves the sweeper's index.
    ...expect(204, 3, ['upload'], ['upload', 'usage', 'upload'], { targets: { kind: 'upload' } }),
    http: (_, { target }) => del(`/uploads/${target}`),
    store: (f, { target }) => cancelUpload(f.caller, target),
  },
  {
    name: 'GET /document/{id}/revisions',
    ...expect(200, 1, ['document', 'role', 'revision']),
    http: (f) => get(`/document/${f.documentId}/revisions`),
    store: (f) => listRevisions(f.caller, f.documentId, page),
  },
  {
    name: 'GET /document/{id}/revisions/{version}',
    ...expect(200, 1, ['document', 'role', 'revision']),
    http: (f) => get(`/document/${f.documentId}/revisions/1`),
    store: (f) => getRevision(f.caller, f.documentId, 1),
  },
  {
    name: 'GET /document/{id}/revisions/{version}/content',
    ...expect(200, 1, ['document', 'role', 'revision', 'content']),
    http: (f) => get(`/document/${f.documentId}/revisions/1/content`),
    store: (f) => revisionContent(f.caller, f.documentId, 1),
  },
  {
    name: 'POST /document/{id}/revisions/{version}/restore',
    ...change(200, ['document', 'revision', 'folder', 'role', 'entry', 'change'], { targets: { kind: 'document' } }, [
      'document',
      'role',
      'revision',
    ]),
    http: (_, { target }) => post(`/document/${target}/revisions/1/restore`),
    store: (f, { target }) => restoreRevision(f.caller, target, 1, {}),
  },
  {
    name: 'GET /{id}/changes',
    ...expect(200, 1, ['repository', 'role', 'numbered change']),
    http: (f) => get(`/${f.repositoryId}/changes?cursor=${f.feedCursor}&limit=50`),
    store: (f) => readChanges(f.caller, f.repositoryId, { cursor: f.feedCursor, limit: 50 }),
  },
  {
    name: 'GET /{id}/changes (latest)',
    ...expect(200, 1, ['repository', 'role', 'feed counter']),
    http: (f) => get(`/${f.repositoryId}/changes?cursor=latest`),
    store: (f) => readChanges(f.caller, f.repositoryId, { cursor: 'latest', limit: 50 }),
  },
  // The PUT that adds call n's member runs before the PUT that finds it unchanged and the DELETE
  // that removes it (every scenario runs the list in order), so each leaves none behind.
  {
    name: 'GET /{id}/members',
    ...expect(200, 1, ['role', 'member']),
    http: (f) => get(`/${f.repositoryId}/members`),
    store: (f) => listMembers(f.caller, f.repositoryId, page),
  },
  {
    name: 'PUT /{id}/members/{userId}',
    ...expect(201, 2, ['repository', 'role', 'member'], MEMBER_WRITES),
    http: (f, { n }) => put(`/${f.repositoryId}/members/${memberOf(f, n)}`, { role: 'viewer' }),
    store: (f, { n }) => putMember(f.caller, f.repositoryId, memberOf(f, n), 'viewer'),
  },
  {
    name: 'PUT /{id}/members/{userId} (unchanged)',
    ...expect(200, 1, ['repository', 'role', 'member']),
    http: (f, { n }) => put(`/${f.repositoryId}/members/${memberOf(f, n)}`, { role: 'viewer' }),
    store: (f, { n }) => putMember(f.caller, f.repositoryId, memberOf(f, n), 'viewer'),
  },
  {
    name: 'DELETE /{id}/members/{userId}',
    ...expect(204, 2, ['repository', 'role', 'member'], MEMBER_WRITES),
    http: (f, { n }) => del(`/${f.repositoryId}/members/${memberOf(f, n)}`),
    store: (f, { n }) => removeMember(f.caller, f.repositoryId, memberOf(f, n)),
  },
  // An item id names its repository but not its kind: the document and the folder of that id are both read.
  {
    name: 'GET /{id}/trash',
    ...expect(200, 1, ['repository', 'role', 'trash record']),
    http: (f) => get(`/${f.repositoryId}/trash?limit=10`),
    store: (f) => listTrash(f.caller, f.repositoryId, { limit: 10 }),
  },
  {
    name: 'POST /{id}/trash/{itemId}/restore',
    ...expect(200, 2, TRASH_READS, ['document', 'folder', 'entry', 'entry', 'trash record', 'role', 'change'], {
      targets: { kind: 'trashed document' },
    }),
    http: (f, { target }) => post(`/${f.repositoryId}/trash/${target}/restore`),
    store: (f, { target }) => restoreFromTrash(f.caller, f.repositoryId, target, {}),
  },
  {
    name: 'POST /{id}/trash/{itemId}/restore (folder)',
    ...expect(200, 2, TRASH_READS, ['folder', 'folder', 'entry', 'entry', 'trash record', 'role', 'task', 'change'], {
      targets: { kind: 'trashed folder' },
    }),
    http: (f, { target }) => post(`/${f.repositoryId}/trash/${target}/restore`),
    store: (f, { target }) => restoreFromTrash(f.caller, f.repositoryId, target, {}),
  },
  {
    name: 'DELETE /{id}/trash/{itemId}',
    ...expect(204, 2, TRASH_READS, ['document', 'task', 'change', 'trash record', 'role'], { targets: { kind: 'trashed document' } }),
    http: (f, { target }) => del(`/${f.repositoryId}/trash/${target}`),
    store: (f, { target }) => purgeFromTrash(f.caller, f.repositoryId, target),
  },
  {
    name: 'DELETE /{id}/trash',
    ...expect(204, 1, [], ['repository', 'role', 'task'], { targets: { kind: 'repository with a trashed document' } }),
    http: (_, { target }) => del(`/${target}/trash`),
    store: (f, { target }) => emptyTrash(f.caller, target),
  },
];

export function endpointNamed(name: string): Endpoint {
  const endpoint = endpoints.find((e) => e.name === name);
  if (!endpoint) throw new Error(`no endpoint ${name} in bench/endpoints.ts`);
  return endpoint;
}

/** The calls of a run of `count`, what they change made first by `make` (a call past the last target made fails: an error). */
export async function callsOf(endpoint: Endpoint, count: number, make: (kind: TargetKind, count: number) => Promise<string[]>) {
  const { targets } = endpoint;
  const pool = targets === undefined ? [] : await make(targets.kind, targets.pool === undefined ? count : Math.min(count, targets.pool));
  return (n: number): Call => ({ n, target: pool[targets?.pool === undefined ? n : n % pool.length] ?? 'none-left' });
}
