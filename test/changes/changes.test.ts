/**
 * The change feed (docs/api.md: Change feed): `GET /{id}/changes` from `latest`, following the
 * cursor; every status of the endpoint. And the events the worker publishes (EventBridge on AWS,
 * `svc.worker.onEvent` here): the same changes as the feed, with the same mapping.
 *
 * Every write whose change a test reads is sent once (`postFolder`, `postDocument`, plain
 * requests): a fixture's resend after a 503 could hide a second change, or the first one.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#core/db/client';
import { sequencedChangeKey } from '#core/items/keys';
import type { ChangeEvent } from '#functions/worker/events';
import {
  Api,
  ensure,
  expectJson,
  expectProblem,
  expectRecentTime,
  expectValidationError,
  newFolder,
  newRepository,
  newUser,
  postDocument,
  postFolder,
  removeMember,
  setRole,
  type User,
} from '#test/support/http';
import { startTestService, type TestService } from '#test/support/service';

let svc: TestService;
let owner: User;
let viewer: User;
let stranger: User;
const events: ChangeEvent[] = [];

beforeAll(async () => {
  svc = await startTestService();
  [owner, viewer, stranger] = await Promise.all([newUser(svc), newUser(svc), newUser(svc)]);
  svc.worker.onEvent((event) => events.push(event));
});
afterAll(() => svc?.stop());

type Change = Record<string, unknown> & { type: string; id: string };

const changes = (api: Api, id: string, cursor: string, limit?: number) =>
  Api.from(
    `GET /${id}/changes`,
    api.client.GET('/{id}/changes', { params: { path: { id }, query: { cursor, ...(limit ? { limit } : {}) } } }),
  );

async function latest(api: Api, repositoryId: string): Promise<string> {
  const res = await changes(api, repositoryId, 'latest');
  expectJson(res, 200);
  expect(res.body.items).toEqual([]);
  return res.body.cursor;
}

/** Every change after `cursor` once the worker has numbered them all, page by page; and the last cursor. */
async function follow(api: Api, repositoryId: string, cursor: string, limit?: number) {
  await svc.worker.settled();
  const items: Change[] = [];
  for (let pages = 0; ; pages++) {
    const res = await changes(api, repositoryId, cursor, limit);
    expectJson(res, 200);
    expect(typeof res.body.cursor).toBe('string');
    if (res.body.items.length === 0) {
      expect(res.body.cursor, 'an empty page keeps the position').toBe(cursor);
      return { items, cursor };
    }
    items.push(...res.body.items);
    cursor = res.body.cursor;
    if (pages > 100) throw new Error('the feed never ends');
  }
}

describe('GET /{id}/changes', () => {
  it('from `latest`, shows each change of documents and folders once, in order, with its fields', async () => {
    const repository = await newRepository(owner.api);
    const root = repository.rootFolderId;
    const start = await latest(owner.api, repository.id);

    const folder = await postFolder(owner.api, root, 'Drafts');
    const document = await postDocument(owner.api, root, { name: 'a.md', content: 'one' });
    ensure(await owner.api.put('/document', { id: document.id, content: 'two' }), 200);
    ensure(await owner.api.put('/document', { id: document.id, name: 'b.md' }), 200);
    ensure(await owner.api.put('/document', { id: document.id, folderId: folder.id, name: 'c.md' }), 200);
    ensure(await owner.api.post(`/document/${document.id}/revisions/1/restore`, undefined), 200);
    ensure(await owner.api.delete(`/document/${document.id}`), 204);

    const { items } = await follow(owner.api, repository.id, start);
    const by = owner.sub;
    expect(items).toEqual([
      { type: 'created', kind: 'folder', id: folder.id, folderId: root, name: 'Drafts', version: 1, at: folder.createdAt, by },
      { type: 'created', kind: 'document', id: document.id, folderId: root, name: 'a.md', version: 1, at: document.createdAt, by },
      { type: 'updated', kind: 'document', id: document.id, folderId: root, name: 'a.md', version: 2, at: expect.any(String), by },
      { type: 'renamed', kind: 'document', id: document.id, folderId: root, name: 'b.md', version: 3, at: expect.any(String), by },
      // A move (here with a new name) is one `moved` change, with where it was.
      {
        type: 'moved',
        kind: 'document',
        id: document.id,
        folderId: folder.id,
        previousFolderId: root,
        name: 'c.md',
        version: 4,
        at: expect.any(String),
        by,
      },
      // A revision restore is an update.
      { type: 'updated', kind: 'document', id: document.id, folderId: folder.id, name: 'c.md', version: 5, at: expect.any(String), by },
      { type: 'deleted', kind: 'document', id: document.id, folderId: folder.id, name: 'c.md', version: 5, at: expect.any(String), by },
    ]);
    for (const item of items) expectRecentTime(item.at);
    expect(items.map((item) => item.at)).toEqual(items.map((item) => item.at).sort());
  });

  it('shows membership changes, to any member', async () => {
    const repository = await newRepository(owner.api);
    const start = await latest(owner.api, repository.id);
    await setRole(owner.api, repository.id, viewer.sub, 'editor');
    await setRole(owner.api, repository.id, viewer.sub, 'viewer');
    const { items, cursor } = await follow(viewer.api, repository.id, start);
    const by = owner.sub;
    expect(items).toEqual([
      { type: 'member-added', kind: 'member', id: viewer.sub, role: 'editor', at: expect.any(String), by },
      { type: 'member-changed', kind: 'member', id: viewer.sub, role: 'viewer', at: expect.any(String), by },
    ]);
    await removeMember(owner.api, repository.id, viewer.sub);
    expect((await follow(owner.api, repository.id, cursor)).items).toEqual([
      { type: 'member-removed', kind: 'member', id: viewer.sub, role: 'viewer', at: expect.any(String), by },
    ]);
    // No longer a member: the feed is as missing as the repository.
    expectProblem(await changes(viewer.api, repository.id, cursor), 404);
  });

  it('pages by `limit`; a cursor names a position: used again it answers the same; an empty page carries one', async () => {
    const repository = await newRepository(owner.api);
    const start = await latest(owner.api, repository.id);
    for (let i = 0; i < 5; i++) await postFolder(owner.api, repository.rootFolderId, `f${i}`);
    const all = await follow(owner.api, repository.id, start, 2);
    expect(all.items.map((item) => item.name)).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);

    const first = await changes(owner.api, repository.id, start, 2);
    const again = await changes(owner.api, repository.id, start, 2);
    expect(again.body).toEqual(first.body);
    expect(first.body.items.map((item: Change) => item.name)).toEqual(['f0', 'f1']);
    const rest = await changes(owner.api, repository.id, first.body.cursor, 100);
    expect(rest.body.items.map((item: Change) => item.name)).toEqual(['f2', 'f3', 'f4']);
    expect(rest.body.cursor).toBe(all.cursor);

    // At the end: no items, a cursor; `latest` now is that position.
    const end = await changes(owner.api, repository.id, all.cursor);
    expectJson(end, 200);
    expect(end.body).toEqual({ items: [], cursor: all.cursor });
    expect(await latest(owner.api, repository.id)).toBe(all.cursor);
  });

  it('from `latest`, misses no change committed after it (a change just before may show)', async () => {
    const repository = await newRepository(owner.api);
    await postFolder(owner.api, repository.rootFolderId, 'before');
    // Taken before the worker has numbered "before": it may show after this cursor, or not.
    const start = await latest(owner.api, repository.id);
    await postFolder(owner.api, repository.rootFolderId, 'after');
    const names = (await follow(owner.api, repository.id, start)).items.map((item) => item.name);
    expect(names.at(-1)).toBe('after');
    expect(names.filter((name) => name !== 'before')).toEqual(['after']);
  });

  it('is 400 without a cursor, or with one that was altered or belongs to another feed; limit as lists have it', async () => {
    const repository = await newRepository(owner.api);
    const other = await newRepository(owner.api);
    await postFolder(owner.api, repository.rootFolderId);
    const cursor = (await follow(owner.api, repository.id, await latest(owner.api, repository.id))).cursor;
    const path = `/${repository.id}/changes`;
    expectValidationError(await owner.api.get(path), 'cursor');
    expectValidationError(await owner.api.get(`${path}?cursor=`), 'cursor');
    expectValidationError(await owner.api.get(`${path}?cursor=LATEST`), 'cursor');
    expectValidationError(await owner.api.get(`${path}?cursor=${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`), 'cursor');
    expectValidationError(await owner.api.get(`${path}?cursor=x${cursor}`), 'cursor');
    expectValidationError(await changes(owner.api, other.id, cursor), 'cursor');
    // A list's nextToken is no cursor.
    for (let i = 0; i < 2; i++) await newFolder(owner.api, other.rootFolderId);
    const token = ensure(await owner.api.get(`/folder/${other.rootFolderId}/folders?limit=1`), 200).body.nextToken;
    expectValidationError(await changes(owner.api, other.id, token), 'cursor');
    for (const limit of ['0', '101', '1.5', 'x'])
      expectValidationError(await owner.api.get(`${path}?cursor=latest&limit=${limit}`), 'limit');
    expectValidationError(await owner.api.get('/a%20b/changes?cursor=latest'), 'id');
  });

  it('is 404 for a repository that does not exist or that the caller is not a member of', async () => {
    const repository = await newRepository(owner.api);
    const cursor = await latest(owner.api, repository.id);
    expectProblem(await changes(stranger.api, repository.id, 'latest'), 404);
    expectProblem(await changes(stranger.api, repository.id, cursor), 404);
    expectProblem(await changes(owner.api, 'no-such-repository', 'latest'), 404);
    const folder = await newFolder(owner.api, repository.rootFolderId);
    expectProblem(await changes(owner.api, folder.id, 'latest'), 404); // a folder's id names no repository
  });

  it('is 410 for a cursor older than the feed keeps; from `latest` again, it goes on', async () => {
    const repository = await newRepository(owner.api);
    const start = await latest(owner.api, repository.id);
    for (let i = 0; i < 4; i++) await postFolder(owner.api, repository.rootFolderId, `old${i}`);
    const { items } = await follow(owner.api, repository.id, start);
    expect(items).toHaveLength(4);
    const middle = (await changes(owner.api, repository.id, start, 2)).body.cursor;
    // What DynamoDB's TTL does 31 days after a change: the first two go.
    for (const seq of [1, 2]) await db().send(new DeleteCommand({ TableName: tableName(), Key: sequencedChangeKey(repository.id, seq) }));

    const expired = await changes(owner.api, repository.id, start);
    expectProblem(expired, 410, 'urn:problem-type:documents:cursor-expired');
    // A cursor after the gap still works.
    expect((await changes(owner.api, repository.id, middle)).body.items.map((item: Change) => item.name)).toEqual(['old2', 'old3']);
    const fresh = await latest(owner.api, repository.id);
    await postFolder(owner.api, repository.rootFolderId, 'new');
    expect((await follow(owner.api, repository.id, fresh)).items.map((item) => item.name)).toEqual(['new']);
  });
});

describe('events', () => {
  it('publishes every change the feed shows, with the same fields, its repository and number', async () => {
    const repository = await newRepository(owner.api);
    const start = await latest(owner.api, repository.id);
    const folder = await postFolder(owner.api, repository.rootFolderId, 'Events');
    const document = await postDocument(owner.api, folder.id, { name: 'e.md' });
    ensure(await owner.api.put('/document', { id: document.id, folderId: repository.rootFolderId }), 200);
    await setRole(owner.api, repository.id, viewer.sub, 'viewer');
    ensure(await owner.api.delete(`/document/${document.id}`), 204);

    const { items } = await follow(owner.api, repository.id, start);
    expect(items.map((item) => item.type)).toEqual(['created', 'created', 'moved', 'member-added', 'deleted']);
    await svc.worker.settled();
    const published = events
      .map((event) => ({ event, detail: JSON.parse(event.Detail) as Change & { repositoryId: string; seq: number } }))
      .filter(({ detail }) => detail.repositoryId === repository.id);
    // At least once: a retried batch may publish a change again; (repositoryId, seq) names it.
    const bySeq = new Map(published.map((p) => [p.detail.seq, p]));
    const first = Math.min(...bySeq.keys());
    expect([...bySeq.keys()].sort((a, b) => a - b)).toEqual(items.map((_, i) => first + i));
    for (const [i, change] of items.entries()) {
      const { event, detail } = bySeq.get(first + i)!;
      const { repositoryId, seq, ...fields } = detail;
      expect(fields).toEqual(change);
      expect(event).toMatchObject({ Source: 'documents.service', DetailType: change.type });
      expect(event.Time.toISOString()).toBe(change.at);
    }
  });
});
