/**
 * The role matrix (docs/api.md: Roles and visibility, Sharing): every route of
 * functions/routes.ts, asked on the running service by a repository's owner, an editor, a
 * viewer, a removed member (an editor until removed) and a stranger, answers the status the
 * contract gives each of them.
 *
 * HOW TO ADD A ROW. A route of functions/routes.ts without a row fails this file (and so does a
 * row for a route that does not exist, or whose request reaches another route):
 *   1. Add an entry to `matrix` below, keyed by the route's `name` in functions/routes.ts.
 *   2. `request(world, who)` returns what `who` sends: `method`, `path` (ids as they are,
 *      anything else percent-encoded), and optionally `json` (a body) and `headers`. `world` is a
 *      repository made for the row, with a folder, a document in it and the five callers. A
 *      request that uses something up (a delete, a restore) takes a fresh one for each caller
 *      from `world.fresh*()`, made by the owner.
 *   3. `expect` gives each caller's status; READ, WRITE(status), MANAGE(status) and
 *      ANYONE(status) are the usual shapes.
 *   4. Several cases for one route: an array of rows, each with a `case` name.
 * Callers ask in the order stranger, removed, viewer, editor, owner, so a request that succeeds
 * (and may use the world up, as deleting the repository does) comes after those that must not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRoute, routes } from '#functions/routes';
import {
  type Api,
  type Document,
  ensure,
  type Folder,
  type HttpResponse,
  listAll,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  type Repository,
  removeMember,
  setRole,
  type User,
  uniqueName,
} from '#test/support/http';
import { startTestService, type TestService } from '#test/support/service';

const CALLERS = ['stranger', 'removed', 'viewer', 'editor', 'owner'] as const;
type Who = (typeof CALLERS)[number];
type Statuses = Record<Who, number>;

interface World {
  repository: Repository;
  folder: Folder;
  document: Document;
  users: Record<Who, User>;
  /** An empty sub folder of `folder`, new. */
  freshFolder(): Promise<Folder>;
  /** A document in `folder`, new. */
  freshDocument(): Promise<Document>;
  /** A document the owner has just moved to the trash. */
  trashedDocument(): Promise<Document>;
  /** A user the owner has just made a member with this role. */
  freshMember(role: 'owner' | 'editor' | 'viewer'): Promise<User>;
}

interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  json?: unknown;
  headers?: Record<string, string>;
}

interface Row {
  /** Which case of the route, when it has several. */
  case?: string;
  request(world: World, who: Who): Request | Promise<Request>;
  expect: Statuses;
  /** More to check of an answer. */
  check?(res: HttpResponse, who: Who, world: World): void | Promise<void>;
}

const READ: Statuses = { owner: 200, editor: 200, viewer: 200, removed: 404, stranger: 404 };
const WRITE = (status: number): Statuses => ({ owner: status, editor: status, viewer: 403, removed: 404, stranger: 404 });
const MANAGE = (status: number): Statuses => ({ owner: status, editor: 403, viewer: 403, removed: 404, stranger: 404 });
const ANYONE = (status: number): Statuses => ({ owner: status, editor: status, viewer: status, removed: status, stranger: status });
const ROLES: Partial<Record<Who, string>> = { owner: 'owner', editor: 'editor', viewer: 'viewer' };
const e = encodeURIComponent;

const matrix: Record<string, Row | Row[]> = {
  ListRepositories: {
    request: () => ({ method: 'GET', path: '/' }),
    expect: ANYONE(200),
    // Members see the repository with their role; the others do not see it at all.
    check: async (_, who, world) => {
      const { items } = await listAll<Repository>(world.users[who].api, '/', 100);
      expect(items.find((r) => r.id === world.repository.id)?.role, who).toBe(ROLES[who]);
    },
  },
  CreateRepository: { request: () => ({ method: 'POST', path: '/', json: { name: uniqueName('repo') } }), expect: ANYONE(201) },
  GetRepository: {
    request: (w) => ({ method: 'GET', path: `/${w.repository.id}` }),
    expect: READ,
    check: (res, who) => {
      if (res.status === 200) expect(res.body.role).toBe(ROLES[who]);
    },
  },
  GetRootFolder: { request: (w) => ({ method: 'GET', path: `/${w.repository.id}/folder` }), expect: READ },
  GetFolder: { request: (w) => ({ method: 'GET', path: `/folder/${w.folder.id}` }), expect: READ },
  CreateFolder: {
    request: (w) => ({ method: 'POST', path: '/folder', json: { parentId: w.folder.id, name: uniqueName('folder') } }),
    expect: WRITE(201),
  },
  ListFolders: { request: (w) => ({ method: 'GET', path: `/folder/${w.folder.id}/folders` }), expect: READ },
  ListDocuments: { request: (w) => ({ method: 'GET', path: `/folder/${w.folder.id}/documents` }), expect: READ },
  GetDocument: { request: (w) => ({ method: 'GET', path: `/document/${w.document.id}` }), expect: READ },
  CreateDocument: {
    request: (w) => ({ method: 'POST', path: '/document', json: { folderId: w.folder.id, name: uniqueName('doc') } }),
    expect: WRITE(201),
  },
  UpdateDocument: {
    request: (w, who) => ({ method: 'PUT', path: '/document', json: { id: w.document.id, content: `by the ${who}` } }),
    expect: WRITE(200),
  },
  DeleteDocument: { request: async (w) => ({ method: 'DELETE', path: `/document/${(await w.freshDocument()).id}` }), expect: WRITE(204) },
  UpdateRepository: {
    request: (w, who) => ({ method: 'PUT', path: `/${w.repository.id}`, json: { description: `by the ${who}` } }),
    expect: MANAGE(200),
  },
  DeleteRepository: { request: (w) => ({ method: 'DELETE', path: `/${w.repository.id}` }), expect: MANAGE(204) },
  UpdateFolder: {
    request: async (w) => ({ method: 'PUT', path: '/folder', json: { id: (await w.freshFolder()).id, name: uniqueName('renamed') } }),
    expect: WRITE(200),
  },
  DeleteFolder: { request: async (w) => ({ method: 'DELETE', path: `/folder/${(await w.freshFolder()).id}` }), expect: WRITE(204) },
  ListTrash: { request: (w) => ({ method: 'GET', path: `/${w.repository.id}/trash` }), expect: READ },
  RestoreTrashItem: {
    request: async (w) => ({ method: 'POST', path: `/${w.repository.id}/trash/${(await w.trashedDocument()).id}/restore`, json: {} }),
    expect: WRITE(200),
  },
  DeleteTrashItem: {
    request: async (w) => ({ method: 'DELETE', path: `/${w.repository.id}/trash/${(await w.trashedDocument()).id}` }),
    expect: WRITE(204),
  },
  EmptyTrash: { request: (w) => ({ method: 'DELETE', path: `/${w.repository.id}/trash` }), expect: MANAGE(204) },
  ListRevisions: { request: (w) => ({ method: 'GET', path: `/document/${w.document.id}/revisions` }), expect: READ },
  GetRevision: { request: (w) => ({ method: 'GET', path: `/document/${w.document.id}/revisions/1` }), expect: READ },
  RestoreRevision: {
    request: (w) => ({ method: 'POST', path: `/document/${w.document.id}/revisions/1/restore` }),
    expect: WRITE(200),
  },
  ListChanges: { request: (w) => ({ method: 'GET', path: `/${w.repository.id}/changes?cursor=latest` }), expect: READ },
  ListMembers: { request: (w) => ({ method: 'GET', path: `/${w.repository.id}/members` }), expect: READ },
  PutMember: [
    {
      case: 'another user',
      request: (w) => ({ method: 'PUT', path: `/${w.repository.id}/members/${e(uniqueName('user|@: é'))}`, json: { role: 'viewer' } }),
      expect: MANAGE(201),
    },
    {
      case: 'an existing member',
      request: async (w) => ({
        method: 'PUT',
        path: `/${w.repository.id}/members/${e((await w.freshMember('viewer')).sub)}`,
        json: { role: 'editor' },
      }),
      expect: MANAGE(200),
    },
    {
      // The owner is the only one: stepping down would leave none.
      case: 'themselves, as viewer',
      request: (w, who) => ({ method: 'PUT', path: `/${w.repository.id}/members/${e(w.users[who].sub)}`, json: { role: 'viewer' } }),
      expect: { owner: 409, editor: 403, viewer: 403, removed: 404, stranger: 404 },
    },
  ],
  RemoveMember: [
    {
      case: 'another member',
      request: async (w) => ({ method: 'DELETE', path: `/${w.repository.id}/members/${e((await w.freshMember('editor')).sub)}` }),
      expect: MANAGE(204),
    },
    {
      case: 'themselves (leaving)',
      request: (w, who) => ({ method: 'DELETE', path: `/${w.repository.id}/members/${e(w.users[who].sub)}` }),
      expect: { owner: 409, editor: 204, viewer: 204, removed: 404, stranger: 404 },
    },
  ],
  GetOpenApi: { request: () => ({ method: 'GET', path: '/openapi.json' }), expect: ANYONE(200) },
  GetDocsPage: { request: () => ({ method: 'GET', path: '/docs' }), expect: ANYONE(200) },
  GetDocsAsset: { request: () => ({ method: 'GET', path: '/docs/init.js' }), expect: ANYONE(200) },
};

let svc: TestService;
let users: Record<Who, User>;

beforeAll(async () => {
  svc = await startTestService();
  const made = await Promise.all(CALLERS.map(async (who) => [who, await newUser(svc)] as const));
  users = Object.fromEntries(made) as Record<Who, User>;
}, 60_000);
afterAll(() => svc.stop());

/** A repository of the owner's with the editor, the viewer, and the removed member (removed). */
async function newWorld(): Promise<World> {
  const owner: Api = users.owner.api;
  const repository = await newRepository(owner);
  await setRole(owner, repository.id, users.editor.sub, 'editor');
  await setRole(owner, repository.id, users.viewer.sub, 'viewer');
  await setRole(owner, repository.id, users.removed.sub, 'editor');
  await removeMember(owner, repository.id, users.removed.sub);
  const folder = await newFolder(owner, repository.rootFolderId);
  const document = await newDocument(owner, folder.id, { content: 'first' });
  return {
    repository,
    folder,
    document,
    users,
    freshFolder: () => newFolder(owner, folder.id),
    freshDocument: () => newDocument(owner, folder.id),
    async trashedDocument() {
      const trashed = await newDocument(owner, folder.id);
      ensure(await owner.delete(`/document/${trashed.id}`), 204);
      return trashed;
    },
    async freshMember(role) {
      const member = await newUser(svc);
      await setRole(owner, repository.id, member.sub, role);
      return member;
    },
  };
}

describe('the role matrix: every route by owner, editor, viewer, removed member and stranger', () => {
  it.each(routes.map((route) => [`${route.name} (${route.method} ${route.path})`, route] as const))('%s', async (_, route) => {
    const rows = matrix[route.name];
    expect(
      rows,
      `functions/routes.ts has ${route.name} but the matrix has no row for it: add one (see the top of this file)`,
    ).toBeDefined();
    for (const row of [rows!].flat()) {
      const world = await newWorld();
      const label = `${route.name}${row.case ? ` (${row.case})` : ''}`;
      for (const who of CALLERS) {
        const { method, path, json, headers } = await row.request(world, who);
        expect(findRoute(method, path.split('?')[0]!)?.route.name, `${label}: ${method} ${path} reaches another route`).toBe(route.name);
        const res = await users[who].api.request(method, path, { ...(json === undefined ? {} : { json }), headers });
        expect(res.status, `${label} by the ${who}: ${res.request} → ${res.status} ${res.text.slice(0, 300)}`).toBe(row.expect[who]);
        await row.check?.(res, who, world);
      }
    }
  });

  it('has no row for a route that does not exist', () => {
    const names = new Set(routes.map((route) => route.name));
    expect(Object.keys(matrix).filter((name) => !names.has(name))).toEqual([]);
  });
});
