/**
 * Every endpoint the bench measures, one entry each, and nothing about an endpoint anywhere
 * else: its HTTP request; the same work as a direct store call (the baseline: no HTTP, JWT,
 * middy or validation); the status it must answer; the least it could do (the items it cannot
 * avoid reading or writing, and the round trips that takes). Every scenario reads this list.
 */

import { readChanges } from '#core/items/change';
import { createDocument, getDocument, updateDocument } from '#core/items/document';
import { createFolder, getFolder, getRootFolder, listDocuments, listFolders } from '#core/items/folder';
import { aclBucket } from '#core/items/keys';
import { listMembers, putMember, removeMember } from '#core/items/member';
import { createRepository, deleteRepository, getRepository, listRepositories, updateRepository } from '#core/items/repository';
import { listTrash } from '#core/items/trash';
import { DEFAULT_PAGE_SIZE } from '#core/requests';
import { getDocumentPath } from '#core/use-cases/document-path';
import { updateFolder } from '#core/use-cases/move-folder';
import { emptyTrash, purgeFromTrash } from '#core/use-cases/purge';
import { restoreFromTrash } from '#core/use-cases/restore';
import { getRevision, listRevisions, restoreRevision } from '#core/use-cases/revisions';
import { trashDocument, trashFolder } from '#core/use-cases/trash';
import type { Fixture, TargetKind } from './fixture';
import { oneKb } from './seed';

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

/** The `n`th call of a run; `target` is made for it (fixture.ts: makeTargets) when the endpoint names its `targets`. */
export interface Call {
  n: number;
  target: string;
}

export interface Minimum {
  roundTrips: number;
  /** Item kinds (recorder.ts) that must be read (a list's page counts as one) and written. */
  reads: string[];
  writes: string[];
  why: string;
}

export interface Endpoint {
  /** `METHOD /route`, plus a variant in parentheses when a route is measured twice. */
  name: string;
  status: number;
  minimum: Minimum;
  /** Requests/s and latency against the direct store call, at 1 and 32 connections. */
  throughput?: boolean;
  /**
   * What the calls change, made before a run (fixture.ts: makeTargets): one of `kind` for each
   * call (it deletes, moves or renames it), or with `pool` that many, taken in turn.
   */
  targets?: { kind: TargetKind; pool?: number };
  http(f: Fixture, call: Call): Request;
  store(f: Fixture, call: Call): Promise<unknown>;
}

const reads = (kinds: string[], why: string): Minimum => ({ roundTrips: 1, reads: kinds, writes: [], why });
const creates = (kinds: string[], why: string): Minimum => ({ roundTrips: 1, reads: [], writes: kinds, why });
/** A document id names its repository (service-made ids), but not its folder entry nor its name. */
const change = (writes: string[], more = ''): Minimum => ({
  roundTrips: 2,
  reads: ['document', 'role'],
  writes,
  why: `a document id names neither its folder entry nor its name, so the entry to rewrite is known only after reading the document; the write re-checks the role it read${more}`,
});
const unique = (n: number) => `${process.hrtime.bigint().toString(36)}-${n}`;
const page = { limit: DEFAULT_PAGE_SIZE };
const LISTED = 'the folder (an empty page must still tell a missing folder), the caller’s role, the page';

export const endpoints: Endpoint[] = [
  {
    name: 'GET /',
    status: 200,
    minimum: {
      roundTrips: 2,
      reads: ['membership', 'repository'],
      writes: [],
      why: 'the page of memberships, then its repositories themselves: a deleted or renamed repository shows at once for every member (1,000 members cannot be updated in one transaction)',
    },
    throughput: true,
    http: () => ({ method: 'GET', path: '/' }),
    store: (f) => listRepositories(f.caller, page),
  },
  {
    name: 'POST /',
    status: 201,
    minimum: creates(
      ['repository', 'folder', 'role', 'member', 'membership', 'profile'],
      'repository, root folder, the owner’s role, member item and membership, and their repository count (the limit)',
    ),
    http: (_, { n }) => ({ method: 'POST', path: '/', body: { name: `Repository ${unique(n)}`, description: '' } }),
    store: (f, { n }) => createRepository(f.caller, { name: `Repository ${unique(n)}`, description: '' }),
  },
  {
    name: 'GET /{id}',
    status: 200,
    minimum: reads(['repository', 'role'], 'the repository and the caller’s role'),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/${f.repositoryId}` }),
    store: (f) => getRepository(f.caller, f.repositoryId),
  },
  {
    name: 'PUT /{id}',
    status: 200,
    minimum: {
      roundTrips: 2,
      reads: ['repository', 'role', 'member'],
      writes: ['repository', 'folder', 'membership', 'membership', 'member', 'role', 'change'],
      why: 'the repository (its version, name and members) and the caller’s member item (where their membership is listed: another owner’s rename moves it only in the background), read with the caller’s role; then the repository, its root folder (it carries the name), the caller’s membership moved to the new name (old removed, new put, their member item pointing at it), the role re-checked, the change. A repository of one member: no task moves other members’ memberships',
    },
    // Renamed in turn: a user may be in at most 1,000 repositories, and every call makes a new name.
    targets: { kind: 'repository', pool: 50 },
    http: (_, { n, target }) => ({ method: 'PUT', path: `/${target}`, body: { name: `Renamed ${unique(n)}` } }),
    store: (f, { n, target }) => updateRepository(f.caller, target, { name: `Renamed ${unique(n)}` }, {}),
  },
  {
    name: 'DELETE /{id}',
    status: 204,
    minimum: {
      roundTrips: 2,
      reads: ['repository', 'role', 'member'],
      writes: ['repository', 'role', 'member', 'membership', 'profile', 'task'],
      why: 'the repository (its version, and every role bucket it used) and the caller’s member item (their membership’s key), read with the caller’s role; then the repository and every role bucket removed (404 for every member at once), the caller’s member item, membership and repository count, and the task that reclaims the rest in the background',
    },
    targets: { kind: 'repository' },
    http: (_, { target }) => ({ method: 'DELETE', path: `/${target}` }),
    store: (f, { target }) => deleteRepository(f.caller, target, {}),
  },
  {
    name: 'GET /{id}/folder',
    status: 200,
    minimum: reads(['folder', 'role'], 'the root folder and the caller’s role'),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/${f.repositoryId}/folder` }),
    store: (f) => getRootFolder(f.caller, f.repositoryId),
  },
  {
    name: 'GET /folder/{id}',
    status: 200,
    minimum: reads(['folder', 'role'], 'the folder and the caller’s role'),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/folder/${f.folderId}` }),
    store: (f) => getFolder(f.caller, f.folderId),
  },
  {
    name: 'POST /folder',
    status: 201,
    minimum: {
      roundTrips: 2,
      reads: ['folder', 'role'],
      writes: ['folder', 'role', 'folder', 'entry', 'entry', 'change'],
      why: 'the new folder’s depth is its parent’s plus one, read first; then conditions on the parent and the role, the folder, its name entry, the other kind’s entry absent, the change',
    },
    http: (f, { n }) => ({ method: 'POST', path: '/folder', body: { parentId: f.writeFolderId, name: `Folder ${unique(n)}` } }),
    store: (f, { n }) => createFolder(f.caller, { parentId: f.writeFolderId, name: `Folder ${unique(n)}` }),
  },
  {
    name: 'GET /folder/{id}/folders',
    status: 200,
    minimum: reads(['folder', 'role', 'entry'], LISTED),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/folder/${f.parentId}/folders` }),
    store: (f) => listFolders(f.caller, f.parentId, page),
  },
  {
    name: 'GET /folder/{id}/documents',
    status: 200,
    minimum: reads(['folder', 'role', 'entry'], LISTED),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/folder/${f.folderId}/documents?limit=50` }),
    store: (f) => listDocuments(f.caller, f.folderId, { limit: 50 }),
  },
  {
    name: 'PUT /folder (rename)',
    status: 200,
    minimum: {
      roundTrips: 2,
      reads: ['folder', 'role'],
      writes: ['folder', 'folder', 'role', 'entry', 'entry', 'entry', 'change'],
      why: 'a folder id names neither its parent nor its name, so the entry to rewrite is known only after reading the folder; then the folder (as read), its parent still live (a folder whose parent is on its way to the trash goes with it), the role re-checked, the entry moved (old removed, new put, other kind absent), the change',
    },
    targets: { kind: 'folder' },
    http: (_, { n, target }) => ({ method: 'PUT', path: '/folder', body: { id: target, name: `Renamed ${unique(n)}` } }),
    store: (f, { n, target }) => updateFolder(f.caller, { id: target, name: `Renamed ${unique(n)}` }, {}),
  },
  {
    name: 'PUT /folder (move)',
    status: 200,
    minimum: {
      roundTrips: 2,
      reads: ['folder', 'role', 'folder', 'entry'],
      writes: ['folder', 'folder', 'folder', 'role', 'entry', 'entry', 'entry', 'change'],
      why: 'the folder and the target (its place: depth and path) with the caller’s role, beside whether the folder has a sub folder (the first `F#` entry: a refresh of the depths below, only if so); then the folder at its new place, the target as read and each of its ancestors below the root (here none: no cycle, even against a racing move), the folder it leaves still live, the role re-checked, the entry moved, the change. The root needs no check: it never moves and is never in the trash (the service checks it: 2 WRU more). What is below the folder is neither read nor written: the same cost for an empty folder and for 10,000 documents (results.md: Folder life cycle)',
    },
    targets: { kind: 'folder' },
    http: (f, { target }) => ({ method: 'PUT', path: '/folder', body: { id: target, parentId: f.moveTargetId } }),
    store: (f, { target }) => updateFolder(f.caller, { id: target, parentId: f.moveTargetId }, {}),
  },
  {
    name: 'DELETE /folder/{id}',
    status: 204,
    minimum: {
      roundTrips: 2,
      reads: ['folder', 'role', 'entry'],
      writes: ['folder', 'entry', 'folder', 'trash record', 'role', 'task', 'change'],
      why: 'a folder id names neither its parent nor its name, so its entry is known only after reading it; beside it, whether it holds anything (one entry: without `recursive` a folder that does is refused); then the folder marked, its entry out of its parent, the parent live, its trash record, the role re-checked, the task that takes along whatever was made in it meanwhile (nothing can assert a partition is empty), the change',
    },
    targets: { kind: 'folder' },
    http: (_, { target }) => ({ method: 'DELETE', path: `/folder/${target}` }),
    store: (f, { target }) => trashFolder(f.caller, target, {}, { recursive: false }),
  },
  {
    name: 'DELETE /folder/{id} (recursive, with content)',
    status: 204,
    minimum: {
      roundTrips: 2,
      reads: ['folder', 'role'],
      writes: ['folder', 'entry', 'folder', 'trash record', 'role', 'task', 'change'],
      why: 'as for an empty folder, without looking inside: what is below it (here one document) is marked by the task in the background, so the request costs the same whatever the folder holds',
    },
    targets: { kind: 'folder with a document' },
    http: (_, { target }) => ({ method: 'DELETE', path: `/folder/${target}?recursive=true` }),
    store: (f, { target }) => trashFolder(f.caller, target, {}, { recursive: true }),
  },
  {
    name: 'GET /document/{id}',
    status: 200,
    minimum: reads(['document', 'role'], 'the document and the caller’s role'),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/document/${f.documentId}` }),
    store: (f) => getDocument(f.caller, f.documentId),
  },
  {
    name: 'GET /document/{id}/path',
    status: 200,
    minimum: {
      roundTrips: 3,
      reads: ['document', 'role', 'folder', 'folder'],
      writes: [],
      why: 'the document names its folder, the folder its ancestors (its path): each read needs the one before; the ancestors are read side by side',
    },
    http: (f) => ({ method: 'GET', path: `/document/${f.documentId}/path` }),
    store: (f) => getDocumentPath(f.caller, f.documentId),
  },
  {
    name: 'POST /document',
    status: 201,
    minimum: creates(
      ['folder', 'role', 'document', 'revision', 'content', 'entry', 'entry', 'change'],
      'conditions on the folder and the caller’s role; the document, its first revision (and the content it keeps) and its name entry; the other kind’s name entry absent; the change',
    ),
    throughput: true,
    http: (f, { n }) => ({ method: 'POST', path: '/document', body: newDocument(f, n) }),
    store: (f, { n }) => createDocument(f.caller, newDocument(f, n)),
  },
  {
    name: 'PUT /document',
    status: 200,
    minimum: change(['document', 'revision', 'content', 'folder', 'role', 'entry', 'change'], '; the revision keeps the new content'),
    throughput: true,
    targets: { kind: 'document', pool: 500 },
    http: (_, { target }) => ({ method: 'PUT', path: '/document', body: { id: target, content: oneKb('y') } }),
    store: (f, { target }) => updateDocument(f.caller, { id: target, content: oneKb('y') }, {}),
  },
  {
    name: 'PUT /document (rename)',
    status: 200,
    minimum: change(
      ['document', 'revision', 'folder', 'role', 'entry', 'entry', 'entry', 'change'],
      '; the entry moves (old removed, new put, other kind absent)',
    ),
    targets: { kind: 'document' },
    http: (_, { n, target }) => ({ method: 'PUT', path: '/document', body: { id: target, name: `renamed-${unique(n)}.txt` } }),
    store: (f, { n, target }) => updateDocument(f.caller, { id: target, name: `renamed-${unique(n)}.txt` }, {}),
  },
  {
    name: 'DELETE /document/{id}',
    status: 204,
    minimum: change(['document', 'entry', 'folder', 'trash record', 'role', 'change'], '; to the trash: marked, unlisted, recorded'),
    throughput: true,
    targets: { kind: 'document' },
    http: (_, { target }) => ({ method: 'DELETE', path: `/document/${target}` }),
    store: (f, { target }) => trashDocument(f.caller, target, {}),
  },
  {
    name: 'GET /document/{id}/revisions',
    status: 200,
    minimum: reads(
      ['document', 'role', 'revision'],
      'the document (there, not in the trash, in which repository) and the caller’s role, beside the page of revisions: small items, their content is elsewhere',
    ),
    http: (f) => ({ method: 'GET', path: `/document/${f.documentId}/revisions` }),
    store: (f) => listRevisions(f.caller, f.documentId, page),
  },
  {
    name: 'GET /document/{id}/revisions/{version}',
    status: 200,
    minimum: reads(
      ['document', 'role', 'revision'],
      'the document and the caller’s role, and the revision; its content here is the document’s (the content item of the version is read with them, which saves a round trip for an older version)',
    ),
    http: (f) => ({ method: 'GET', path: `/document/${f.documentId}/revisions/1` }),
    store: (f) => getRevision(f.caller, f.documentId, 1),
  },
  {
    name: 'POST /document/{id}/revisions/{version}/restore',
    status: 200,
    minimum: {
      ...change(['document', 'revision', 'folder', 'role', 'entry', 'change']),
      reads: ['document', 'role', 'revision'],
      why: 'an update whose content is the revision’s, read with the document: here version 1 of a document at version 1, so no content item is written (an older content would be, once)',
    },
    targets: { kind: 'document' },
    http: (_, { target }) => ({ method: 'POST', path: `/document/${target}/revisions/1/restore` }),
    store: (f, { target }) => restoreRevision(f.caller, target, 1, {}),
  },
  {
    name: 'GET /{id}/changes',
    status: 200,
    minimum: reads(
      ['repository', 'role', 'numbered change'],
      'the repository and the caller’s role, beside a page of 50 changes (the feed counter, read with them, tells an empty page from an expired cursor)',
    ),
    http: (f) => ({ method: 'GET', path: `/${f.repositoryId}/changes?cursor=${f.feedCursor}&limit=50` }),
    store: (f) => readChanges(f.caller, f.repositoryId, { cursor: f.feedCursor, limit: 50 }),
  },
  {
    name: 'GET /{id}/changes (latest)',
    status: 200,
    minimum: reads(['repository', 'role', 'feed counter'], 'the repository, the caller’s role and the last number given'),
    http: (f) => ({ method: 'GET', path: `/${f.repositoryId}/changes?cursor=latest` }),
    store: (f) => readChanges(f.caller, f.repositoryId, { cursor: 'latest', limit: 50 }),
  },
  // Sharing. The PUT that adds call n's member runs before the PUT that finds it unchanged and
  // the DELETE that removes it (every scenario runs the list in order), so each leaves none behind.
  {
    name: 'GET /{id}/members',
    status: 200,
    minimum: reads(
      ['role', 'member'],
      'the caller’s role bucket (a role in it proves the repository exists: its delete takes the buckets with it) beside the page of members',
    ),
    http: (f) => ({ method: 'GET', path: `/${f.repositoryId}/members` }),
    store: (f) => listMembers(f.caller, f.repositoryId, page),
  },
  {
    name: 'PUT /{id}/members/{userId}',
    status: 201,
    minimum: {
      roundTrips: 2,
      reads: ['repository', 'role', 'member'],
      writes: ['member', 'membership', 'profile', 'repository', 'role', 'role', 'change'],
      why: 'whether the user is a member (201 or 200), and the repository’s name (their membership’s key) and counts, read with the caller’s role; then the member, their membership (GET /), their repository count (the limit), the repository’s counts and buckets, their role, the caller’s role re-checked, the change',
    },
    http: (f, { n }) => ({ method: 'PUT', path: `/${f.repositoryId}/members/${memberOf(f, n)}`, body: { role: 'viewer' } }),
    store: (f, { n }) => putMember(f.caller, f.repositoryId, memberOf(f, n), 'viewer'),
  },
  {
    name: 'PUT /{id}/members/{userId} (unchanged)',
    status: 200,
    minimum: reads(
      ['repository', 'role', 'member'],
      'the member and the caller’s role; the repository is read with them, since a PUT cannot know before reading that it adds no one (it saves adds a round trip); nothing is written',
    ),
    http: (f, { n }) => ({ method: 'PUT', path: `/${f.repositoryId}/members/${memberOf(f, n)}`, body: { role: 'viewer' } }),
    store: (f, { n }) => putMember(f.caller, f.repositoryId, memberOf(f, n), 'viewer'),
  },
  {
    name: 'DELETE /{id}/members/{userId}',
    status: 204,
    minimum: {
      roundTrips: 2,
      reads: ['repository', 'role', 'member'],
      writes: ['member', 'membership', 'profile', 'repository', 'role', 'role', 'change'],
      why: 'the member (their role, their membership’s key) and the repository’s owner count (409 for the last owner, without a failed write), read with the caller’s role; then the member and their membership removed, their repository count and the repository’s counts lowered, their role removed, the caller’s role re-checked, the change',
    },
    http: (f, { n }) => ({ method: 'DELETE', path: `/${f.repositoryId}/members/${memberOf(f, n)}` }),
    store: (f, { n }) => removeMember(f.caller, f.repositoryId, memberOf(f, n)),
  },
  // The trash. An item id names its repository but not its kind: the document and the folder of
  // that id are both read (the one that does not exist costs the minimum, 1 RRU).
  {
    name: 'GET /{id}/trash',
    status: 200,
    minimum: reads(
      ['repository', 'role', 'trash record'],
      'the repository (when its trash was last emptied: older records are no longer listed) and the caller’s role, beside a page of 10 trash records, newest first',
    ),
    http: (f) => ({ method: 'GET', path: `/${f.repositoryId}/trash?limit=10` }),
    store: (f) => listTrash(f.caller, f.repositoryId, { limit: 10 }),
  },
  {
    name: 'POST /{id}/trash/{itemId}/restore',
    status: 200,
    minimum: {
      roundTrips: 2,
      reads: ['document', 'folder', 'repository', 'role'],
      writes: ['document', 'folder', 'entry', 'entry', 'trash record', 'role', 'change'],
      why: 'the item (which deletion marked it, its trash record’s key, its folder and name), the repository (when the trash was emptied) and the caller’s role; then the mark cleared, its folder asserted still live (not read), its entry back (other kind absent), the record removed, the role re-checked, the change',
    },
    targets: { kind: 'trashed document' },
    http: (f, { target }) => ({ method: 'POST', path: `/${f.repositoryId}/trash/${target}/restore` }),
    store: (f, { target }) => restoreFromTrash(f.caller, f.repositoryId, target, {}),
  },
  {
    name: 'POST /{id}/trash/{itemId}/restore (folder)',
    status: 200,
    minimum: {
      roundTrips: 2,
      reads: ['document', 'folder', 'repository', 'role'],
      writes: ['folder', 'folder', 'entry', 'entry', 'trash record', 'role', 'task', 'change'],
      why: 'as for a document; the folder it goes back into is asserted still at the place it had (what is below keeps its depth), and a task unmarks what is below in the background (here one document): the same cost whatever the folder holds',
    },
    targets: { kind: 'trashed folder' },
    http: (f, { target }) => ({ method: 'POST', path: `/${f.repositoryId}/trash/${target}/restore` }),
    store: (f, { target }) => restoreFromTrash(f.caller, f.repositoryId, target, {}),
  },
  {
    name: 'DELETE /{id}/trash/{itemId}',
    status: 204,
    minimum: {
      roundTrips: 2,
      reads: ['document', 'folder', 'repository', 'role'],
      writes: ['document', 'task', 'change', 'trash record', 'role'],
      why: 'the item (its mark: this deletion, not yet purging), the repository and the caller’s role, as for a restore; then the item marked as being purged (it can never come back), the task that deletes it (its revisions and contents, or a folder’s subtree) in the background, the change, the record removed, the role re-checked',
    },
    targets: { kind: 'trashed document' },
    http: (f, { target }) => ({ method: 'DELETE', path: `/${f.repositoryId}/trash/${target}` }),
    store: (f, { target }) => purgeFromTrash(f.caller, f.repositoryId, target),
  },
  {
    name: 'DELETE /{id}/trash',
    status: 204,
    minimum: creates(
      ['repository', 'role', 'task'],
      'no read: the moment goes on the repository (the trash lists nothing deleted before it from then on), the role is checked in the transaction, and a task purges every item deleted up to then in the background (here one document): the same cost whatever the trash holds',
    ),
    targets: { kind: 'repository with a trashed document' },
    http: (_, { target }) => ({ method: 'DELETE', path: `/${target}/trash` }),
    store: (f, { target }) => emptyTrash(f.caller, target),
  },
];

/** Call n's member: never in the caller's role bucket, so every member write touches two role items. */
function memberOf(f: Fixture, n: number): string {
  for (let k = 0; ; k++) {
    const userId = `bench-member-${n}${k === 0 ? '' : `-${k}`}`;
    if (aclBucket(userId) !== aclBucket(f.caller.userId)) return userId;
  }
}

const newDocument = (f: Fixture, n: number) => ({
  folderId: f.writeFolderId,
  name: `doc-${unique(n)}.txt`,
  content: oneKb(),
  contentType: 'text/plain',
});

export function endpointNamed(name: string): Endpoint {
  const endpoint = endpoints.find((e) => e.name === name);
  if (!endpoint) throw new Error(`no endpoint ${name} in bench/endpoints.ts`);
  return endpoint;
}

/**
 * The calls of a run of `count`, with what they change made first (by `make`, in the service
 * process: fixture.ts makeTargets): a call past the last target made fails, and counts as an error.
 */
export async function callsOf(endpoint: Endpoint, count: number, make: (kind: TargetKind, count: number) => Promise<string[]>) {
  const { targets } = endpoint;
  const pool = targets === undefined ? [] : await make(targets.kind, targets.pool === undefined ? count : Math.min(count, targets.pool));
  return (n: number): Call => ({ n, target: pool[targets?.pool === undefined ? n : n % pool.length] ?? 'none-left' });
}
