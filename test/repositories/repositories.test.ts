import { describe, expect, it } from 'vitest';
import { useService } from '#test/support/fixture';
import {
  byName,
  expectJson,
  expectRecentTime,
  type Folder,
  listAll,
  locationPath,
  newRepository,
  newUser,
  type Repository,
  SERVICE_ID,
  uniqueName,
} from '#test/support/http';

const ctx = useService();

describe('POST /', () => {
  it('creates a repository: 201, Location, every field, the caller as owner', async () => {
    const { sub, api } = await newUser(ctx.svc);
    const name = uniqueName('Repo');
    const res = await api.post('/', { name, description: 'Team notes' });

    expectJson(res, 201);
    const repo = res.body as Repository;
    expect(repo).toEqual({
      id: expect.stringMatching(SERVICE_ID),
      name,
      description: 'Team notes',
      rootFolderId: repo.id,
      role: 'owner',
      version: 1,
      createdAt: expect.any(String),
      createdBy: sub,
      updatedAt: expect.any(String),
      updatedBy: sub,
    });
    expect(locationPath(res)).toBe(`/${repo.id}`);
    expectRecentTime(repo.createdAt);
    expectRecentTime(repo.updatedAt);
  });

  it('defaults description to ""', async () => {
    const { api } = await newUser(ctx.svc);
    const res = await api.post('/', { name: uniqueName() });
    expectJson(res, 201);
    expect(res.body.description).toBe('');
  });

  // Found by the property test (test/contract/service.test.ts): a long name of 4-byte characters
  // made the membership item's sort key longer than DynamoDB's 1,024 bytes, and the answer a 500.
  it('accepts a name of 255 four-byte characters (1,020 bytes of UTF-8), and lists it', async () => {
    const { api } = await newUser(ctx.svc);
    const name = '\u{1F600}'.repeat(255);
    const res = await api.post('/', { name });
    expectJson(res, 201);
    expect(res.body.name).toBe(name);
    expect((await listAll<Repository>(api, '/')).items.map((r) => r.name)).toEqual([name]);
  });

  it('stores the name trimmed and in NFC', async () => {
    const { api } = await newUser(ctx.svc);
    const res = await api.post('/', { name: '  E\u0301cole  ' });
    expectJson(res, 201);
    expect(res.body.name).toBe('\u00c9cole');
    const again = await api.get(`/${res.body.id}`);
    expect(again.body.name).toBe('\u00c9cole');
  });

  it('gives each repository a root folder named like it, with no parent', async () => {
    const { sub, api } = await newUser(ctx.svc);
    const repo = await newRepository(api, { name: uniqueName('Root') });

    const res = await api.get(`/${repo.id}/folder`);
    expectJson(res, 200);
    expect(res.body as Folder).toEqual({
      id: repo.rootFolderId,
      repositoryId: repo.id,
      parentId: null,
      name: repo.name,
      version: 1,
      createdAt: expect.any(String),
      createdBy: sub,
      updatedAt: expect.any(String),
      updatedBy: sub,
    });
    expectRecentTime(res.body.createdAt);

    const byId = await api.get(`/folder/${repo.rootFolderId}`);
    expectJson(byId, 200);
    expect(byId.body).toEqual(res.body);
  });

  it('starts with an empty root folder', async () => {
    const { api } = await newUser(ctx.svc);
    const repo = await newRepository(api);
    for (const kind of ['folders', 'documents']) {
      const res = await api.get(`/folder/${repo.rootFolderId}/${kind}`);
      expectJson(res, 200);
      expect(res.body).toEqual({ items: [] });
    }
  });

  it('allows two repositories with the same name (names are unique per folder, not per user)', async () => {
    const { api } = await newUser(ctx.svc);
    const a = await newRepository(api, { name: 'Same' });
    const b = await newRepository(api, { name: 'same' });
    expect(a.id).not.toBe(b.id);
    expect(a.rootFolderId).not.toBe(b.rootFolderId);
  });
});

describe('GET /{id}', () => {
  it('returns the repository as created, with its usage (nothing yet) and quota', async () => {
    const { api } = await newUser(ctx.svc);
    const repo = await newRepository(api, { description: 'd' });
    const res = await api.get(`/${repo.id}`);
    expectJson(res, 200);
    expect(res.body).toEqual({ ...repo, usage: { bytes: 0, quota: 10 * 1024 ** 3 } });
  });
});

describe('GET /', () => {
  it('is an empty list for a caller with no repositories', async () => {
    const { api } = await newUser(ctx.svc);
    const res = await api.get('/');
    expectJson(res, 200);
    expect(res.body).toEqual({ items: [] });
  });

  it("lists only the caller's repositories, each with the caller's role", async () => {
    const alice = await newUser(ctx.svc);
    const bob = await newUser(ctx.svc);
    const mine = [await newRepository(alice.api), await newRepository(alice.api)];
    const theirs = await newRepository(bob.api);

    const res = await alice.api.get('/');
    expectJson(res, 200);
    expect(res.body.nextToken).toBeUndefined();
    expect(byName(res.body.items)).toEqual(byName(mine));
    expect(res.body.items.map((r: Repository) => r.id)).not.toContain(theirs.id);

    const bobs = await bob.api.get('/');
    expect(bobs.body.items).toEqual([theirs]);
  });

  it('orders by name, case-insensitively', async () => {
    const { api } = await newUser(ctx.svc);
    for (const name of ['delta', 'Alpha', 'charlie', 'Bravo', 'echo', 'alpine']) await newRepository(api, { name });
    const res = await api.get('/');
    expect(res.body.items.map((r: Repository) => r.name)).toEqual(['Alpha', 'alpine', 'Bravo', 'charlie', 'delta', 'echo']);
  });

  it('pages with limit and nextToken: no duplicates, no gaps, no token on the last page', async () => {
    const { api } = await newUser(ctx.svc);
    const created: Repository[] = [];
    for (let i = 0; i < 7; i++) created.push(await newRepository(api, { name: `${i % 2 ? 'R' : 'r'}epo ${i}` }));

    const { items, pages } = await listAll<Repository>(api, '/', 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(items.map((r) => r.id)).toEqual(byName(created).map((r) => r.id));
  });

  it('pages through names that differ only in case in a stable order', async () => {
    const { api } = await newUser(ctx.svc);
    const created: Repository[] = [];
    for (const name of ['Same', 'same', 'SAME', 'sAmE']) created.push(await newRepository(api, { name }));

    const first = await listAll<Repository>(api, '/', 1);
    const second = await listAll<Repository>(api, '/', 1);
    expect(first.pages.map((p) => p.length)).toEqual([1, 1, 1, 1]);
    expect(new Set(first.items.map((r) => r.id))).toEqual(new Set(created.map((r) => r.id)));
    expect(second.items.map((r) => r.id)).toEqual(first.items.map((r) => r.id));
    const all = await api.get('/');
    expect(all.body.items.map((r: Repository) => r.id)).toEqual(first.items.map((r) => r.id));
  });
});
