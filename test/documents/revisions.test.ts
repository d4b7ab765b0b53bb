/**
 * Revisions (docs/api.md: Revisions): every version of a document is one, listed newest first
 * in pages, read one at a time with its content, and restored as a new version. Every status of
 * the three endpoints, through the typed client (every answer checked against openapi.json).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contentKey, documentKey, revisionKey } from '#core/items/keys';
import { routes } from '#functions/routes';
import { rawItem } from '#test/support/dynamodb';
import { useServiceWithRoles } from '#test/support/fixture';
import {
  Api,
  type Document,
  ensure,
  expectJson,
  expectProblem,
  expectValidationError,
  getDocument,
  listAll,
  newDocument,
  newFolder,
} from '#test/support/http';

const ctx = useServiceWithRoles();

const list = (api: Api, id: string, query: { limit?: number; nextToken?: string } = {}) =>
  Api.from(`GET /document/${id}/revisions`, api.client.GET('/document/{id}/revisions', { params: { path: { id }, query } }));
const read = (api: Api, id: string, version: number) =>
  Api.from(
    `GET /document/${id}/revisions/${version}`,
    api.client.GET('/document/{id}/revisions/{version}', { params: { path: { id, version: String(version) } } }),
  );
const restore = (api: Api, id: string, version: number, ifMatch?: string) =>
  Api.from(
    `POST /document/${id}/revisions/${version}/restore`,
    api.client.POST('/document/{id}/revisions/{version}/restore', {
      params: { path: { id, version: String(version) } },
      ...(ifMatch ? { headers: { 'If-Match': ifMatch } } : {}),
    }),
  );
const put = async (api: Api, body: { id: string; name?: string; content?: string; contentType?: string; folderId?: string }) =>
  ensure(await Api.from('PUT /document', api.client.PUT('/document', { body })), 200).body as Document;

/** A document with five versions: created, content, rename, content type, content. */
async function documentWithHistory(): Promise<Document> {
  const api = ctx.owner.api;
  const created = await newDocument(api, ctx.repo.rootFolderId, { name: 'notes.md', content: 'one', contentType: 'text/plain' });
  ensure(await api.put('/document', { id: created.id, content: 'two' }), 200);
  ensure(await api.put('/document', { id: created.id, name: `renamed-${created.id}.md` }), 200);
  ensure(await api.put('/document', { id: created.id, contentType: 'text/markdown' }), 200);
  ensure(await ctx.editor.api.put('/document', { id: created.id, content: 'five' }), 200);
  return getDocument(api, created.id);
}

describe('GET /document/{id}/revisions', () => {
  it('lists every version, the current one included, newest first, without content', async () => {
    const document = await documentWithHistory();
    const res = await list(ctx.viewer.api, document.id);
    expectJson(res, 200);
    expect(res.body.nextToken).toBeUndefined();
    const items = res.body.items as Record<string, unknown>[];
    expect(items.map((r) => r.version)).toEqual([5, 4, 3, 2, 1]);
    expect(items[0]).toEqual({
      version: 5,
      name: document.name,
      contentType: 'text/markdown',
      storage: 'inline',
      size: 4,
      sha256: createHash('sha256').update('five').digest('hex'),
      updatedAt: document.updatedAt,
      updatedBy: ctx.editor.sub,
    });
    expect(items.map((r) => [r.name, r.contentType, r.size])).toEqual([
      [document.name, 'text/markdown', 4],
      [document.name, 'text/markdown', 3],
      [document.name, 'text/plain', 3],
      ['notes.md', 'text/plain', 3],
      ['notes.md', 'text/plain', 3],
    ]);
    for (const item of items) expect(item).not.toHaveProperty('content');
  });

  it('pages newest first with nextToken, each revision once; a token of another list is 400', async () => {
    const document = await documentWithHistory();
    const { pages, tokens } = await listAll<{ version: number }>(ctx.viewer.api, `/document/${document.id}/revisions`, 2);
    expect(pages.map((page) => page.map((r) => r.version))).toEqual([[5, 4], [3, 2], [1]]);
    const other = await documentWithHistory();
    expectValidationError(await list(ctx.owner.api, other.id, { limit: 2, nextToken: tokens[0]! }), 'nextToken');
    expectValidationError(await list(ctx.owner.api, document.id, { nextToken: `${tokens[0]!.slice(0, -2)}xx` }), 'nextToken');
    // A folder list's token is not a revision list's.
    const folderPage = ensure(await ctx.owner.api.get(`/folder/${ctx.repo.rootFolderId}/documents?limit=1`), 200).body;
    expect(folderPage.nextToken).toBeDefined();
    expectValidationError(await list(ctx.owner.api, document.id, { nextToken: folderPage.nextToken }), 'nextToken');
    expectValidationError(await ctx.owner.api.get(`/document/${document.id}/revisions?limit=0`), 'limit');
    expectValidationError(await ctx.owner.api.get('/document/a%20b/revisions'), 'id');
  });

  it('is 404 for a document that does not exist or that the caller may not see', async () => {
    const document = await newDocument(ctx.owner.api, ctx.repo.rootFolderId);
    expectProblem(await list(ctx.stranger.api, document.id), 404);
    expectProblem(await list(ctx.owner.api, 'no-such-document'), 404);
    expectProblem(await list(ctx.owner.api, ctx.repo.rootFolderId), 404); // a folder's id names no document
  });
});

describe('GET /document/{id}/revisions/{version}', () => {
  it('answers each version with the content it had, renames included (their content is not copied)', async () => {
    const document = await documentWithHistory();
    const contents = ['one', 'two', 'two', 'two', 'five'];
    for (const [i, content] of contents.entries()) {
      const res = await read(ctx.viewer.api, document.id, i + 1);
      expectJson(res, 200);
      expect(res.body).toMatchObject({ version: i + 1, content, size: content.length });
      expect(res.headers.get('etag')).toBeNull(); // a revision is not the document
    }
    expect((await read(ctx.owner.api, document.id, 3)).body).toMatchObject({ name: document.name, contentType: 'text/plain' });
    // Leading zeros are the same number.
    expect((await ctx.owner.api.get(`/document/${document.id}/revisions/0002`)).body).toMatchObject({ version: 2, content: 'two' });
  });

  it('is 400 for a version that is not a positive whole number, 404 for one the document never had', async () => {
    const document = await newDocument(ctx.owner.api, ctx.repo.rootFolderId, { content: 'x' });
    for (const version of ['0', '-1', '1.5', 'abc', '1e3', '%201'])
      expectValidationError(await ctx.owner.api.get(`/document/${document.id}/revisions/${version}`), 'version');
    expectProblem(await read(ctx.owner.api, document.id, 2), 404);
    expectProblem(await ctx.owner.api.get(`/document/${document.id}/revisions/${'9'.repeat(40)}`), 404);
    expectProblem(await read(ctx.stranger.api, document.id, 1), 404);
    expectProblem(await read(ctx.owner.api, 'no-such-document', 1), 404);
  });
});

describe('POST /document/{id}/revisions/{version}/restore', () => {
  it('makes a new version with the content and content type of the old one; name and folder stay', async () => {
    const document = await documentWithHistory();
    const folder = await newFolder(ctx.owner.api, ctx.repo.rootFolderId);
    const moved = await put(ctx.owner.api, { id: document.id, folderId: folder.id }); // version 6
    expect(moved.version).toBe(6);
    const res = await restore(ctx.editor.api, document.id, 1, '"6"');
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"7"');
    expect(res.body).toMatchObject({
      id: document.id,
      version: 7,
      content: 'one',
      contentType: 'text/plain',
      size: 3,
      name: document.name,
      folderId: folder.id,
      updatedBy: ctx.editor.sub,
    });
    expect(await getDocument(ctx.owner.api, document.id)).toEqual(res.body);
    // The restore is a revision like any version; the old one is still there.
    expect((await read(ctx.owner.api, document.id, 7)).body).toMatchObject({ version: 7, content: 'one', contentType: 'text/plain' });
    expect((await read(ctx.owner.api, document.id, 1)).body).toMatchObject({ version: 1, content: 'one' });
    expect((await list(ctx.owner.api, document.id)).body.items.map((r: { version: number }) => r.version)).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  it('restores the current version too (a new version, same content), and without If-Match', async () => {
    const document = await newDocument(ctx.owner.api, ctx.repo.rootFolderId, { content: 'same' });
    const res = await restore(ctx.owner.api, document.id, 1);
    expectJson(res, 200);
    expect(res.body).toMatchObject({ version: 2, content: 'same' });
    expect((await read(ctx.owner.api, document.id, 2)).body).toMatchObject({ content: 'same' });
  });

  it('is 412 when If-Match does not match, and changes nothing', async () => {
    const document = await documentWithHistory();
    expectProblem(await restore(ctx.owner.api, document.id, 1, '"4"'), 412);
    expectProblem(await restore(ctx.owner.api, document.id, 1, 'W/"5"'), 412);
    expect(await getDocument(ctx.owner.api, document.id)).toMatchObject({ version: 5, content: 'five' });
    expectValidationError(
      await ctx.owner.api.request('POST', `/document/${document.id}/revisions/1/restore`, { headers: { 'If-Match': '5' } }),
      'If-Match',
    );
  });

  it('is 403 for a viewer, before If-Match, and changes nothing', async () => {
    const document = await documentWithHistory();
    expectProblem(await restore(ctx.viewer.api, document.id, 1), 403);
    expectProblem(await restore(ctx.viewer.api, document.id, 1, '"1"'), 403);
    expect(await getDocument(ctx.owner.api, document.id)).toMatchObject({ version: 5 });
  });

  it('is 404 for a document or revision that is not there, or not visible, whatever If-Match says', async () => {
    const document = await newDocument(ctx.owner.api, ctx.repo.rootFolderId);
    expectProblem(await restore(ctx.owner.api, document.id, 2), 404);
    expectProblem(await restore(ctx.viewer.api, document.id, 2), 404);
    expectProblem(await restore(ctx.stranger.api, document.id, 1, '"9"'), 404);
    expectProblem(await restore(ctx.owner.api, 'no-such-document', 1), 404);
    expectValidationError(await ctx.owner.api.post(`/document/${document.id}/revisions/0/restore`, undefined), 'version');
    expect(await getDocument(ctx.owner.api, document.id)).toMatchObject({ version: 1 });
  });
});

describe('a document in the trash', () => {
  it('keeps its revisions, and shows none while it is there (404)', async () => {
    const document = await documentWithHistory();
    ensure(await ctx.owner.api.delete(`/document/${document.id}`), 204);
    expectProblem(await list(ctx.owner.api, document.id), 404);
    expectProblem(await read(ctx.owner.api, document.id, 1), 404);
    expectProblem(await restore(ctx.owner.api, document.id, 1), 404);
    // The older versions' revision items; the current one's is the document item.
    for (const version of [1, 2, 4]) expect(await rawItem(revisionKey(document.id, version))).toMatchObject({ version });
    expect(await rawItem(documentKey(document.id))).toMatchObject({ version: 5 });
    expect(await rawItem(contentKey(document.id, 2))).toMatchObject({ content: 'two' });
    // Restoring it from the trash brings them back (once the trash has that endpoint).
    if (routes.some((route) => route.path === '/{id}/trash/{itemId}/restore')) {
      ensure(await ctx.owner.api.post(`/${ctx.repo.id}/trash/${document.id}/restore`, {}), 200);
      expect((await list(ctx.owner.api, document.id)).body.items).toHaveLength(5);
      expect((await read(ctx.owner.api, document.id, 2)).body).toMatchObject({ content: 'two' });
    }
  });
});
