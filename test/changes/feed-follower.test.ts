/**
 * The change feed under load (docs/api.md: Change feed): several clients make random writes in
 * one repository at once (creates, updates, renames, moves, deletes, restores, shares: every
 * write endpoint the route table has) while a follower reads the feed from `latest`. Then the
 * tree is rebuilt from the follower's changes alone, and must be identical to what the listings
 * show; the follower must have seen each successful write exactly once (counted per client),
 * and each item's changes in the order they were made (versions go up by one).
 *
 * Adding an operation is one entry of `operations` below: what it sends, and which route must
 * exist for it (so the operations of endpoints still being built join as they land).
 */
import { describe, expect, it } from 'vitest';
import { type HttpMethod, routes } from '#functions/routes';
import { useService } from '#test/support/fixture';
import {
  type Api,
  ensure,
  expectProblem,
  type HttpResponse,
  listAll,
  newRepository,
  newUser,
  type Repository,
  setRole,
} from '#test/support/http';
import { takeSeed, withSeed } from '#test/support/seed';

const CLIENTS = 4;
const OPERATIONS_PER_CLIENT = 40;
/** Documents a run creates at least: the random ones, and as many more as they fell short. */
const MIN_CREATES = 6;
/** New each run, printed, and named in a failure: FEED_FOLLOWER_SEED=<seed> (or SEED=<seed>) replays it. */
const SEED = takeSeed('feed-follower', 'test/changes/feed-follower.test.ts', 'FEED_FOLLOWER_SEED');

/** Users the owner gives roles to and takes them from; only client 0 touches them, so it knows their roles. */
const guests = ['guest-a', 'guest-b', 'guest-c'];

const ctx = useService({
  seed: async (svc) => {
    /** Client 0 is the owner (it alone shares); the others are editors. */
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => newUser(svc)));
    return { clients, repository: await newRepository(clients[0]!.api) };
  },
});

// ---------------------------------------------------------------------------------------------
// The clients: what they know (ids they made; maybe gone since), and the operations they run.

/** A small deterministic generator: a failing run is repeated with FEED_FOLLOWER_SEED (see SEED). */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}
type Random = ReturnType<typeof random>;

interface Known {
  folders: string[];
  documents: string[];
  /** Ids sent to the trash (some restored or purged since). */
  trashed: string[];
  /** Roles the owner gave its guests (client 0 only). */
  guestRoles: Map<string, string>;
  /** The document everyone updates. */
  shared: string;
}
const known: Known = { folders: [], documents: [], trashed: [], guestRoles: new Map(), shared: 'none' };

interface Context {
  api: Api;
  client: number;
  random: Random;
}

interface Operation {
  name: string;
  /** The route it needs, as the route table names it: absent routes leave the operation out. */
  route: `${HttpMethod} ${string}`;
  /** Only the owner may (sharing). */
  ownerOnly?: boolean;
  weight: number;
  /**
   * Every status it may get here, its successes first: what a request of its kind can meet in
   * this repository (an item another client deleted, trashed or moved, a name another took, a
   * cycle or the depth limit for a folder). Anything else fails the test (503 aside:
   * `MAX_UNAVAILABLE`).
   */
  expected: readonly number[];
  /** Sends the request; on success, may tell the others what now exists. */
  run(context: Context): Promise<HttpResponse>;
  /** After a success: what the clients learn from it. */
  learn?(res: HttpResponse, context: Context): void;
  /** Whether a success made a change (all do, except where said). */
  changes?: (res: HttpResponse) => boolean;
}

const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const name = (r: Random) => `${r.pick(names)}${r.int(4)}`;
const folder = (r: Random) =>
  r.int(5) === 0 ? ctx.repository.rootFolderId : r.pick(known.folders.length ? known.folders : [ctx.repository.rootFolderId]);
const documentId = (r: Random) => (known.documents.length ? r.pick(known.documents) : 'none');
const trashedId = (r: Random) => (known.trashed.length ? r.pick(known.trashed) : 'none');

const operations: Operation[] = [
  {
    name: 'create a folder',
    route: 'POST /folder',
    expected: [201, 404, 409],
    weight: 3,
    run: ({ api, random: r }) => api.post('/folder', { parentId: folder(r), name: name(r) }),
    learn: (res) => void known.folders.push(res.body.id),
  },
  {
    name: 'create a document',
    route: 'POST /document',
    expected: [201, 404, 409],
    weight: 5,
    run: ({ api, random: r }) => api.post('/document', { folderId: folder(r), name: `${name(r)}.md`, content: `v1 ${r.int(1000)}` }),
    learn: (res) => void known.documents.push(res.body.id),
  },
  {
    name: 'update a document',
    route: 'PUT /document',
    expected: [200, 404],
    weight: 5,
    run: ({ api, random: r }) => api.put('/document', { id: documentId(r), content: `text ${r.int(1000)}` }),
  },
  {
    // One document every client writes to: its versions follow each other closely, so several
    // changes of one item travel in one batch of the stream (their order is what is tested).
    name: 'update the shared document',
    route: 'PUT /document',
    expected: [200],
    weight: 4,
    run: ({ api, random: r }) => api.put('/document', { id: known.shared, content: `shared ${r.int(1000)}` }),
  },
  {
    name: 'rename a document',
    route: 'PUT /document',
    expected: [200, 404, 409],
    weight: 3,
    run: ({ api, random: r }) => api.put('/document', { id: documentId(r), name: `${name(r)}.txt` }),
  },
  {
    name: 'move a document',
    route: 'PUT /document',
    expected: [200, 404, 409],
    weight: 4,
    run: ({ api, random: r }) => api.put('/document', { id: documentId(r), folderId: folder(r) }),
  },
  {
    name: 'delete a document',
    route: 'DELETE /document/{id}',
    expected: [204, 404],
    weight: 2,
    run: ({ api, random: r }) => api.delete(`/document/${documentId(r)}`),
    learn: (res) => void known.trashed.push(res.request.split('/').at(-1)!),
  },
  {
    name: 'restore a revision',
    route: 'POST /document/{id}/revisions/{version}/restore',
    expected: [200, 404],
    weight: 2,
    run: ({ api, random: r }) => api.post(`/document/${documentId(r)}/revisions/1/restore`, undefined),
  },
  {
    name: 'share',
    route: 'PUT /{id}/members/{userId}',
    ownerOnly: true,
    expected: [201, 200],
    weight: 2,
    run: ({ api, random: r }) => {
      const guest = r.pick(guests);
      // Always a role the guest does not have: a PUT of the same role changes nothing.
      const role = r.pick(['owner', 'editor', 'viewer'].filter((x) => x !== known.guestRoles.get(guest)));
      return api.put(`/${ctx.repository.id}/members/${guest}`, { role });
    },
    learn: (res) => void known.guestRoles.set(res.body.userId, res.body.role),
  },
  {
    name: 'unshare',
    route: 'DELETE /{id}/members/{userId}',
    ownerOnly: true,
    expected: [204, 404],
    weight: 1,
    run: ({ api, random: r }) => {
      const present = guests.filter((g) => known.guestRoles.has(g));
      return api.delete(`/${ctx.repository.id}/members/${present.length ? r.pick(present) : 'guest-none'}`);
    },
    learn: (res) => void known.guestRoles.delete(decodeURIComponent(res.request.split('/').at(-1)!)),
  },
  // Endpoints being built (the life cycle of folders and repositories, the trash): they join
  // the load as soon as the route table has them.
  {
    name: 'rename a folder',
    route: 'PUT /folder',
    expected: [200, 404, 409],
    weight: 2,
    run: ({ api, random: r }) => api.put('/folder', { id: r.pick(known.folders.length ? known.folders : ['none']), name: name(r) }),
  },
  {
    name: 'move a folder',
    route: 'PUT /folder',
    expected: [200, 404, 409],
    weight: 2,
    run: ({ api, random: r }) => api.put('/folder', { id: r.pick(known.folders.length ? known.folders : ['none']), parentId: folder(r) }),
  },
  {
    name: 'delete a folder',
    route: 'DELETE /folder/{id}',
    expected: [204, 404],
    weight: 1,
    run: ({ api, random: r }) => api.delete(`/folder/${r.pick(known.folders.length ? known.folders : ['none'])}?recursive=true`),
    learn: (res) => void known.trashed.push(res.request.split('/').at(-1)!.split('?')[0]!),
  },
  {
    name: 'restore from the trash',
    route: 'POST /{id}/trash/{itemId}/restore',
    expected: [200, 404, 409],
    weight: 2,
    run: ({ api, random: r }) => api.post(`/${ctx.repository.id}/trash/${trashedId(r)}/restore`, {}),
  },
  {
    name: 'purge from the trash',
    route: 'DELETE /{id}/trash/{itemId}',
    expected: [204, 404],
    weight: 1,
    run: ({ api, random: r }) => api.delete(`/${ctx.repository.id}/trash/${trashedId(r)}`),
  },
  {
    name: 'rename the repository',
    route: 'PUT /{id}',
    ownerOnly: true,
    expected: [200],
    weight: 1,
    run: ({ api, random: r }) => api.put(`/${ctx.repository.id}`, { name: `repository ${name(r)}` }),
  },
];

/** One of `ops`, each as likely as its weight. */
function weighted(r: Random, ops: readonly Operation[]): Operation {
  let roll = r.int(ops.reduce((sum, op) => sum + op.weight, 0));
  for (const op of ops) {
    roll -= op.weight;
    if (roll < 0) return op;
  }
  return ops.at(-1)!;
}

/**
 * A loaded database may answer any request 503 with Retry-After (changing nothing; the count
 * per client below checks that). Such an answer is counted on its own, never as one of the
 * operation's statuses, and at most a tenth of all requests may get it.
 */
const MAX_UNAVAILABLE = (CLIENTS * OPERATIONS_PER_CLIENT) / 10;

const available = operations.filter((op) => routes.some((route) => `${route.method} ${route.path}` === op.route));

// ---------------------------------------------------------------------------------------------
// The tree, rebuilt from changes alone.

interface Node {
  kind: 'folder' | 'document';
  parent: string | null;
  name: string;
  version: number;
  trashed: boolean;
}

type Change = {
  type: string;
  kind: string;
  id: string;
  folderId?: string | null;
  previousFolderId?: string;
  name?: string;
  version?: number;
  role?: string;
  by: string;
};

class Rebuilt {
  readonly nodes = new Map<string, Node>();
  readonly members = new Map<string, string>();
  repositoryName: string;

  constructor(initial: Repository, members: Map<string, string>) {
    this.nodes.set(initial.rootFolderId, { kind: 'folder', parent: null, name: initial.name, version: 1, trashed: false });
    this.repositoryName = initial.name;
    for (const [user, role] of members) this.members.set(user, role);
  }

  /** Applies one change; each must follow from the state before it (per item: in order, once). */
  apply(change: Change): void {
    const what = JSON.stringify(change);
    if (change.kind === 'member') {
      if (change.type === 'member-removed') expect(this.members.delete(change.id), what).toBe(true);
      else {
        expect(this.members.has(change.id), what).toBe(change.type === 'member-changed');
        this.members.set(change.id, change.role!);
      }
      return;
    }
    if (change.kind === 'repository') {
      const root = this.nodes.get(ctx.repository.rootFolderId)!;
      root.name = change.name!;
      this.repositoryName = change.name!;
      return;
    }
    const node = this.nodes.get(change.id);
    switch (change.type) {
      case 'created':
        expect(node, `${what}: created twice`).toBeUndefined();
        expect(change.version, what).toBe(1);
        this.nodes.set(change.id, {
          kind: change.kind as Node['kind'],
          parent: change.folderId!,
          name: change.name!,
          version: 1,
          trashed: false,
        });
        return;
      case 'updated':
      case 'renamed':
      case 'moved':
        expect(node, `${what}: unknown item`).toBeDefined();
        expect(node!.trashed, `${what}: in the trash`).toBe(false);
        expect(change.version, `${what}: after version ${node!.version}`).toBe(node!.version + 1);
        if (change.type === 'moved') expect(change.previousFolderId, what).toBe(node!.parent);
        else expect(change.folderId, what).toBe(node!.parent);
        Object.assign(node!, { parent: change.folderId!, name: change.name!, version: change.version! });
        return;
      case 'deleted':
        expect(node?.trashed, `${what}: not there to delete`).toBe(false);
        expect(change.version, what).toBe(node!.version);
        node!.trashed = true;
        return;
      case 'restored':
        expect(node?.trashed, `${what}: not in the trash`).toBe(true);
        Object.assign(node!, { trashed: false, parent: change.folderId!, name: change.name! });
        return;
      case 'purged':
        expect(node, `${what}: unknown item`).toBeDefined();
        // Only the item itself: what is below it is unreachable from now on, but until the
        // background purge closes its folder it may still change (even move out: docs/api.md, Trash).
        this.nodes.delete(change.id);
        return;
      default:
        throw new Error(`unexpected change ${what}`);
    }
  }

  /** What the listings should show: everything reachable from the root through items not in the trash. */
  visible(): Map<string, { kind: string; parent: string | null; name: string; version: number }> {
    const shown = new Map<string, { kind: string; parent: string | null; name: string; version: number }>();
    const walk = (folderId: string) => {
      for (const [id, node] of this.nodes) {
        if (node.parent !== folderId || node.trashed) continue;
        shown.set(id, { kind: node.kind, parent: node.parent, name: node.name, version: node.version });
        if (node.kind === 'folder') walk(id);
      }
    };
    walk(ctx.repository.rootFolderId);
    return shown;
  }
}

/** The tree the listings show, from the root folder down. */
async function listed(api: Api) {
  const shown = new Map<string, { kind: string; parent: string | null; name: string; version: number }>();
  const walk = async (folderId: string) => {
    for (const kind of ['folders', 'documents'] as const) {
      const { items } = await listAll<{ id: string; name: string; version: number }>(api, `/folder/${folderId}/${kind}`, 100);
      for (const item of items) {
        shown.set(item.id, { kind: kind === 'folders' ? 'folder' : 'document', parent: folderId, name: item.name, version: item.version });
        if (kind === 'folders') await walk(item.id);
      }
    }
  };
  await walk(ctx.repository.rootFolderId);
  return shown;
}

// ---------------------------------------------------------------------------------------------

describe('a follower of the feed, during random writes by several clients', () => {
  it(
    'sees every change once, in order per item, and rebuilds exactly the tree the listings show',
    () =>
      withSeed(SEED, async () => {
        console.log(`[feed-follower] seed ${SEED.value}; operations: ${available.map((op) => op.name).join(', ')}`);
        const owner = ctx.clients[0]!.api;
        const start = ensure(await owner.get(`/${ctx.repository.id}/changes?cursor=latest`), 200).body.cursor as string;
        // The editors join through the feed too.
        for (const editor of ctx.clients.slice(1)) await setRole(owner, ctx.repository.id, editor.sub, 'editor');
        known.shared = ensure(await owner.post('/document', { folderId: ctx.repository.rootFolderId, name: 'shared.md' }), 201).body.id;
        const made = new Map<string, number>(ctx.clients.map((c) => [c.sub, 0]));
        made.set(ctx.clients[0]!.sub, CLIENTS);

        // The follower: reads while the clients write, with page sizes of its own.
        const seen: Change[] = [];
        let writing = true;
        const followerRandom = random(SEED.value + 99);
        const follower = (async () => {
          let cursor = start;
          for (;;) {
            const limit = 1 + followerRandom.int(30);
            const res = ensure(await owner.get(`/${ctx.repository.id}/changes?cursor=${cursor}&limit=${limit}`), 200);
            seen.push(...res.body.items);
            cursor = res.body.cursor;
            if (res.body.items.length > 0) continue;
            if (!writing) {
              // All answered and all numbered: one more read after the worker settled ends it.
              await ctx.svc.worker.settled();
              const last = ensure(await owner.get(`/${ctx.repository.id}/changes?cursor=${cursor}&limit=100`), 200);
              seen.push(...last.body.items);
              if (last.body.items.length === 0) return;
              cursor = last.body.cursor;
              continue;
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();

        const outcomes = new Map<string, Record<number, number>>();
        let unavailable = 0;
        await Promise.all(
          ctx.clients.map(async (user, client) => {
            const r = random(SEED.value + client);
            const mine = available.filter((op) => client === 0 || !op.ownerOnly);
            for (let i = 0; i < OPERATIONS_PER_CLIENT; i++) {
              const op = weighted(r, mine);
              const context = { api: user.api, client, random: r };
              const res = await op.run(context);
              const what = `${op.name}: ${res.request} → ${res.status} ${res.text.slice(0, 300)}`;
              const counts = outcomes.get(op.name) ?? {};
              counts[res.status] = (counts[res.status] ?? 0) + 1;
              outcomes.set(op.name, counts);
              if (res.status === 503) {
                expectProblem(res, 503);
                expect(Number(res.headers.get('retry-after')), `${what}: Retry-After`).toBeGreaterThan(0);
                unavailable++;
                continue;
              }
              expect(op.expected, `${what}: not a status this operation may get here`).toContain(res.status);
              if (res.status >= 300) {
                // An error the operation may meet: a problem of that status (409's type says which conflict).
                expect(res.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
                expect(res.body, what).toMatchObject({ status: res.status, type: expect.stringMatching(/^urn:problem-type:documents:/) });
                continue;
              }
              op.learn?.(res, context);
              if (op.changes?.(res) ?? true) made.set(user.sub, made.get(user.sub)! + 1);
            }
          }),
        );
        // One move for certain, whatever the seed: a run whose random moves all missed (404, 409, or
        // into the folder the document was in) still gives the follower a `moved` to replay.
        const movedHere = ensure(
          await owner.post('/folder', { parentId: ctx.repository.rootFolderId, name: `moved here ${SEED.value}` }),
          201,
        );
        ensure(await owner.put('/document', { id: known.shared, folderId: movedHere.body.id }), 200);
        made.set(ctx.clients[0]!.sub, made.get(ctx.clients[0]!.sub)! + 2);
        // Creates for certain too: a seed whose folders went to the trash early has most of its
        // creates answered 404 (seed 359495871: 3 of 15 made a document).
        for (let i = outcomes.get('create a document')?.[201] ?? 0; i < MIN_CREATES; i++) {
          ensure(await owner.post('/document', { folderId: ctx.repository.rootFolderId, name: `made here ${i} ${SEED.value}.md` }), 201);
          made.set(ctx.clients[0]!.sub, made.get(ctx.clients[0]!.sub)! + 1);
        }
        writing = false;
        await follower;
        console.log(`[feed-follower] ${JSON.stringify(Object.fromEntries(outcomes))}; the follower saw ${seen.length} changes`);
        expect(unavailable, 'requests answered 503 (a loaded database)').toBeLessThanOrEqual(MAX_UNAVAILABLE);

        // Exactly once: as many changes by each client as it had successful writes.
        const byClient = new Map(ctx.clients.map((c) => [c.sub, seen.filter((change) => change.by === c.sub).length]));
        expect(byClient).toEqual(made);
        expect(seen).toHaveLength([...made.values()].reduce((a, b) => a + b, 0));
        // Enough happened for the comparison to mean something.
        expect(seen.filter((change) => change.type === 'created' && change.kind === 'document').length).toBeGreaterThanOrEqual(MIN_CREATES);
        expect(seen.filter((change) => change.type === 'moved').length).toBeGreaterThan(0);

        // Rebuilt from the feed alone (the repository and its owner as they were at `latest`).
        const rebuilt = new Rebuilt(ctx.repository, new Map([[ctx.clients[0]!.sub, 'owner']]));
        for (const change of seen) rebuilt.apply(change);
        await ctx.svc.worker.settled(); // subtrees follow their folder in the background
        expect(rebuilt.visible()).toEqual(await listed(owner));
        const { items: members } = await listAll<{ userId: string; role: string }>(owner, `/${ctx.repository.id}/members`, 100);
        expect(new Map(members.map((m) => [m.userId, m.role]))).toEqual(rebuilt.members);
        expect(ensure(await owner.get(`/${ctx.repository.id}`), 200).body.name).toBe(rebuilt.repositoryName);
      }),
    180_000,
  );
});
