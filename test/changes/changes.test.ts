/**
 * The change feed (docs/api.md: Change feed): `GET /{id}/changes` from `latest`, following the
 * cursor; every status of the endpoint. And the events the worker publishes (EventBridge on AWS,
 * `svc.worker.onEvent` here): the same changes as the feed, with the same mapping.
 *
 * Every write whose change a test reads is sent once (`postFolder`, `postDocument`, plain
 * requests): a fixture's resend after a 503 could hide a second change, or the first one.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '#core/db/client';
import { sequencedChangeKey } from '#core/items/keys';
import type { ChangeEvent } from '#functions/worker/events';
import { useService } from '#test/support/fixture';
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
} from '#test/support/http';

const events: ChangeEvent[] = [];
const ctx = useService({
  seed: async (svc) => {
    const [owner, viewer, stranger] = await Promise.all([newUser(svc), newUser(svc), newUser(svc)]);
    svc.worker.onEvent((event) => events.push(event));
    return { owner, viewer, stranger };
  },
});

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
  await ctx.svc.worker.settled();
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
    const repository = await newRepository(ctx.owner.api);
    const root = repository.rootFolderId;
    const start = await latest(ctx.owner.api, repository.id);

    const folder = await postFolder(ctx.owner.api, root, 'Drafts');
    const document = await postDocument(ctx.owner.api, root, { name: 'a.md', content: 'one' });
    ensure(await ctx.owner.api.put('/document', { id: document.id, content: 'two' }), 200);
    ensure(await ctx.owner.api.put('/document', { id: document.id, name: 'b.md' }), 200);
    ensure(await ctx.owner.api.put('/document', { id: document.id, folderId: folder.id, name: 'c.md' }), 200);
    ensure(await ctx.owner.api.post(`/document/${document.id}/revisions/1/restore`, undefined), 200);
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);

    const { items } = await follow(ctx.owner.api, repository.id, start);
    const by = ctx.owner.sub;
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
    const repository = await newRepository(ctx.owner.api);
    const start = await latest(ctx.owner.api, repository.id);
    await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'editor');
    await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'viewer');
    const { items, cursor } = await follow(ctx.viewer.api, repository.id, start);
    const by = ctx.owner.sub;
    expect(items).toEqual([
      { type: 'member-added', kind: 'member', id: ctx.viewer.sub, role: 'editor', at: expect.any(String), by },
      { type: 'member-changed', kind: 'member', id: ctx.viewer.sub, role: 'viewer', at: expect.any(String), by },
    ]);
    await removeMember(ctx.owner.api, repository.id, ctx.viewer.sub);
    expect((await follow(ctx.owner.api, repository.id, cursor)).items).toEqual([
      { type: 'member-removed', kind: 'member', id: ctx.viewer.sub, role: 'viewer', at: expect.any(String), by },
    ]);
    // No longer a member: the feed is as missing as the repository.
    expectProblem(await changes(ctx.viewer.api, repository.id, cursor), 404);
  });

  it('pages by `limit`; a cursor names a position: used again it answers the same; an empty page carries one', async () => {
    const repository = await newRepository(ctx.owner.api);
    const start = await latest(ctx.owner.api, repository.id);
    for (let i = 0; i < 5; i++) await postFolder(ctx.owner.api, repository.rootFolderId, `f${i}`);
    const all = await follow(ctx.owner.api, repository.id, start, 2);
    expect(all.items.map((item) => item.name)).toEqual(['f0', 'f1', 'f2', 'f3', 'f4']);

    const first = await changes(ctx.owner.api, repository.id, start, 2);
    const again = await changes(ctx.owner.api, repository.id, start, 2);
    expect(again.body).toEqual(first.body);
    expect(first.body.items.map((item: Change) => item.name)).toEqual(['f0', 'f1']);
    const rest = await changes(ctx.owner.api, repository.id, first.body.cursor, 100);
    expect(rest.body.items.map((item: Change) => item.name)).toEqual(['f2', 'f3', 'f4']);
    expect(rest.body.cursor).toBe(all.cursor);

    // At the end: no items, a cursor; `latest` now is that position.
    const end = await changes(ctx.owner.api, repository.id, all.cursor);
    expectJson(end, 200);
    expect(end.body).toEqual({ items: [], cursor: all.cursor });
    expect(await latest(ctx.owner.api, repository.id)).toBe(all.cursor);
  });

  it('from `latest`, misses no change committed after it (a change just before may show)', async () => {
    const repository = await newRepository(ctx.owner.api);
    await postFolder(ctx.owner.api, repository.rootFolderId, 'before');
    // Taken before the worker has numbered "before": it may show after this cursor, or not.
    const start = await latest(ctx.owner.api, repository.id);
    await postFolder(ctx.owner.api, repository.rootFolderId, 'after');
    const names = (await follow(ctx.owner.api, repository.id, start)).items.map((item) => item.name);
    expect(names.at(-1)).toBe('after');
    expect(names.filter((name) => name !== 'before')).toEqual(['after']);
  });

  it('is 400 without a cursor, or with one that was altered or belongs to another feed; limit as lists have it', async () => {
    const repository = await newRepository(ctx.owner.api);
    const other = await newRepository(ctx.owner.api);
    await postFolder(ctx.owner.api, repository.rootFolderId);
    const cursor = (await follow(ctx.owner.api, repository.id, await latest(ctx.owner.api, repository.id))).cursor;
    const path = `/${repository.id}/changes`;
    expectValidationError(await ctx.owner.api.get(path), 'cursor');
    expectValidationError(await ctx.owner.api.get(`${path}?cursor=`), 'cursor');
    expectValidationError(await ctx.owner.api.get(`${path}?cursor=LATEST`), 'cursor');
    expectValidationError(await ctx.owner.api.get(`${path}?cursor=${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`), 'cursor');
    expectValidationError(await ctx.owner.api.get(`${path}?cursor=x${cursor}`), 'cursor');
    expectValidationError(await changes(ctx.owner.api, other.id, cursor), 'cursor');
    // A list's nextToken is no cursor.
    for (let i = 0; i < 2; i++) await newFolder(ctx.owner.api, other.rootFolderId);
    const token = ensure(await ctx.owner.api.get(`/folder/${other.rootFolderId}/folders?limit=1`), 200).body.nextToken;
    expectValidationError(await changes(ctx.owner.api, other.id, token), 'cursor');
    for (const limit of ['0', '101', '1.5', 'x'])
      expectValidationError(await ctx.owner.api.get(`${path}?cursor=latest&limit=${limit}`), 'limit');
    expectValidationError(await ctx.owner.api.get('/a%20b/changes?cursor=latest'), 'id');
  });

  it('is 404 for a repository that does not exist or that the caller is not a member of', async () => {
    const repository = await newRepository(ctx.owner.api);
    const cursor = await latest(ctx.owner.api, repository.id);
    expectProblem(await changes(ctx.stranger.api, repository.id, 'latest'), 404);
    expectProblem(await changes(ctx.stranger.api, repository.id, cursor), 404);
    expectProblem(await changes(ctx.owner.api, 'no-such-repository', 'latest'), 404);
    const folder = await newFolder(ctx.owner.api, repository.rootFolderId);
    expectProblem(await changes(ctx.owner.api, folder.id, 'latest'), 404); // a folder's id names no repository
  });

  it('is 410 for a cursor older than the feed keeps; from `latest` again, it goes on', async () => {
    const repository = await newRepository(ctx.owner.api);
    const start = await latest(ctx.owner.api, repository.id);
    for (let i = 0; i < 4; i++) await postFolder(ctx.owner.api, repository.rootFolderId, `old${i}`);
    const { items } = await follow(ctx.owner.api, repository.id, start);
    expect(items).toHaveLength(4);
    const middle = (await changes(ctx.owner.api, repository.id, start, 2)).body.cursor;
    // What DynamoDB's TTL does 31 days after a change: the first two go.
    for (const seq of [1, 2]) await db().send(new DeleteCommand({ TableName: tableName(), Key: sequencedChangeKey(repository.id, seq) }));

    const expired = await changes(ctx.owner.api, repository.id, start);
    expectProblem(expired, 410, 'urn:problem-type:documents:cursor-expired');
    // A cursor after the gap still works.
    expect((await changes(ctx.owner.api, repository.id, middle)).body.items.map((item: Change) => item.name)).toEqual(['old2', 'old3']);
    const fresh = await latest(ctx.owner.api, repository.id);
    await postFolder(ctx.owner.api, repository.rootFolderId, 'new');
    expect((await follow(ctx.owner.api, repository.id, fresh)).items.map((item) => item.name)).toEqual(['new']);
  });
});

describe('events', () => {
  it('publishes every change the feed shows, with the same fields, its repository and number', async () => {
    const repository = await newRepository(ctx.owner.api);
    const start = await latest(ctx.owner.api, repository.id);
    const folder = await postFolder(ctx.owner.api, repository.rootFolderId, 'Events');
    const document = await postDocument(ctx.owner.api, folder.id, { name: 'e.md' });
    ensure(await ctx.owner.api.put('/document', { id: document.id, folderId: repository.rootFolderId }), 200);
    await setRole(ctx.owner.api, repository.id, ctx.viewer.sub, 'viewer');
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);

    const { items } = await follow(ctx.owner.api, repository.id, start);
    expect(items.map((item) => item.type)).toEqual(['created', 'created', 'moved', 'member-added', 'deleted']);
    await ctx.svc.worker.settled();
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
