/**
 * Every endpoint the bench measures, one entry each: the least it could do (its round trips, and
 * the item kinds of bench/recorder.ts it cannot avoid reading and writing: why each is needed,
 * docs/data-model.md) and what its calls change. Its request is its handler module's example
 * (`operation.example`, lib/examples.ts) on the bench's scene, answered with the example's status;
 * an entry gives its own request only for a variant, or where the bench wants a 1 KB body. The
 * endpoints of the throughput table also give their store call: the same work made directly,
 * without HTTP, JWT, middy or validation (the baseline). Every scenario reads this list.
 */
import type { ExampleRequest, Scene } from '#core/http/operation';
import { createDocument, getDocument, updateDocument } from '#core/items/document';
import { getFolder, getRootFolder, listDocuments, listFolders } from '#core/items/folder';
import { aclBucket } from '#core/items/keys';
import { getRepository, listRepositories } from '#core/items/repository';
import { DEFAULT_PAGE_SIZE } from '#core/requests';
import { trashDocument } from '#core/use-cases/trash';
import { routes } from '#functions/routes';
import { exampleCall, exampleStatus } from '#lib/examples';
import { loadOperations } from '#lib/openapi/document';
import { type Fixture, LINK_PASSWORD, oneKb, type TargetKind } from './fixture';
import type { Request } from './load';

/** The `n`th call of a run; `target` is made for it (fixture.ts: makeTargets) when the endpoint names its `targets`. */
export interface Call {
  n: number;
  target: string;
}

export interface Endpoint {
  /** `METHOD /route`, plus a variant in parentheses when a route is measured twice. */
  name: string;
  minimum: { roundTrips: number; reads: string[]; writes: string[] };
  /** What the calls change, made before a run: one of `kind` for each call, or with `pool` that many, taken in turn. */
  targets?: { kind: TargetKind; pool?: number };
  /** Its own request, instead of the example's; its own status, instead of the example's. */
  request?: (scene: Scene, f: Fixture) => ExampleRequest;
  status?: number;
  /** Headers its requests send (a share link's `Link-Password`). */
  headers?: Record<string, string>;
  /** The baseline of the throughput table (only its endpoints have one). */
  store?: (f: Fixture, call: Call) => Promise<unknown>;
}

const least = (roundTrips: number, reads: string[], writes: string[] = []) => ({ roundTrips, reads, writes });
/** A change of a document: read it (its entry and name are known only then) with the caller's role, then the transaction. */
const change = (writes: string[], reads = ['document', 'role']) => least(2, reads, writes);
const page = { limit: DEFAULT_PAGE_SIZE };
const LISTED = ['folder', 'role', 'entry'];
const TRASH_READS = ['document', 'folder', 'repository', 'role'];
const MEMBER_WRITES = ['member', 'membership', 'profile', 'repository', 'role', 'role', 'change'];
/** What opening a share link reads at least: what its token names. */
const OPENED = ['link', 'document', 'repository'];
const RIGHT = { 'link-password': LINK_PASSWORD };
const newDocument = (folderId: string, unique: string) => ({
  folderId,
  name: `doc-${unique}.txt`,
  content: oneKb(),
  contentType: 'text/plain',
});

export const endpoints: Endpoint[] = [
  { name: 'GET /', minimum: least(2, ['membership', 'repository']), store: (f) => listRepositories(f.caller, page) },
  { name: 'POST /', minimum: least(1, [], ['repository', 'folder', 'role', 'member', 'membership', 'profile']) },
  { name: 'GET /{id}', minimum: least(1, ['repository', 'role']), store: (f) => getRepository(f.caller, f.repositoryId) },
  {
    // A rename (a user may be in at most 1,000 repositories: renamed in turn).
    name: 'PUT /{id}',
    minimum: least(2, ['repository', 'role', 'member'], ['repository', 'folder', 'membership', 'membership', 'member', 'role', 'change']),
    targets: { kind: 'repository', pool: 50 },
    request: (s) => ({ params: { id: s.repository }, body: { name: `Renamed ${s.unique}` } }),
  },
  {
    name: 'DELETE /{id}',
    minimum: least(2, ['repository', 'role', 'member'], ['repository', 'role', 'member', 'membership', 'profile', 'task']),
    targets: { kind: 'repository' },
  },
  { name: 'GET /{id}/folder', minimum: least(1, ['folder', 'role']), store: (f) => getRootFolder(f.caller, f.repositoryId) },
  { name: 'GET /folder/{id}', minimum: least(1, ['folder', 'role']), store: (f) => getFolder(f.caller, f.folderId) },
  { name: 'POST /folder', minimum: least(2, ['folder', 'role'], ['folder', 'role', 'folder', 'entry', 'entry', 'change']) },
  { name: 'GET /folder/{id}/folders', minimum: least(1, LISTED), store: (f) => listFolders(f.caller, f.folderId, page) },
  { name: 'GET /folder/{id}/documents', minimum: least(1, LISTED), store: (f) => listDocuments(f.caller, f.folderId, page) },
  {
    name: 'PUT /folder (rename)',
    minimum: least(2, ['folder', 'role'], ['folder', 'folder', 'role', 'entry', 'entry', 'entry', 'change']),
    targets: { kind: 'folder' },
  },
  {
    name: 'PUT /folder (move)',
    minimum: least(2, ['folder', 'role', 'folder', 'entry'], ['folder', 'folder', 'folder', 'role', 'entry', 'entry', 'entry', 'change']),
    targets: { kind: 'folder' },
    request: (s, f) => ({ body: { id: s.folder, parentId: f.moveTargetId } }),
  },
  {
    name: 'DELETE /folder/{id}',
    minimum: least(2, ['folder', 'role', 'entry'], ['folder', 'entry', 'folder', 'trash record', 'role', 'task', 'change']),
    targets: { kind: 'folder' },
  },
  {
    name: 'DELETE /folder/{id} (recursive, with content)',
    minimum: least(2, ['folder', 'role'], ['folder', 'entry', 'folder', 'trash record', 'role', 'task', 'change']),
    targets: { kind: 'folder with a document' },
    request: (s) => ({ params: { id: s.folder }, query: { recursive: 'true' } }),
  },
  { name: 'GET /document/{id}', minimum: least(1, ['document', 'role']), store: (f) => getDocument(f.caller, f.documentId) },
  // Small inline text: the document (its text in it) and the caller's role in one read.
  { name: 'GET /document/{id}/content', minimum: least(1, ['document', 'role']) },
  {
    // The bytes go to the bucket first (not a DynamoDB round trip).
    name: 'PUT /document/{id}/content',
    minimum: change(['document', 'revision', 'content', 'folder', 'role', 'entry', 'usage', 'change'], ['document', 'role', 'usage']),
    targets: { kind: 'document' },
    request: (s) => ({ params: { id: s.document }, raw: { body: oneKb('z'), contentType: 'application/octet-stream' } }),
  },
  // The document names its folder, the folder its ancestors (its path): each read needs the one before.
  { name: 'GET /document/{id}/path', minimum: least(3, ['document', 'role', 'folder', 'folder']) },
  {
    name: 'POST /document',
    // Its text is in the document item: no content item; the document item is its current revision: no revision item.
    minimum: least(1, [], ['folder', 'role', 'document', 'entry', 'entry', 'usage', 'change']),
    request: (s) => ({ body: newDocument(s.folder, s.unique) }),
    store: (f, { n }) => createDocument(f.caller, newDocument(f.writeFolderId, `${n}-${process.hrtime.bigint()}`)),
  },
  {
    name: 'PUT /document',
    // The new text in the document item; the text it replaces into the content item of the version that set it, and
    // that version's revision.
    minimum: change(['document', 'revision', 'content', 'folder', 'role', 'entry', 'usage', 'change']),
    targets: { kind: 'document', pool: 500 },
    request: (s) => ({ body: { id: s.document, content: oneKb('y') } }),
    store: (f, { target }) => updateDocument(f.caller, { id: target, content: oneKb('y') }, {}),
  },
  {
    name: 'PUT /document (rename)',
    minimum: change(['document', 'revision', 'folder', 'role', 'entry', 'entry', 'entry', 'usage', 'change']),
    targets: { kind: 'document' },
    request: (s) => ({ body: { id: s.document, name: `renamed-${s.unique}.txt` } }),
  },
  {
    name: 'DELETE /document/{id}',
    minimum: change(['document', 'entry', 'folder', 'trash record', 'role', 'change']),
    targets: { kind: 'document' },
    store: (f, { target }) => trashDocument(f.caller, target, {}),
  },
  // One read (the folder, the caller's role, the usage, the name's two entries), then the transaction that
  // records the upload and reserves its size (the bucket's CreateMultipartUpload only for more than one part).
  { name: 'POST /uploads', minimum: least(2, ['folder', 'role', 'usage', 'entry', 'entry'], ['upload', 'usage', 'role', 'folder']) },
  // The upload alone (its id names its repository); the bucket says which parts it holds.
  { name: 'GET /uploads/{id}', minimum: least(1, ['upload']), targets: { kind: 'upload', pool: 10 } },
  { name: 'POST /uploads/{id}/parts', minimum: least(1, ['upload']), targets: { kind: 'upload', pool: 10 } },
  {
    // The upload; its move to `verifying` before the parts are joined (so the Object Created event
    // that brings finds it taken care of); the version's transaction, which also completes it (the
    // document item is its current revision: no revision item).
    name: 'POST /uploads/{id}/complete',
    minimum: least(3, ['upload'], ['upload', 'upload', 'document', 'entry', 'change']),
    targets: { kind: 'sent upload' },
  },
  // The upload, then its cancel with the reservation given back; once its bytes are gone, it leaves the sweeper's index.
  { name: 'DELETE /uploads/{id}', minimum: least(3, ['upload'], ['upload', 'usage', 'upload']), targets: { kind: 'upload' } },
  { name: 'GET /document/{id}/revisions', minimum: least(1, ['document', 'role', 'revision']) },
  { name: 'GET /document/{id}/revisions/{version}', minimum: least(1, ['document', 'role', 'revision']) },
  { name: 'GET /document/{id}/revisions/{version}/content', minimum: least(1, ['document', 'role', 'revision', 'content']) },
  {
    name: 'POST /document/{id}/revisions/{version}/restore',
    minimum: change(['document', 'revision', 'folder', 'role', 'entry', 'change'], ['document', 'role', 'revision']),
    targets: { kind: 'document' },
  },
  {
    // A full page of the fixture's changes.
    name: 'GET /{id}/changes',
    minimum: least(1, ['repository', 'role', 'numbered change']),
    request: (s, f) => ({ params: { id: s.repository }, query: { cursor: f.feedCursor, limit: '50' } }),
  },
  // The caller's memberships and their repositories (as GET /), then one query of the search index (not a DynamoDB item).
  { name: 'GET /search', minimum: least(2, ['membership', 'repository']) },
  { name: 'GET /{id}/changes (latest)', minimum: least(1, ['repository', 'role', 'feed counter']) },
  // The PUT that adds call n's member runs before the PUT that finds it unchanged and the DELETE
  // that removes it (every scenario runs the list in order), so each leaves none behind.
  { name: 'GET /{id}/members', minimum: least(1, ['role', 'member']) },
  {
    name: 'PUT /{id}/members/{userId}',
    minimum: least(2, ['repository', 'role', 'member'], MEMBER_WRITES),
    request: (s) => ({ params: { id: s.repository, userId: s.member }, body: { role: 'viewer' } }),
  },
  {
    name: 'PUT /{id}/members/{userId} (unchanged)',
    minimum: least(1, ['repository', 'role', 'member']),
    request: (s) => ({ params: { id: s.repository, userId: s.member }, body: { role: 'viewer' } }),
    status: 200,
  },
  { name: 'DELETE /{id}/members/{userId}', minimum: least(2, ['repository', 'role', 'member'], MEMBER_WRITES) },
  {
    // Ten trashed documents: a page of the fixture's, whatever the runs before trashed.
    name: 'GET /{id}/trash',
    minimum: least(1, ['repository', 'role', 'trash record']),
    request: (s) => ({ params: { id: s.repository }, query: { limit: '10' } }),
  },
  // An item id names its repository but not its kind: the document and the folder of that id are both read.
  {
    name: 'POST /{id}/trash/{itemId}/restore',
    minimum: least(2, TRASH_READS, ['document', 'folder', 'entry', 'entry', 'trash record', 'role', 'change']),
    targets: { kind: 'trashed document' },
  },
  {
    name: 'POST /{id}/trash/{itemId}/restore (folder)',
    minimum: least(2, TRASH_READS, ['folder', 'folder', 'entry', 'entry', 'trash record', 'role', 'task', 'change']),
    targets: { kind: 'trashed folder' },
  },
  {
    name: 'DELETE /{id}/trash/{itemId}',
    minimum: least(2, TRASH_READS, ['document', 'task', 'change', 'trash record', 'role']),
    targets: { kind: 'trashed document' },
  },
  {
    name: 'DELETE /{id}/trash',
    minimum: least(1, [], ['repository', 'role', 'task']),
    targets: { kind: 'repository with a trashed document' },
  },
  // Share links: the public routes read the link, the document and the repository in one
  // BatchGetItem (the token names their keys). A link `opened` was opened less than a minute ago:
  // its `lastUsedAt` is not due. With a password, the check is claimed on the link before scrypt
  // runs; a wrong one keeps its claim, a right one gives it back (with `lastUsedAt` when due).
  {
    name: 'POST /document/{id}/links',
    minimum: least(2, ['document', 'role'], ['link', 'link entry', 'document', 'role', 'change']),
    request: (_s, f) => ({ params: { id: f.documentId }, body: {} }),
  },
  {
    name: 'POST /document/{id}/links (password)',
    minimum: least(2, ['document', 'role'], ['link', 'link entry', 'document', 'role', 'change']),
    request: (_s, f) => ({ params: { id: f.documentId }, body: { password: LINK_PASSWORD } }),
  },
  {
    name: 'GET /document/{id}/links',
    minimum: least(1, ['document', 'role', 'link']),
    request: (_s, f) => ({ params: { id: f.documentId } }),
  },
  { name: 'GET /{id}/links', minimum: least(2, ['role', 'link entry', 'link']) },
  {
    name: 'GET /links/{linkId}',
    minimum: least(2, ['link entry', 'role', 'link']),
    request: (_s, f) => ({ params: { linkId: f.linkId } }),
  },
  {
    name: 'DELETE /links/{linkId}',
    minimum: least(2, ['link entry', 'role'], ['link', 'link entry', 'role', 'change']),
    targets: { kind: 'link' },
  },
  { name: 'GET /s/{token}', minimum: least(1, OPENED), targets: { kind: 'opened link token', pool: 1 } },
  { name: 'GET /s/{token} (first in a minute)', minimum: least(2, OPENED, ['link']), targets: { kind: 'link token' } },
  {
    name: 'GET /s/{token} (password)',
    minimum: least(3, OPENED, ['link', 'link']),
    targets: { kind: 'opened password link token', pool: 1 },
    headers: RIGHT,
  },
  {
    name: 'GET /s/{token} (password, first in a minute)',
    minimum: least(3, OPENED, ['link', 'link']),
    targets: { kind: 'password link token' },
    headers: RIGHT,
  },
  {
    name: 'GET /s/{token} (wrong password)',
    minimum: least(2, OPENED, ['link']),
    targets: { kind: 'password link token' },
    headers: { 'link-password': `not ${LINK_PASSWORD}` },
    status: 401,
  },
  { name: 'GET /s/{token}/content', minimum: least(1, OPENED), targets: { kind: 'opened link token', pool: 1 } },
  {
    name: 'GET /s/{token}/content (password)',
    minimum: least(3, OPENED, ['link', 'link']),
    targets: { kind: 'opened password link token', pool: 1 },
    headers: RIGHT,
  },
  // Large text is in a content item whose key only the document item gives (its `contentVersion`).
  {
    name: 'GET /s/{token}/content (large text)',
    minimum: least(2, [...OPENED, 'content']),
    targets: { kind: 'opened large text link token', pool: 1 },
  },
  {
    name: 'GET /s/{token}/content (large text, password)',
    minimum: least(3, [...OPENED, 'content'], ['link', 'link']),
    targets: { kind: 'opened large text password link token', pool: 1 },
    headers: RIGHT,
  },
];

export function endpointNamed(name: string): Endpoint {
  const endpoint = endpoints.find((e) => e.name === name);
  if (!endpoint) throw new Error(`no endpoint ${name} in bench/endpoints.ts`);
  return endpoint;
}

const operations = await loadOperations();
const routeOf = ({ name }: Endpoint) => routes.find((route) => `${route.method} ${route.path}` === name.replace(/ \(.*\)$/, ''))!;
/** The scene's field a target fills. */
const FILLS: Record<TargetKind, keyof Scene> = {
  document: 'document',
  repository: 'repository',
  folder: 'folder',
  'folder with a document': 'folder',
  'trashed document': 'trashedDocument',
  'trashed folder': 'trashedDocument',
  upload: 'upload',
  'sent upload': 'sentUpload',
  'repository with a trashed document': 'repository',
  link: 'link',
  'link token': 'linkToken',
  'opened link token': 'linkToken',
  'password link token': 'linkToken',
  'opened password link token': 'linkToken',
  'opened large text link token': 'linkToken',
  'opened large text password link token': 'linkToken',
};

/** Call n's member: never in the caller's role bucket, so every member write touches two role items. */
function memberOf(f: Fixture, n: number): string {
  for (let k = 0; ; k++) {
    const userId = `bench-member-${n}${k === 0 ? '' : `-${k}`}`;
    if (aclBucket(userId) !== aclBucket(f.caller.userId)) return userId;
  }
}

/** The request of a call: reads name the fixture's folder (a document and 99 more, ten folders); writes land in the write folder. */
export function requestOf(endpoint: Endpoint, f: Fixture, call: Call): Request {
  const route = routeOf(endpoint);
  const scene: Scene = {
    repository: f.repositoryId,
    folder: route.method === 'GET' ? f.folderId : f.writeFolderId,
    document: f.documentId,
    trashedDocument: call.target,
    member: memberOf(f, call.n),
    upload: call.target,
    sentUpload: call.target,
    link: call.target,
    linkToken: call.target,
    unique: `${process.hrtime.bigint().toString(36)}-${call.n}`,
  };
  if (endpoint.targets) scene[FILLS[endpoint.targets.kind]] = call.target;
  const example = operations.get(route.name)!.example;
  const made = exampleCall(route, { request: (s) => endpoint.request?.(s, f) ?? example.request(s) }, scene);
  return endpoint.headers ? { ...made, headers: endpoint.headers } : made;
}

export const statusOf = (endpoint: Endpoint) => endpoint.status ?? exampleStatus(operations.get(routeOf(endpoint).name)!);

/** The calls of a run of `count`, what they change made first by `make` (a call past the last target made fails: an error). */
export async function callsOf(endpoint: Endpoint, count: number, make: (kind: TargetKind, count: number) => Promise<string[]>) {
  const { targets } = endpoint;
  const pool = targets === undefined ? [] : await make(targets.kind, targets.pool === undefined ? count : Math.min(count, targets.pool));
  return (n: number): Call => ({ n, target: pool[targets?.pool === undefined ? n : n % pool.length] ?? 'none-left' });
}
