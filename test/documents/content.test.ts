/**
 * A document's content as bytes (docs/api.md: Files), end to end against DynamoDB Local and the
 * local S3 emulator: GET /document/{id}/content and …/revisions/{version}/content (200 with
 * inline text, 302 to a presigned URL of a file, the safety headers either way), PUT
 * /document/{id}/content (raw bytes become a file version), the moves between inline and file,
 * a file revision restored without a copy, and each repository's usage against its quota.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RAW_CONTENT_BYTES } from '#core/requests';
import { problemOf } from '#test/support/errors';
import { useServiceWithOwner } from '#test/support/fixture';
import {
  type Api,
  type Document,
  ensure,
  expectJson,
  expectProblem,
  getDocument,
  type HttpResponse,
  newDocument,
  newFolder,
  newUser,
  type Repository,
  setRole,
} from '#test/support/http';

const ctx = useServiceWithOwner();

afterEach(() => {
  delete process.env.QUOTA_BYTES;
});

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const content = (api: Api, id: string) => api.request('GET', `/document/${id}/content`, { redirect: 'manual' });
const revisionContent = (api: Api, id: string, version: number) =>
  api.request('GET', `/document/${id}/revisions/${version}/content`, { redirect: 'manual' });
const putContent = (api: Api, id: string, bytes: Uint8Array | string, headers: Record<string, string> = {}) =>
  api.request('PUT', `/document/${id}/content`, { raw: bytes, headers });
const usage = async (api: Api, repositoryId: string) =>
  ensure(await api.get(`/${repositoryId}`), 200).body.usage as { bytes: number; quota: number };

/** The objects the bucket holds for a document. */
async function objectsOf(document: { repositoryId: string; id: string }): Promise<string[]> {
  const listed = await ctx.bucket.send(
    new ListObjectsV2Command({ Bucket: ctx.svc.s3.bucket, Prefix: `files/${document.repositoryId}/${document.id}/` }),
  );
  return (listed.Contents ?? []).map((object) => object.Key!);
}

/** The safety headers every content answer carries (docs/api.md: Files). */
function expectSafetyHeaders(res: HttpResponse, name: string) {
  expect(res.headers.get('content-disposition')).toBe(
    `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\%]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
  );
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('content-security-policy')).toBe('sandbox');
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/** Follows a 302 to the bucket with a plain fetch (no token: the URL is the permission). */
async function download(res: HttpResponse) {
  expect(res.status, `${res.request} → ${res.status} ${res.text}`).toBe(302);
  const location = res.headers.get('location')!;
  expect(location.startsWith(`${ctx.svc.s3.endpoint}/${ctx.svc.s3.bucket}/files/`)).toBe(true);
  const expires = Number(new URL(location).searchParams.get('X-Amz-Expires'));
  expect(expires).toBeGreaterThan(0);
  expect(expires).toBeLessThanOrEqual(15 * 60);
  const fetched = await fetch(location);
  return { location, fetched, bytes: new Uint8Array(await fetched.arrayBuffer()) };
}

describe('GET /document/{id}/content of inline text', () => {
  it('answers the bytes of the text, as an attachment with the content type, the safety headers and the ETag', async () => {
    const text = 'héllo, wörld 🌍';
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, {
      name: 'Grüße "1".md',
      content: text,
      contentType: 'text/markdown; charset=utf-8',
    });
    expect(doc).toMatchObject({ storage: 'inline', content: text, size: Buffer.byteLength(text), sha256: sha256(text) });
    const res = await content(ctx.user.api, doc.id);
    expect(res.status).toBe(200);
    expect(res.text).toBe(text);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('etag')).toBe('"1"');
    expectSafetyHeaders(res, 'Grüße "1".md');
  });

  it('is 404 for a document that does not exist, or that the caller may not see', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { content: 'private' });
    const stranger = await newUser(ctx.svc);
    expectProblem(await content(stranger.api, doc.id), 404);
    expectProblem(await content(ctx.user.api, `${ctx.repo.id}${'A'.repeat(22)}`), 404);
  });
});

describe('PUT /document/{id}/content', () => {
  it('makes the bytes a file version; GET answers 302 to a presigned URL that serves exactly those bytes', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { name: 'report.pdf', content: 'draft' });
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0xff, 0xfe, 0x00, 0x80, ...randomBytes(2000)]);
    const res = await putContent(ctx.user.api, doc.id, bytes, { 'content-type': 'application/pdf', 'if-match': '"1"' });
    expectJson(res, 200);
    expect(res.headers.get('etag')).toBe('"2"');
    const updated = res.body as Document;
    expect(updated).toMatchObject({
      storage: 'file',
      contentType: 'application/pdf',
      size: bytes.length,
      sha256: sha256(bytes),
      version: 2,
    });
    expect(updated).not.toHaveProperty('content');
    const read = await getDocument(ctx.user.api, doc.id);
    expect(read).toEqual(updated);

    const answer = await content(ctx.user.api, doc.id);
    expectSafetyHeaders(answer, 'report.pdf');
    const { fetched, bytes: served } = await download(answer);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(served).equals(Buffer.from(bytes))).toBe(true);
    expect(fetched.headers.get('content-type')).toBe('application/pdf');
    expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(await objectsOf(doc)).toHaveLength(1);
  });

  it('records application/octet-stream when no Content-Type is sent, and text bodies as sent', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { content: 'x' });
    const untyped = ensure(await putContent(ctx.user.api, doc.id, new Uint8Array([1, 2, 3])), 200).body as Document;
    expect(untyped).toMatchObject({ contentType: 'application/octet-stream', size: 3, storage: 'file' });
    const text = ensure(await putContent(ctx.user.api, doc.id, 'plain text, ü', { 'content-type': 'text/plain; charset=utf-8' }), 200)
      .body as Document;
    expect(text).toMatchObject({
      contentType: 'text/plain; charset=utf-8',
      size: Buffer.byteLength('plain text, ü'),
      sha256: sha256('plain text, ü'),
    });
    expect(Buffer.from((await download(await content(ctx.user.api, doc.id))).bytes).toString('utf8')).toBe('plain text, ü');
  });

  it('refuses a body over 4 MiB with 413, and nothing changes: no version, no object, no usage', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { content: 'small' });
    const before = await usage(ctx.user.api, ctx.repo.id);
    const res = await putContent(ctx.user.api, doc.id, new Uint8Array(MAX_RAW_CONTENT_BYTES + 1), { 'content-type': 'application/pdf' });
    expectProblem(res, 413);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await objectsOf(doc)).toEqual([]);
    expect(await usage(ctx.user.api, ctx.repo.id)).toEqual(before);
    // Exactly the limit is taken.
    ensure(await putContent(ctx.user.api, doc.id, new Uint8Array(MAX_RAW_CONTENT_BYTES), { 'content-type': 'application/pdf' }), 200);
  });

  it('honours If-Match (412, nothing stored), and the roles: a viewer gets 403', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { content: 'v1' });
    expectProblem(await putContent(ctx.user.api, doc.id, 'new', { 'content-type': 'text/plain', 'if-match': '"7"' }), 412);
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(doc);
    expect(await objectsOf(doc)).toEqual([]);
    const viewer = await newUser(ctx.svc);
    await setRole(ctx.user.api, ctx.repo.id, viewer.sub, 'viewer');
    expectProblem(await putContent(viewer.api, doc.id, 'new', { 'content-type': 'text/plain' }), 403);
    expect(await content(viewer.api, doc.id)).toMatchObject({ status: 200, text: 'v1' });
  });

  it('answers a repeat with the same Idempotency-Key with the first answer, and makes one version', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { content: 'v1' });
    const headers = { 'content-type': 'image/png', 'idempotency-key': `content-${doc.id}` };
    const first = ensure(await putContent(ctx.user.api, doc.id, new Uint8Array([9, 8, 7]), headers), 200);
    const again = ensure(await putContent(ctx.user.api, doc.id, new Uint8Array([9, 8, 7]), headers), 200);
    expect(again.body).toEqual(first.body);
    expect((await getDocument(ctx.user.api, doc.id)).version).toBe(2);
    expect(await objectsOf(doc)).toHaveLength(1);
  });
});

describe('moving between inline text and a file', () => {
  it('goes file → inline (PUT /document with content) → file, each a new version', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { name: 'notes', content: 'one' });
    const file = ensure(await putContent(ctx.user.api, doc.id, new Uint8Array([1, 2]), { 'content-type': 'application/zip' }), 200)
      .body as Document;
    expect(file).toMatchObject({ storage: 'file', version: 2 });

    const inline = ensure(await ctx.user.api.put('/document', { id: doc.id, content: 'two', contentType: 'text/plain' }), 200).body;
    expect(inline).toMatchObject({ storage: 'inline', content: 'two', size: 3, sha256: sha256('two'), version: 3 });
    expect(await getDocument(ctx.user.api, doc.id)).toEqual(inline);
    expect(await content(ctx.user.api, doc.id)).toMatchObject({ status: 200, text: 'two' });

    // A rename keeps a file a file (and its bytes where they are).
    ensure(await putContent(ctx.user.api, doc.id, new Uint8Array([3]), { 'content-type': 'application/zip' }), 200);
    const renamed = ensure(await ctx.user.api.put('/document', { id: doc.id, name: 'notes.zip' }), 200).body as Document;
    expect(renamed).toMatchObject({ storage: 'file', size: 1, version: 5, name: 'notes.zip' });
    expect(renamed).not.toHaveProperty('content');
    expect([...(await download(await content(ctx.user.api, doc.id))).bytes]).toEqual([3]);

    // Lists show storage and sha256, never content.
    const listed = ensure(await ctx.user.api.get(`/folder/${ctx.repo.rootFolderId}/documents?limit=100`), 200).body.items.find(
      (item: Document) => item.id === doc.id,
    );
    expect(listed).toEqual({ ...renamed });
  });
});

describe('revisions of files', () => {
  it('lists storage and sha256; a file revision has no content but its bytes at …/content; a restore copies no bytes', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { name: 'photo', content: 'text first' });
    const bytes = new Uint8Array(randomBytes(300));
    ensure(await putContent(ctx.user.api, doc.id, bytes, { 'content-type': 'image/jpeg' }), 200);
    ensure(await ctx.user.api.put('/document', { id: doc.id, content: 'text again' }), 200);

    const revisions = ensure(await ctx.user.api.get(`/document/${doc.id}/revisions`), 200).body.items;
    expect(revisions.map((r: { storage: string }) => r.storage)).toEqual(['inline', 'file', 'inline']);
    expect(revisions[1]).toMatchObject({ version: 2, sha256: sha256(bytes), size: 300, contentType: 'image/jpeg' });

    const fileRevision = ensure(await ctx.user.api.get(`/document/${doc.id}/revisions/2`), 200).body;
    expect(fileRevision).toMatchObject({ storage: 'file', version: 2 });
    expect(fileRevision).not.toHaveProperty('content');
    const inlineRevision = ensure(await ctx.user.api.get(`/document/${doc.id}/revisions/1`), 200).body;
    expect(inlineRevision).toMatchObject({ storage: 'inline', content: 'text first' });

    const revisionAnswer = await revisionContent(ctx.user.api, doc.id, 2);
    expectSafetyHeaders(revisionAnswer, 'photo');
    const fromRevision = await download(revisionAnswer);
    expect(Buffer.from(fromRevision.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(fromRevision.fetched.headers.get('content-type')).toBe('image/jpeg');
    const first = await revisionContent(ctx.user.api, doc.id, 1);
    expect(first).toMatchObject({ status: 200, text: 'text first' });
    expect(first.headers.get('content-type')).toBe('text/plain; charset=utf-8');

    // Restoring the file revision: a new version with the same object, no copy.
    const restored = ensure(await ctx.user.api.request('POST', `/document/${doc.id}/revisions/2/restore`), 200).body as Document;
    expect(restored).toMatchObject({ storage: 'file', version: 4, sha256: sha256(bytes), size: 300, contentType: 'image/jpeg' });
    expect(restored).not.toHaveProperty('content');
    const current = await download(await content(ctx.user.api, doc.id));
    expect(new URL(current.location).pathname).toBe(new URL(fromRevision.location).pathname);
    expect(Buffer.from(current.bytes).equals(Buffer.from(bytes))).toBe(true);
    expect(await objectsOf(doc)).toHaveLength(1);
    expect(await revisionContent(ctx.user.api, doc.id, 9)).toMatchObject({ status: 404 });
  });

  it('refuses a presigned URL altered in any way', async () => {
    const doc = await newDocument(ctx.user.api, ctx.repo.rootFolderId, { content: 'x' });
    ensure(await putContent(ctx.user.api, doc.id, new Uint8Array([1, 2, 3]), { 'content-type': 'application/pdf' }), 200);
    const { location } = await download(await content(ctx.user.api, doc.id));
    const url = new URL(location);
    const signature = url.searchParams.get('X-Amz-Signature')!;
    const flipped = new URL(url);
    flipped.searchParams.set('X-Amz-Signature', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`);
    expect((await fetch(flipped)).status).toBe(403);
    const otherKey = new URL(url);
    otherKey.pathname = `${url.pathname}x`;
    expect((await fetch(otherKey)).status).toBe(403);
    const otherType = new URL(url);
    otherType.searchParams.set('response-content-type', 'text/html');
    expect((await fetch(otherType)).status).toBe(403);
    expect((await fetch(url, { method: 'PUT', body: 'overwrite' })).status).toBe(403);
    expect((await fetch(url)).status).toBe(200);
  });
});

describe('usage and quota', () => {
  it('counts every version: create, update, rename, raw PUT and revision restore each add their size', async () => {
    const owner = await newUser(ctx.svc);
    const repository = ensure(await owner.api.post('/', { name: 'usage' }), 201).body as Repository;
    expect(await usage(owner.api, repository.id)).toEqual({ bytes: 0, quota: 10 * 1024 ** 3 });
    const doc = await newDocument(owner.api, repository.rootFolderId, { content: '12345' });
    expect((await usage(owner.api, repository.id)).bytes).toBe(5);
    ensure(await owner.api.put('/document', { id: doc.id, content: '1234567' }), 200);
    expect((await usage(owner.api, repository.id)).bytes).toBe(12);
    ensure(await owner.api.put('/document', { id: doc.id, name: 'renamed' }), 200);
    expect((await usage(owner.api, repository.id)).bytes).toBe(19);
    ensure(await putContent(owner.api, doc.id, new Uint8Array(100), { 'content-type': 'application/pdf' }), 200);
    expect((await usage(owner.api, repository.id)).bytes).toBe(119);
    ensure(await owner.api.request('POST', `/document/${doc.id}/revisions/1/restore`), 200);
    expect((await usage(owner.api, repository.id)).bytes).toBe(124);
  });

  it('answers 409 quota-exceeded when a version would pass the quota, and changes nothing', async () => {
    const owner = await newUser(ctx.svc);
    const repository = ensure(await owner.api.post('/', { name: 'full' }), 201).body as Repository;
    const folder = await newFolder(owner.api, repository.rootFolderId);
    const doc = await newDocument(owner.api, folder.id, { content: '1234567890' });
    const trashed = await newDocument(owner.api, folder.id, { content: 'abc' });
    ensure(await owner.api.delete(`/document/${trashed.id}`), 204);
    const { bytes } = await usage(owner.api, repository.id);
    expect(bytes).toBe(13);
    // Room for 9 more bytes.
    process.env.QUOTA_BYTES = String(bytes + 9);
    expect(await usage(owner.api, repository.id)).toEqual({ bytes, quota: bytes + 9 });
    const quota = problemOf('quota-exceeded');

    expectProblem(await owner.api.post('/document', { folderId: folder.id, name: 'big', content: '0123456789' }), 409, quota);
    expectProblem(await owner.api.put('/document', { id: doc.id, content: '0123456789' }), 409, quota);
    // A rename counts the size again (10 bytes > 9).
    expectProblem(await owner.api.put('/document', { id: doc.id, name: 'renamed' }), 409, quota);
    expectProblem(await owner.api.request('POST', `/document/${doc.id}/revisions/1/restore`), 409, quota);
    expectProblem(await putContent(owner.api, doc.id, new Uint8Array(10), { 'content-type': 'application/pdf' }), 409, quota);
    expect(await objectsOf(doc)).toEqual([]);
    // Restored under another name, a document from the trash is a new version: it counts (3 bytes fit).
    process.env.QUOTA_BYTES = String(bytes + 2);
    expectProblem(await owner.api.post(`/${repository.id}/trash/${trashed.id}/restore`, { name: 'elsewhere' }), 409, quota);

    expect(await getDocument(owner.api, doc.id)).toEqual(doc);
    expect((await usage(owner.api, repository.id)).bytes).toBe(bytes);
    const listed = ensure(await owner.api.get(`/folder/${folder.id}/documents`), 200).body.items;
    expect(listed.map((d: Document) => d.name)).toEqual([doc.name]);

    // What fits is written: 9 bytes exactly.
    process.env.QUOTA_BYTES = String(bytes + 9);
    ensure(await owner.api.put('/document', { id: doc.id, content: '123456789' }), 200);
    expect(await usage(owner.api, repository.id)).toEqual({ bytes: bytes + 9, quota: bytes + 9 });
  });
});
