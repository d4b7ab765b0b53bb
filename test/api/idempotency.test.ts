/**
 * Idempotency-Key (docs/api.md: Retries): a repeat gets the first answer and changes nothing,
 * for every kind of write; another request with the same key is 422; concurrent duplicates do
 * not both run; each user has their own keys.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServiceWithOwner } from '#test/support/fixture';
import {
  type Api,
  expectJson,
  expectProblem,
  type Folder,
  type HttpResponse,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  problemType,
  uniqueName,
} from '#test/support/http';

const ctx = useServiceWithOwner();

const freshFolder = (): Promise<Folder> => newFolder(ctx.user.api, ctx.repo.rootFolderId);
const keyed = (key: string = randomUUID()) => ({ 'Idempotency-Key': key });
/** What a repeat must give back: the same status, headers (but the transport's) and body. */
const answerOf = (res: HttpResponse) => ({
  status: res.status,
  headers: Object.fromEntries(
    [...res.headers].filter(([name]) => !['date', 'apigw-requestid', 'content-length', 'connection', 'keep-alive'].includes(name)),
  ),
  text: res.text,
});

describe('a repeat with the same key', () => {
  it('POST: the first 201 again, with the same Location and body; one document made', async () => {
    const folder = await freshFolder();
    const headers = keyed();
    const body = { folderId: folder.id, name: 'once.txt', content: 'x' };
    const first = await ctx.user.api.post('/document', body, headers);
    expectJson(first, 201);
    const again = await ctx.user.api.post('/document', body, headers);
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['once.txt']);
  });

  it('PUT with If-Match: the first 200 again, not a 412 for the version it made', async () => {
    const doc = await newDocument(ctx.user.api, (await freshFolder()).id, { name: 'v.txt' });
    const headers = { ...keyed(), 'If-Match': '"1"' };
    const first = await ctx.user.api.put('/document', { id: doc.id, content: 'two' }, headers);
    expectJson(first, 200);
    expect(answerOf(await ctx.user.api.put('/document', { id: doc.id, content: 'two' }, headers))).toEqual(answerOf(first));
    expect((await ctx.user.api.get(`/document/${doc.id}`)).body.version).toBe(2);
  });

  it('DELETE: the first 204 again, not a 404', async () => {
    const doc = await newDocument(ctx.user.api, (await freshFolder()).id, { name: 'gone.txt' });
    const headers = keyed();
    expect((await ctx.user.api.delete(`/document/${doc.id}`, headers)).status).toBe(204);
    expect((await ctx.user.api.delete(`/document/${doc.id}`, headers)).status).toBe(204);
    expectProblem(await ctx.user.api.delete(`/document/${doc.id}`), 404);
  });

  it('keeps a 4xx as the first answer too', async () => {
    const folder = await freshFolder();
    const taken = await newDocument(ctx.user.api, folder.id, { name: 'taken.txt' });
    const headers = keyed();
    const body = { folderId: folder.id, name: 'taken.txt' };
    const first = await ctx.user.api.post('/document', body, headers);
    expectProblem(first, 409);
    expect((await ctx.user.api.delete(`/document/${taken.id}`)).status).toBe(204); // the name is free now...
    expect(answerOf(await ctx.user.api.post('/document', body, headers))).toEqual(answerOf(first)); // ...but the answer was 409
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([]);
  });

  it('gives back a large answer whole (a 256 KiB document)', async () => {
    const folder = await freshFolder();
    const headers = keyed();
    const body = { folderId: folder.id, name: 'big.txt', content: '\u0001é😀'.repeat(20 * 1024) };
    const first = await ctx.user.api.post('/document', body, headers);
    expectJson(first, 201);
    expect(answerOf(await ctx.user.api.post('/document', body, headers))).toEqual(answerOf(first));
  });
});

describe('the same key with another request', () => {
  it('is 422: another body, another endpoint, another If-Match; and nothing changes', async () => {
    const folder = await freshFolder();
    const headers = keyed();
    expectJson(await ctx.user.api.post('/document', { folderId: folder.id, name: 'a.txt' }, headers), 201);
    expectProblem(
      await ctx.user.api.post('/document', { folderId: folder.id, name: 'b.txt' }, headers),
      422,
      problemType.idempotencyKeyReused,
    );
    expectProblem(await ctx.user.api.post('/folder', { parentId: folder.id, name: 'c' }, headers), 422, problemType.idempotencyKeyReused);
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['a.txt']);
    expect(await namesIn(ctx.user.api, folder.id, 'folders')).toEqual([]);
  });

  it('belongs to its user: another user may use the same key for their own request', async () => {
    const other = await newUser(ctx.svc);
    const theirs = await newRepository(other.api);
    const key = randomUUID();
    expectJson(await ctx.user.api.post('/folder', { parentId: ctx.repo.rootFolderId, name: uniqueName() }, keyed(key)), 201);
    expectJson(await other.api.post('/folder', { parentId: theirs.rootFolderId, name: uniqueName() }, keyed(key)), 201);
  });
});

describe('concurrent duplicates', () => {
  it('run once: each answer is the first one, or 409 while it runs', async () => {
    const folder = await freshFolder();
    const headers = keyed();
    const body = { folderId: folder.id, name: 'raced.txt' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => ctx.user.api.post('/document', body, headers)));
    const made = answers.filter((res) => res.status === 201);
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const res of answers) {
      if (res.status === 201) expect(answerOf(res)).toEqual(answerOf(made[0]!));
      else {
        expectProblem(res, 409, problemType.requestInProgress);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    }
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['raced.txt']);
  });
});

describe('the key itself', () => {
  it('is 1–255 printable ASCII characters, else 400 and nothing happens', async () => {
    const folder = await freshFolder();
    for (const key of ['x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await (ctx.user.api as Api).request('POST', '/document', {
        json: { folderId: folder.id, name: 'k.txt' },
        headers: { 'Idempotency-Key': key },
      });
      expectProblem(res, 400);
    }
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([]);
    expectJson(await ctx.user.api.post('/document', { folderId: folder.id, name: 'k.txt' }, keyed('x'.repeat(255))), 201);
  });
});
