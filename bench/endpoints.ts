/**
 * Every endpoint the bench measures, one entry each, and nothing about an endpoint anywhere
 * else: its HTTP request; the same work as a direct store call (the baseline: no HTTP, JWT,
 * middy or validation); the status it must answer; the least it could do (the items it cannot
 * avoid reading or writing, and the round trips that takes). Every scenario reads this list.
 */
import { DEFAULT_PAGE_SIZE } from '#core/schemas';
import { createDocument, getDocument, updateDocument } from '#core/store/documents';
import { createFolder, getFolder, getRootFolder, listDocuments, listFolders } from '#core/store/folders';
import { createRepository, getRepository, listRepositories } from '#core/store/repositories';
import { trashDocument } from '#core/store/trash';
import type { Fixture } from './fixture';
import { oneKb } from './seed';

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
}

/** The `n`th call of a run; `document` is seeded for it when the endpoint asks for `documents`. */
export interface Call {
  n: number;
  document: string;
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
  /** Documents seeded in the write folder: one per call (`'each'`: it deletes or renames it), or a pool of this many. */
  documents?: 'each' | number;
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
    name: 'GET /document/{id}',
    status: 200,
    minimum: reads(['document', 'role'], 'the document and the caller’s role'),
    throughput: true,
    http: (f) => ({ method: 'GET', path: `/document/${f.documentId}` }),
    store: (f) => getDocument(f.caller, f.documentId),
  },
  {
    name: 'POST /document',
    status: 201,
    minimum: creates(
      ['folder', 'role', 'document', 'revision', 'entry', 'entry', 'change'],
      'conditions on the folder and the caller’s role; the document, its first revision and its name entry; the other kind’s name entry absent; the change',
    ),
    throughput: true,
    http: (f, { n }) => ({ method: 'POST', path: '/document', body: newDocument(f, n) }),
    store: (f, { n }) => createDocument(f.caller, newDocument(f, n)),
  },
  {
    name: 'PUT /document',
    status: 200,
    minimum: change(['document', 'revision', 'folder', 'role', 'entry', 'change']),
    throughput: true,
    documents: 500,
    http: (_, { document }) => ({ method: 'PUT', path: '/document', body: { id: document, content: oneKb('y') } }),
    store: (f, { document }) => updateDocument(f.caller, { id: document, content: oneKb('y') }, {}),
  },
  {
    name: 'PUT /document (rename)',
    status: 200,
    minimum: change(
      ['document', 'revision', 'folder', 'role', 'entry', 'entry', 'entry', 'change'],
      '; the entry moves (old removed, new put, other kind absent)',
    ),
    documents: 'each',
    http: (_, { n, document }) => ({ method: 'PUT', path: '/document', body: { id: document, name: `renamed-${unique(n)}.txt` } }),
    store: (f, { n, document }) => updateDocument(f.caller, { id: document, name: `renamed-${unique(n)}.txt` }, {}),
  },
  {
    name: 'DELETE /document/{id}',
    status: 204,
    minimum: change(['document', 'entry', 'folder', 'trash record', 'role', 'change'], '; to the trash: marked, unlisted, recorded'),
    throughput: true,
    documents: 'each',
    http: (_, { document }) => ({ method: 'DELETE', path: `/document/${document}` }),
    store: (f, { document }) => trashDocument(f.caller, document, {}),
  },
];

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
 * The calls of a run of `count`, with the documents they change seeded first (by `seed`, in the
 * write folder): a call past the last seeded document fails, and counts as an error.
 */
export async function callsOf(endpoint: Endpoint, count: number, seed: (count: number) => Promise<string[]>) {
  const { documents } = endpoint;
  const pool = documents === undefined ? [] : await seed(documents === 'each' ? count : Math.min(count, documents));
  return (n: number): Call => ({ n, document: pool[documents === 'each' ? n : n % pool.length] ?? 'none-left' });
}
