import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServiceWithOwner } from '#test/support/fixture';
import {
  type Document,
  expectJson,
  expectProblem,
  expectRecentTime,
  expectValidationError,
  getDocument,
  listAll,
  locationPath,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  randomId,
  uniqueName,
} from '#test/support/http';

const ctx = useServiceWithOwner();

const freshFolder = () => newFolder(ctx.user.api, ctx.repo.rootFolderId);
const withoutContent = (doc: Document): Omit<Document, 'content'> => {
  const copy: Partial<Document> = { ...doc };
  delete copy.content;
  return copy as Omit<Document, 'content'>;
};
const put = (body: Record<string, unknown>, headers?: Record<string, string>) => ctx.user.api.put('/document', body, headers);

describe('POST /document', () => {
  it('creates a document: 201, Location, ETag, every field', async () => {
    const folder = await freshFolder();
    const res = await ctx.user.api.post('/document', {
      folderId: folder.id,
      name: 'Notes.md',
      content: 'h\u00e9llo',
      contentType: 'text/markdown; charset=utf-8',
    });

    expectJson(res, 201);
    const doc = res.body as Document;
    expect(doc).toEqual({
      // Service-made document ids carry their repository, like folder ids (functions/core/ids.ts).
      id: expect.stringMatching(new RegExp(`^${ctx.repo.id}[A-Za-z0-9_-]{22}$`)),
      repositoryId: ctx.repo.id,
      folderId: folder.id,
      name: 'Notes.md',
      contentType: 'text/markdown; charset=utf-8',
      storage: 'inline',
      content: 'h\u00e9llo',
      size: 6, // "héllo" is 6 bytes of UTF-8, 5 characters
      sha256: createHash('sha256').update('h\u00e9llo', 'utf8').digest('hex'),
      version: 1,
      createdAt: expect.any(String),
      createdBy: ctx.user.sub,
      updatedAt: expect.any(String),
      updatedBy: ctx.user.sub,
    });
    expect(locationPath(res)).toBe(`/document/${doc.id}`);
    expect(res.headers.get('etag')).toBe('"1"');
    expectRecentTime(doc.createdAt);
    expectRecentTime(doc.updatedAt);
  });

  it('defaults contentType to text/plain; charset=utf-8 and content to ""', async () => {
    const folder = await freshFolder();
    const res = await ctx.user.api.post('/document', { folderId: folder.id, name: 'empty' });
    expectJson(res, 201);
    expect(res.body).toMatchObject({ contentType: 'text/plain; charset=utf-8', content: '', size: 0, version: 1 });
  });

  it('counts size in UTF-8 bytes', async () => {
    const folder = await freshFolder();
    const cases: [string, number][] = [
      ['abc', 3],
      ['h\u00e9llo', 6],
      ['\u20ac', 3],
      ['\u{1F600}', 4],
      ['e\u0301', 3],
    ];
    for (const [content, size] of cases) {
      const doc = await newDocument(ctx.user.api, folder.id, { content });
      expect(doc.size, JSON.stringify(content)).toBe(size);
      expect(doc.content).toBe(content); // content is stored as sent, never normalised
    }
  });

  it('stores the name trimmed and in NFC', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: '  re\u0301sume\u0301.txt ' });
    expect(doc.name).toBe('r\u00e9sum\u00e9.txt');
  });

  it('accepts a client-supplied id, and answers 409 when that id exists', async () => {
    const folder = await freshFolder();
    const other = await freshFolder();
    const id = `client_${randomId().slice(0, 10)}-x`;
    const res = await ctx.user.api.post('/document', { id, folderId: folder.id, name: 'mine' });
    expectJson(res, 201);
    expect(res.body.id).toBe(id);
    expect(locationPath(res)).toBe(`/document/${id}`);

    expectProblem(await ctx.user.api.post('/document', { id, folderId: folder.id, name: 'another name' }), 409);
    expectProblem(await ctx.user.api.post('/document', { id, folderId: other.id, name: 'mine' }), 409);
    expect(await getDocument(ctx.user.api, id)).toEqual(res.body);
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['mine']);
    expect(await namesIn(ctx.user.api, other.id, 'documents')).toEqual([]);
  });

  it('accepts a client-supplied id of 64 characters', async () => {
    const folder = await freshFolder();
    const id = randomId().padEnd(64, '_');
    const doc = await newDocument(ctx.user.api, folder.id, { id });
    expect(doc.id).toBe(id);
    expect((await getDocument(ctx.user.api, id)).id).toBe(id);
  });

  it('leaves no trace of a create that failed: the id and the name stay free', async () => {
    const folder = await freshFolder();
    await newDocument(ctx.user.api, folder.id, { name: 'taken' });
    const id = randomId();
    expectProblem(await ctx.user.api.post('/document', { id, folderId: folder.id, name: 'TAKEN' }), 409);
    expectProblem(await ctx.user.api.get(`/document/${id}`), 404);
    expectProblem(await ctx.user.api.post('/document', { id, folderId: randomId(), name: 'x' }), 404);
    expectProblem(await ctx.user.api.get(`/document/${id}`), 404);
    const doc = await newDocument(ctx.user.api, folder.id, { id, name: 'free' });
    expect(doc.id).toBe(id);
  });
});

describe('GET /document/{id}', () => {
  it('returns the document with its ETag', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { content: 'body' });
    const res = await ctx.user.api.get(`/document/${doc.id}`);
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"1"');
    expect(res.body).toEqual(doc);
  });
});

describe('GET /folder/{id}/documents', () => {
  it('lists documents directly in the folder, with every field but content', async () => {
    const folder = await freshFolder();
    const sub = await newFolder(ctx.user.api, folder.id, 'sub');
    const b = await newDocument(ctx.user.api, folder.id, { name: 'b', content: 'bbb' });
    const a = await newDocument(ctx.user.api, folder.id, { name: 'A', content: 'aa', contentType: 'text/csv' });
    await newDocument(ctx.user.api, sub.id, { name: 'deeper' });

    const res = await ctx.user.api.get(`/folder/${folder.id}/documents`);
    expectJson(res, 200);
    expect(res.body).toEqual({ items: [withoutContent(a), withoutContent(b)] });
    expect(res.body.items[0]).not.toHaveProperty('content');
  });
});

describe('PUT /document', () => {
  it('changes only the fields sent, bumps version, updatedAt and updatedBy, and sends the ETag', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: 'keep', content: 'old', contentType: 'text/markdown' });
    await new Promise((r) => setTimeout(r, 5));

    const res = await put({ id: doc.id, content: 'h\u00e9llo' });
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"2"');
    expect(res.body).toEqual({
      ...doc,
      content: 'h\u00e9llo',
      size: 6,
      sha256: createHash('sha256').update('h\u00e9llo', 'utf8').digest('hex'),
      version: 2,
      updatedAt: expect.any(String),
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(doc.updatedAt));
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(res.body);

    const ct = await put({ id: doc.id, contentType: 'application/json' });
    expect(ct.body).toMatchObject({ name: 'keep', content: 'h\u00e9llo', contentType: 'application/json', version: 3 });
  });

  it('"touches" a document when only the id is sent', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { content: 'same' });
    const res = await put({ id: doc.id });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ content: 'same', name: doc.name, version: 2 });
    expect(res.headers.get('etag')).toBe('"2"');
  });

  it('counts an update that sends the stored values as an update', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { content: 'same' });
    await new Promise((r) => setTimeout(r, 5));
    const res = await put({ id: doc.id, name: doc.name, content: 'same', contentType: doc.contentType, folderId: folder.id });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ name: doc.name, folderId: folder.id, version: 2, updatedBy: ctx.user.sub });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(doc.updatedAt));
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([doc.name]);
  });

  it('renames: the listing shows the new name and the old name is free again', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: 'before' });
    const res = await put({ id: doc.id, name: ' after ' });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ name: 'after', version: 2 });
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['after']);
    await newDocument(ctx.user.api, folder.id, { name: 'BEFORE' });
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['after', 'BEFORE']);
  });

  it('renames to another case of its own name', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: 'readme' });
    const res = await put({ id: doc.id, name: 'README' });
    expectJson(res, 200);
    expect(res.body.name).toBe('README');
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['README']);
    expectProblem(await ctx.user.api.post('/document', { folderId: folder.id, name: 'ReadMe' }), 409);
  });

  it('rejects a rename onto a sibling document or folder: 409, nothing changes', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: 'one' });
    await newDocument(ctx.user.api, folder.id, { name: 'Two' });
    await newFolder(ctx.user.api, folder.id, 'Three');

    expectProblem(await put({ id: doc.id, name: 'two' }), 409);
    expectProblem(await put({ id: doc.id, name: 'THREE', content: 'changed' }), 409);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['one', 'Two']);
  });

  it('moves a document to another folder of the same repository', async () => {
    const from = await freshFolder();
    const to = await freshFolder();
    const doc = await newDocument(ctx.user.api, from.id, { name: 'Mover', content: 'c' });

    const res = await put({ id: doc.id, folderId: to.id });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ folderId: to.id, repositoryId: ctx.repo.id, name: 'Mover', content: 'c', version: 2 });
    expect(await namesIn(ctx.user.api, from.id, 'documents')).toEqual([]);
    expect(await namesIn(ctx.user.api, to.id, 'documents')).toEqual(['Mover']);
    // the name is free in the old folder and taken in the new one
    await newDocument(ctx.user.api, from.id, { name: 'mover' });
    expectProblem(await ctx.user.api.post('/folder', { parentId: to.id, name: 'MOVER' }), 409);
  });

  it('moves and renames in one request', async () => {
    const from = await freshFolder();
    const to = await freshFolder();
    const doc = await newDocument(ctx.user.api, from.id, { name: 'old' });
    const res = await put({ id: doc.id, folderId: to.id, name: 'new' });
    expectJson(res, 200);
    expect(await namesIn(ctx.user.api, from.id, 'documents')).toEqual([]);
    expect(await namesIn(ctx.user.api, to.id, 'documents')).toEqual(['new']);
  });

  it('moves a document into the root folder', async () => {
    const from = await freshFolder();
    const doc = await newDocument(ctx.user.api, from.id);
    const res = await put({ id: doc.id, folderId: ctx.repo.rootFolderId });
    expectJson(res, 200);
    expect(res.body.folderId).toBe(ctx.repo.rootFolderId);
    expect(await namesIn(ctx.user.api, ctx.repo.rootFolderId, 'documents')).toContain(doc.name);
    expect(await namesIn(ctx.user.api, from.id, 'documents')).toEqual([]);
  });

  it('rejects a move into a folder where the name is taken: 409, nothing changes', async () => {
    const from = await freshFolder();
    const to = await freshFolder();
    const doc = await newDocument(ctx.user.api, from.id, { name: 'dup' });
    await newFolder(ctx.user.api, to.id, 'DUP');
    expectProblem(await put({ id: doc.id, folderId: to.id }), 409);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await namesIn(ctx.user.api, from.id, 'documents')).toEqual(['dup']);
    expect(await namesIn(ctx.user.api, to.id, 'documents')).toEqual([]);
  });

  it("rejects a move into another of the caller's repositories: 400 on folderId", async () => {
    const from = await freshFolder();
    const elsewhere = await newRepository(ctx.user.api);
    const doc = await newDocument(ctx.user.api, from.id);
    expectValidationError(await put({ id: doc.id, folderId: elsewhere.rootFolderId }), 'folderId');
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await namesIn(ctx.user.api, elsewhere.rootFolderId, 'documents')).toEqual([]);
  });

  it('answers 404 for a move into a folder the caller cannot see or that does not exist', async () => {
    const stranger = await newUser(ctx.svc);
    const theirs = await newRepository(stranger.api);
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id);
    expectProblem(await put({ id: doc.id, folderId: theirs.rootFolderId }), 404);
    expectProblem(await put({ id: doc.id, folderId: randomId() }), 404);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await namesIn(stranger.api, theirs.rootFolderId, 'documents')).toEqual([]);
  });

  it('answers 404 for an unknown document', async () => {
    expectProblem(await put({ id: randomId(), content: 'x' }), 404);
  });
});

describe('preconditions', () => {
  /** A document at version 2, so that "1" is stale and "2" is current. */
  async function atVersion2(): Promise<Document> {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { content: 'v1' });
    const res = await put({ id: doc.id, content: 'v2' });
    expect(res.body.version).toBe(2);
    return res.body as Document;
  }

  it('applies a PUT whose If-Match matches', async () => {
    const doc = await atVersion2();
    const res = await put({ id: doc.id, content: 'v3' }, { 'If-Match': '"2"' });
    expectJson(res, 200);
    expect(res.body.version).toBe(3);
    expect(res.headers.get('etag')).toBe('"3"');
  });

  it('rejects a PUT whose If-Match does not match: 412, nothing changes', async () => {
    const doc = await atVersion2();
    expectProblem(await put({ id: doc.id, content: 'lost' }, { 'If-Match': '"1"' }), 412);
    expectProblem(await put({ id: doc.id, content: 'lost' }, { 'If-Match': '"3"' }), 412);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
  });

  it('checks version in the body like If-Match', async () => {
    const doc = await atVersion2();
    expectProblem(await put({ id: doc.id, content: 'lost', version: 1 }), 412);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    const res = await put({ id: doc.id, content: 'v3', version: 2 });
    expectJson(res, 200);
    expect(res.body).toMatchObject({ content: 'v3', version: 3 });
  });

  it('needs both to match when both If-Match and version are sent', async () => {
    const doc = await atVersion2();
    expectProblem(await put({ id: doc.id, content: 'lost', version: 1 }, { 'If-Match': '"2"' }), 412);
    expectProblem(await put({ id: doc.id, content: 'lost', version: 2 }, { 'If-Match': '"1"' }), 412);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expectJson(await put({ id: doc.id, content: 'v3', version: 2 }, { 'If-Match': '"2"' }), 200);
  });

  it('never matches a weak entity tag: 412', async () => {
    const doc = await atVersion2();
    expectProblem(await put({ id: doc.id, content: 'lost' }, { 'If-Match': 'W/"2"' }), 412);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
  });

  it('accepts If-Match: * and a list of tags that includes the current one', async () => {
    const doc = await atVersion2();
    expect((await put({ id: doc.id }, { 'If-Match': '*' })).body.version).toBe(3);
    expect((await put({ id: doc.id }, { 'If-Match': '"9", "3"' })).body.version).toBe(4);
    expectProblem(await put({ id: doc.id }, { 'If-Match': '"1", "2", "3"' }), 412);
  });

  it('rejects a malformed If-Match: 400, nothing changes', async () => {
    const doc = await atVersion2();
    for (const value of ['2', '"2', 'W/2', 'abc']) {
      expectProblem(await put({ id: doc.id, content: 'lost' }, { 'If-Match': value }), 400);
    }
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
  });

  it('answers 404, not 412, for If-Match on a document that does not exist', async () => {
    expectProblem(await put({ id: randomId() }, { 'If-Match': '"1"' }), 404);
    expectProblem(await ctx.user.api.delete(`/document/${randomId()}`, { 'If-Match': '"1"' }), 404);
  });
});

describe('DELETE /document/{id}', () => {
  it('answers 204 with an empty body; the document, its listing entry and its name are gone', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: 'gone' });
    const keep = await newDocument(ctx.user.api, folder.id, { name: 'kept' });

    const res = await ctx.user.api.delete(`/document/${doc.id}`);
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await ctx.user.api.get(`/document/${doc.id}`), 404);
    const { items } = await listAll<Document>(ctx.user.api, `/folder/${folder.id}/documents`);
    expect(items.map((d) => d.id)).toEqual([keep.id]);
    await newDocument(ctx.user.api, folder.id, { name: 'GONE' });
  });

  it('answers 404 to a second DELETE', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id);
    expect((await ctx.user.api.delete(`/document/${doc.id}`)).status).toBe(204);
    expectProblem(await ctx.user.api.delete(`/document/${doc.id}`), 404);
    expectProblem(await put({ id: doc.id, content: 'back?' }), 404);
    expectProblem(await ctx.user.api.get(`/document/${doc.id}`), 404);
  });

  it('honours If-Match: 412 and the document stays on a mismatch, 204 on a match', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(ctx.user.api, folder.id, { name: 'guarded' });
    expectProblem(await ctx.user.api.delete(`/document/${doc.id}`, { 'If-Match': '"2"' }), 412);
    expectProblem(await ctx.user.api.delete(`/document/${doc.id}`, { 'If-Match': 'W/"1"' }), 412);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['guarded']);

    expect((await ctx.user.api.delete(`/document/${doc.id}`, { 'If-Match': '"1"' })).status).toBe(204);
    expectProblem(await ctx.user.api.get(`/document/${doc.id}`), 404);
  });

  it('keeps a client-supplied id taken while its document is in the trash, and frees its name at once', async () => {
    const folder = await freshFolder();
    const id = `reuse-${randomId().slice(0, 8)}`;
    const name = uniqueName();
    await newDocument(ctx.user.api, folder.id, { id, name });
    expect((await ctx.user.api.delete(`/document/${id}`)).status).toBe(204);
    // The trashed document can still be restored under its id: the id stays taken.
    expectProblem(await ctx.user.api.post('/document', { folderId: folder.id, id, name: uniqueName() }), 409);
    expect((await newDocument(ctx.user.api, folder.id, { name })).name).toBe(name);
  });
});
