/**
 * The role matrix (docs/api.md: Roles and visibility, Sharing): every route of
 * functions/routes.ts, asked on the running service by a repository's owner, an editor, a
 * viewer, a removed member (an editor until removed) and a stranger, answers the status the
 * contract gives each of them.
 *
 * Each route's request is the example its handler module declares (`operation.example`); the
 * statuses follow from who may call it, as the table written apart from the code says
 * (test/support/who-may.ts; a route without a row fails, naming it), and the route's own
 * declaration (`operation.access`) must say the same:
 * `viewer` → members read, the others get 404; `editor` → a viewer gets 403; `owner` → an editor or a
 * viewer gets 403; `signed-in` and `public` → everyone succeeds. An example that uses up what it
 * names (`consumes`) gets, for each caller, a new folder, document, trashed document or member
 * (those it names). Below are only what the examples cannot say: more cases of a route (`cases`)
 * and more checks of an answer (`checks`).
 * Callers ask in the order stranger, removed, viewer, editor, owner, so a request that succeeds
 * (and may use the world up, as deleting the repository does) comes after those that must not.
 */
import { describe, expect, it } from 'vitest';
import type { Access, Scene } from '#core/http/operation';
import { findRoute, type Route, routes } from '#functions/routes';
import { exampleCall, exampleStatus, sceneFieldsOf } from '#lib/examples';
import { loadOperations } from '#lib/openapi/document';
import { useService } from '#test/support/fixture';
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
import { whoMay } from '#test/support/who-may';

const CALLERS = ['stranger', 'removed', 'viewer', 'editor', 'owner'] as const;
type Who = (typeof CALLERS)[number];
type Statuses = Record<Who, number>;

interface World {
  repository: Repository;
  folder: Folder;
  document: Document;
  users: Record<Who, User>;
  /** The ids the routes' examples name. */
  scene: Scene;
  /** The scene with new things for those of `fields` that can be made anew (folder, document, trashed document, member). */
  freshScene(fields: readonly (keyof Scene)[]): Promise<Scene>;
  /** A user the owner has just made a member with this role. */
  freshMember(role: 'owner' | 'editor' | 'viewer'): Promise<User>;
}

interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  json?: unknown;
  /** A raw body (PUT /document/{id}/content). */
  raw?: string;
  headers?: Record<string, string>;
}

/** A case of a route that its example does not cover. */
interface Case {
  case: string;
  request(world: World, who: Who): Request | Promise<Request>;
  expect: Statuses;
}

type Check = (res: HttpResponse, who: Who, world: World) => void | Promise<void>;

const READ = (status: number): Statuses => ({ owner: status, editor: status, viewer: status, removed: 404, stranger: 404 });
const WRITE = (status: number): Statuses => ({ owner: status, editor: status, viewer: 403, removed: 404, stranger: 404 });
const MANAGE = (status: number): Statuses => ({ owner: status, editor: 403, viewer: 403, removed: 404, stranger: 404 });
const ANYONE = (status: number): Statuses => ({ owner: status, editor: status, viewer: status, removed: status, stranger: status });
/** The scene's uploads are the owner's: anyone else gets 404, as if they did not exist. */
const UPLOADER = (status: number): Statuses => ({ owner: status, editor: 404, viewer: 404, removed: 404, stranger: 404 });
/** What each caller gets from a route that `access` allows, answering `status` on success. */
const statusesOf = (access: Access, status: number): Statuses =>
  ({ public: ANYONE, 'signed-in': ANYONE, viewer: READ, editor: WRITE, owner: MANAGE, uploader: UPLOADER })[access](status);
const ROLES: Partial<Record<Who, string>> = { owner: 'owner', editor: 'editor', viewer: 'viewer' };
const e = encodeURIComponent;

/** More checks of the example's answer, by route name. */
const checks: Record<string, Check> = {
  // Members see the repository with their role; the others do not see it at all.
  ListRepositories: async (_, who, world) => {
    const { items } = await listAll<Repository>(world.users[who].api, '/', 100);
    expect(items.find((r) => r.id === world.repository.id)?.role, who).toBe(ROLES[who]);
  },
  GetRepository: (res, who) => {
    if (res.status === 200) expect(res.body.role).toBe(ROLES[who]);
  },
};

/** Cases beyond the example, by route name. */
const cases: Record<string, Case[]> = {
  PutMember: [
    {
      case: 'a user id that needs percent-encoding',
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
      case: 'themselves (leaving)',
      request: (w, who) => ({ method: 'DELETE', path: `/${w.repository.id}/members/${e(w.users[who].sub)}` }),
      expect: { owner: 409, editor: 204, viewer: 204, removed: 404, stranger: 404 },
    },
  ],
};

const ctx = useService({
  seed: async (svc) => {
    const made = await Promise.all(CALLERS.map(async (who) => [who, await newUser(svc)] as const));
    return { users: Object.fromEntries(made) as Record<Who, User>, operations: await loadOperations() };
  },
});

/** A repository of the owner's with the editor, the viewer, and the removed member (removed). */
async function newWorld(): Promise<World> {
  const owner: Api = ctx.users.owner.api;
  const repository = await newRepository(owner);
  await setRole(owner, repository.id, ctx.users.editor.sub, 'editor');
  await setRole(owner, repository.id, ctx.users.viewer.sub, 'viewer');
  await setRole(owner, repository.id, ctx.users.removed.sub, 'editor');
  await removeMember(owner, repository.id, ctx.users.removed.sub);
  const folder = await newFolder(owner, repository.rootFolderId);
  const document = await newDocument(owner, folder.id, { content: 'first' });
  const trashedDocument = async () => {
    const trashed = await newDocument(owner, folder.id);
    ensure(await owner.delete(`/document/${trashed.id}`), 204);
    return trashed.id;
  };
  /** An upload of the owner's, of 5 bytes, with them sent or not. */
  const upload = async (send: boolean) => {
    const started = ensure(await owner.post('/uploads', { folderId: folder.id, name: uniqueName('upload'), size: 5 }), 201).body as {
      id: string;
      parts: { url: string }[];
    };
    if (send) expect((await fetch(started.parts[0]!.url, { method: 'PUT', body: 'bytes' })).status).toBe(200);
    return started.id;
  };
  const freshMember = async (role: 'owner' | 'editor' | 'viewer') => {
    const member = await newUser(ctx.svc);
    await setRole(owner, repository.id, member.sub, role);
    return member;
  };
  /** A share link of the document, the owner's, and its token. */
  const link = async () => ensure(await owner.post(`/document/${document.id}/links`, {}), 201).body as { id: string; token: string };
  const sceneLink = await link();
  const fresh: Partial<Record<keyof Scene, () => Promise<string>>> = {
    link: async () => (await link()).id,
    folder: async () => (await newFolder(owner, folder.id)).id,
    document: async () => (await newDocument(owner, folder.id)).id,
    trashedDocument,
    member: async () => (await freshMember('editor')).sub,
    upload: () => upload(false),
    sentUpload: () => upload(true),
  };
  const scene: Scene = {
    repository: repository.id,
    folder: folder.id,
    document: document.id,
    trashedDocument: await trashedDocument(),
    member: ctx.users.viewer.sub,
    upload: await upload(false),
    sentUpload: await upload(true),
    link: sceneLink.id,
    linkToken: sceneLink.token,
    unique: uniqueName('example'),
  };
  return {
    repository,
    folder,
    document,
    users: ctx.users,
    scene,
    async freshScene(fields) {
      const made = await Promise.all(fields.map(async (field) => [field, await (fresh[field]?.() ?? scene[field])] as const));
      return { ...scene, ...Object.fromEntries(made), unique: uniqueName('example') };
    },
    freshMember,
  };
}

/**
 * The world of the routes that only read (GET with an example that uses nothing up), made once for
 * them all: a GET changes nothing (docs/api.md), and making a world takes ~15 requests, most of
 * this file's time when each route had its own.
 */
let readWorld: Promise<World> | undefined;

/** The route's example, by `who`, in `world`. */
async function exampleRequest(route: Route, world: World): Promise<Request> {
  const { example } = ctx.operations.get(route.name)!;
  const scene = example.consumes ? await world.freshScene(sceneFieldsOf(example)) : { ...world.scene, unique: uniqueName('example') };
  const { method, path, body, raw } = exampleCall(route, example, scene);
  return {
    method,
    path,
    ...(body === undefined ? {} : { json: body }),
    ...(raw === undefined ? {} : { raw: raw.body, headers: { 'content-type': raw.contentType } }),
  };
}

describe('the role matrix: every route by owner, editor, viewer, removed member and stranger', () => {
  it.each(routes.map((route) => [`${route.name} (${route.method} ${route.path})`, route] as const))('%s', async (_, route) => {
    const operation = ctx.operations.get(route.name)!;
    const access = whoMay(route);
    expect
      .soft(operation.access, `${route.name}: its declared access (functions/${route.handler}.ts) against test/support/who-may.ts`)
      .toBe(access);
    const rows: Case[] = [
      { case: 'its example', request: () => exampleRequest(route, world), expect: statusesOf(access, exampleStatus(operation)) },
      ...(cases[route.name] ?? []),
    ];
    const readsOnly = route.method === 'GET' && !operation.example.consumes;
    if (readsOnly) readWorld ??= newWorld();
    let world = await (readsOnly ? readWorld! : newWorld());
    for (const [i, row] of rows.entries()) {
      if (i > 0) world = await newWorld();
      const label = `${route.name} (${row.case})`;
      for (const who of CALLERS) {
        const { method, path, json, raw, headers } = await row.request(world, who);
        expect(findRoute(method, path.split('?')[0]!)?.route.name, `${label}: ${method} ${path} reaches another route`).toBe(route.name);
        const res = await ctx.users[who].api.request(method, path, {
          ...(json === undefined ? {} : { json }),
          ...(raw === undefined ? {} : { raw }),
          headers,
        });
        expect(res.status, `${label} by the ${who}: ${res.request} → ${res.status} ${res.text.slice(0, 300)}`).toBe(row.expect[who]);
        if (i === 0) await checks[route.name]?.(res, who, world);
      }
    }
  });

  it('has no extra case or check for a route that does not exist', () => {
    const names = new Set(routes.map((route) => route.name));
    expect([...Object.keys(cases), ...Object.keys(checks)].filter((name) => !names.has(name))).toEqual([]);
  });
});
