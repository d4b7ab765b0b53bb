/**
 * Every endpoint the bench exercises: how to make its requests, the answer it must give, and
 * the least it could do — the items it cannot avoid reading or writing, and the round trips
 * that takes. Capacity, throughput and cost all read from this one list.
 */
import type { ItemKind } from '#core/store/keys';
import { type Fixture, oneKb } from './fixture';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export interface Request {
  path: string;
  body?: unknown;
}

export interface Minimum {
  roundTrips: number;
  /** Items that must be read (a list's page counts as one `entry`/`membership`) and written. */
  reads: ItemKind[];
  writes: ItemKind[];
  why: string;
}

export interface Endpoint {
  name: string;
  method: Method;
  status: number;
  minimum: Minimum;
  /** Measured for throughput against a baseline, and how the baseline makes the same requests. */
  baseline?: 'replay' | 'create' | 'update' | 'delete';
  /** Requests `n = 0, 1, …, count - 1`; writes get fresh names, or documents seeded for them. */
  requests(count: number): Promise<(n: number) => Request>;
}

const read = (reads: ItemKind[], why: string): Minimum => ({ roundTrips: 1, reads, writes: [], why });
const fixed = (request: Request) => async () => () => request;
const unique = () => `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Document ids can be client-chosen and say nothing about where a document is listed. */
const CHANGE_FLOOR =
  'a document id (possibly client-chosen) names neither its folder entry nor its repository, so the entry to rewrite and the role to check are known only after reading the document';

export function endpoints(f: Fixture): Endpoint[] {
  const writable = async (count: number) => {
    const ids = await f.seedWritable(count);
    return (n: number) => ids[n]!;
  };
  return [
    {
      name: 'GET /',
      method: 'GET',
      status: 200,
      minimum: read(['membership'], 'the page of memberships'),
      baseline: 'replay',
      requests: fixed({ path: '/' }),
    },
    {
      name: 'POST /',
      method: 'POST',
      status: 201,
      minimum: {
        roundTrips: 1,
        reads: [],
        writes: ['repository', 'folder', 'membership', 'access'],
        why: 'repository, root folder, membership and role, all new',
      },
      requests: async () => (n) => ({ path: '/', body: { name: `Repository ${unique()}-${n}`, description: '' } }),
    },
    {
      name: 'GET /{id}',
      method: 'GET',
      status: 200,
      minimum: read(['repository', 'access'], 'the repository and the caller’s role'),
      baseline: 'replay',
      requests: fixed({ path: `/${f.repositoryId}` }),
    },
    {
      name: 'GET /{id}/folder',
      method: 'GET',
      status: 200,
      minimum: read(['folder', 'access'], 'the root folder and the caller’s role'),
      baseline: 'replay',
      requests: fixed({ path: `/${f.repositoryId}/folder` }),
    },
    {
      name: 'GET /folder/{id}',
      method: 'GET',
      status: 200,
      minimum: read(['folder', 'access'], 'the folder and the caller’s role'),
      baseline: 'replay',
      requests: fixed({ path: `/folder/${f.folderId}` }),
    },
    {
      name: 'POST /folder',
      method: 'POST',
      status: 201,
      minimum: {
        roundTrips: 1,
        reads: [],
        writes: ['folder', 'access', 'folder', 'entry', 'entry'],
        why: 'conditions on the parent and the caller’s role; the folder and its name entry; the other kind’s name entry absent',
      },
      requests: async () => (n) => ({ path: '/folder', body: { parentId: f.writeFolderId, name: `Folder ${unique()}-${n}` } }),
    },
    {
      name: 'GET /folder/{id}/folders',
      method: 'GET',
      status: 200,
      minimum: read(
        ['folder', 'access', 'entry'],
        'the folder (an empty page must still tell a missing folder), the caller’s role, the page',
      ),
      baseline: 'replay',
      requests: fixed({ path: `/folder/${f.parentId}/folders` }),
    },
    {
      name: 'GET /folder/{id}/documents',
      method: 'GET',
      status: 200,
      minimum: read(
        ['folder', 'access', 'entry'],
        'the folder (an empty page must still tell a missing folder), the caller’s role, the page',
      ),
      baseline: 'replay',
      requests: fixed({ path: `/folder/${f.folderId}/documents?limit=50` }),
    },
    {
      name: 'GET /document/{id}',
      method: 'GET',
      status: 200,
      minimum: read(['document', 'access'], 'the document and the caller’s role'),
      baseline: 'replay',
      requests: fixed({ path: `/document/${f.documentId}` }),
    },
    {
      name: 'POST /document',
      method: 'POST',
      status: 201,
      minimum: {
        roundTrips: 1,
        reads: [],
        writes: ['folder', 'access', 'document', 'entry', 'entry'],
        why: 'conditions on the folder and the caller’s role; the document and its name entry; the other kind’s name entry absent',
      },
      baseline: 'create',
      requests: async () => (n) => ({
        path: '/document',
        body: { folderId: f.writeFolderId, name: `doc-${unique()}-${n}.txt`, content: oneKb(), contentType: 'text/plain' },
      }),
    },
    {
      name: 'PUT /document',
      method: 'PUT',
      status: 200,
      minimum: { roundTrips: 2, reads: ['document', 'access'], writes: ['document', 'entry'], why: CHANGE_FLOOR },
      baseline: 'update',
      requests: async (count) => {
        const id = await writable(Math.min(count, 500));
        return (n) => ({ path: '/document', body: { id: id(n % Math.min(count, 500)), content: oneKb('y') } });
      },
    },
    {
      name: 'PUT /document (rename)',
      method: 'PUT',
      status: 200,
      minimum: {
        roundTrips: 2,
        reads: ['document', 'access'],
        writes: ['document', 'entry', 'entry', 'entry'],
        why: `${CHANGE_FLOOR}; the entry moves (old removed, new put, other kind absent)`,
      },
      requests: async (count) => {
        const id = await writable(count);
        return (n) => ({ path: '/document', body: { id: id(n), name: `renamed-${unique()}-${n}.txt` } });
      },
    },
    {
      name: 'DELETE /document/{id}',
      method: 'DELETE',
      status: 204,
      minimum: { roundTrips: 2, reads: ['document', 'access'], writes: ['document', 'entry'], why: CHANGE_FLOOR },
      baseline: 'delete',
      requests: async (count) => {
        const id = await writable(count);
        return (n) => ({ path: `/document/${id(n)}` });
      },
    },
  ];
}
