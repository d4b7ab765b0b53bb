/**
 * Inputs refused by a stated rule, not by accident (docs/api.md: Names, Requests): names'
 * characters and Unicode full case folding, JSON that is not UTF-8 or names a key twice, two
 * Authorization headers, If-Match as an RFC 9110 list. Each refusal changes nothing.
 */
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServiceWithOwner } from '#test/support/fixture';
import {
  type Document,
  expectJson,
  expectProblem,
  type Folder,
  namesIn,
  newDocument,
  newFolder,
  newUser,
  problemType,
} from '#test/support/http';

const ctx = useServiceWithOwner();

const freshFolder = (): Promise<Folder> => newFolder(ctx.user.api, ctx.repo.rootFolderId);

describe('names', () => {
  it('refuses ".", "..", bidirectional controls and names of only white space and invisible characters, with the rule', async () => {
    const folder = await freshFolder();
    for (const name of ['.', ' .. ', 'a\u202Eb', 'x\u2066y', '\u200B', '\u3000\u200B\u00A0', '\uFEFF']) {
      const res = await ctx.user.api.post('/document', { folderId: folder.id, name });
      expectProblem(res, 400, problemType[400]);
      expect(res.body.errors, JSON.stringify(name)).toEqual([expect.objectContaining({ path: 'name' })]);
    }
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([]);
    // Dots inside a name, and a visible character beside invisible ones, are fine.
    for (const name of ['...', '.hidden', 'a.', '\u200Bx'])
      expectJson(await ctx.user.api.post('/document', { folderId: folder.id, name }), 201);
  });

  it('makes names clash under Unicode full case folding: straße / STRASSE, ΟΔΟΣ / οδος, ﬁle / FILE', async () => {
    const folder = await freshFolder();
    for (const [first, second] of [
      ['straße', 'STRASSE'],
      ['ΟΔΟΣ', 'οδος'],
      ['ﬁle', 'FILE'],
    ] as const) {
      await newDocument(ctx.user.api, folder.id, { name: first });
      expectProblem(await ctx.user.api.post('/document', { folderId: folder.id, name: second }), 409);
      expectProblem(await ctx.user.api.post('/folder', { parentId: folder.id, name: second }), 409);
    }
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['ﬁle', 'straße', 'ΟΔΟΣ']);
  });

  it('lists by the folded name', async () => {
    const folder = await freshFolder();
    // Folded: "ss" < "st" < "sz"; lower-casing alone would put ß (U+00DF) after every ASCII letter.
    for (const name of ['Sz', 'ßa', 'St']) await newDocument(ctx.user.api, folder.id, { name });
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(['ßa', 'St', 'Sz']);
  });
});

describe('JSON', () => {
  const post = (path: string, bytes: Uint8Array) =>
    ctx.user.api.request('POST', path, { raw: bytes, headers: { 'content-type': 'application/json' } });

  it('refuses bytes that are not UTF-8 with 400, instead of reading U+FFFD where they were', async () => {
    const folder = await freshFolder();
    const invalid = [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80])]; // stray, truncated, a surrogate
    for (const bad of invalid) {
      const body = Buffer.concat([Buffer.from(`{"folderId":"${folder.id}","name":"n`), bad, Buffer.from('"}')]);
      expectProblem(await post('/document', body), 400, problemType.malformedJson);
    }
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([]);
    const good = Buffer.from(`{"folderId":"${folder.id}","name":"n\u00e9"}`, 'utf8');
    expectJson(await post('/document', good), 201);
  });

  it('refuses an object that names a key twice, at any depth', async () => {
    const folder = await freshFolder();
    const texts = [
      `{"folderId":"${folder.id}","name":"a","name":"b"}`,
      `{"folderId":"${folder.id}","name":"a","n\\u0061me":"b"}`, // the same key, escaped
      '{"name":"x","description":"d","description":"e"}',
    ];
    for (const [i, text] of texts.entries()) {
      expectProblem(await post(i < 2 ? '/document' : '/', Buffer.from(text)), 400, problemType.malformedJson);
    }
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([]);
    // Equal keys in different objects, and a key that only looks like another inside a string, are fine.
    expectJson(
      await post('/document', Buffer.from(`{"folderId":"${folder.id}","name":"\\"name\\": 1","content":"{\\"a\\":1,\\"a\\":2}"}`)),
      201,
    );
  });
});

describe('Authorization', () => {
  it('answers 401 to two Authorization headers, whichever comes first', async () => {
    const token = (await newUser(ctx.svc)).api.token!;
    for (const order of [
      [`Bearer ${token}`, 'Bearer not-a-token'],
      ['Bearer not-a-token', `Bearer ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      const { status, headers } = await rawGet(`/${ctx.repo.id}`, { authorization: order });
      expect(status, order.join(' | ')).toBe(401);
      expect(headers['www-authenticate']).toMatch(/^Bearer\b/);
    }
  });
});

describe('If-Match', () => {
  let doc: Document;
  beforeAll(async () => {
    doc = await newDocument(ctx.user.api, (await freshFolder()).id, { name: 'guarded' });
  });

  it('is a list as RFC 9110 defines it: empty elements are ignored, and a list with no tag matches nothing', async () => {
    expectJson(await ctx.user.api.put('/document', { id: doc.id, content: 'a' }, { 'If-Match': ' , "1", , ' }), 200);
    expectJson(await ctx.user.api.put('/document', { id: doc.id, content: 'b' }, { 'If-Match': '"9","2"' }), 200);
    expectProblem(await ctx.user.api.put('/document', { id: doc.id, content: 'c' }, { 'If-Match': ' , ' }), 412);
    // A tag may hold a comma.
    expectProblem(await ctx.user.api.put('/document', { id: doc.id, content: 'c' }, { 'If-Match': '"3,4"' }), 412);
  });

  it('is 400 when malformed, on DELETE too, and nothing is deleted', async () => {
    for (const value of ['3', '"3" "4"', '"3", *', 'W/3']) {
      expectProblem(await ctx.user.api.delete(`/document/${doc.id}`, { 'If-Match': value }), 400);
    }
    expect((await ctx.user.api.get(`/document/${doc.id}`)).body.version).toBe(3);
  });
});

/** A GET with raw header lines (fetch would join repeated headers into one). */
function rawGet(
  path: string,
  headers: Record<string, string[]>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, ctx.svc.url), { method: 'GET', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
