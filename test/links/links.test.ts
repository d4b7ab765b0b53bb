/**
 * Share links (docs/api.md: Share links), end to end through the local service: made, read,
 * listed and revoked by members; opened by anyone on the two public routes, without a token;
 * passwords, the lock under parallel guesses, expiry, trash and purge, the feed; and the token
 * in the first answer only: never in a later answer, the table or a log line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useService, withRoles } from '#test/support/fixture';
import {
  type Api,
  type Document,
  ensure,
  expectProblem,
  type HttpResponse,
  listAll,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  type Repository,
  removeMember,
  type User,
} from '#test/support/http';
import { expectInvariants, scanTable } from '#test/support/invariants';

// Everything the process writes while the service runs: the gateway's access log, the handlers'
// and the worker's log lines (stdout, stderr, console), searched for tokens at the end. At INFO,
// as deployed (npm start writes only WARN and above): the handlers' `request` lines are where a
// token would leak, and where the tests below read each answer's DynamoDB requests.
process.env.LOG_LEVEL = 'INFO';
const logs: string[] = [];
const restore: (() => void)[] = [];
beforeAll(() => {
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      logs.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restore.push(() => {
      stream.write = write;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      logs.push(args.map(String).join(' '));
      original(...args);
    };
    restore.push(() => {
      console[method] = original;
    });
  }
});
afterAll(() => {
  for (const undo of restore) undo();
});

const ctx = useService({ log: (line) => logs.push(line), seed: (svc) => withRoles(svc) });
/** Every token made in this file, for the search of answers and logs. */
const tokens: string[] = [];

interface Link {
  id: string;
  documentId: string;
  repositoryId: string;
  url?: string;
  token?: string;
  expiresAt: string | null;
  hasPassword: boolean;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
}

let folderId: string;
beforeAll(async () => {
  folderId = (await newFolder(ctx.owner.api, ctx.repo.rootFolderId)).id;
});

const anonymous = () => ctx.owner.api.withToken(undefined);

async function makeLink(api: Api, documentId: string, body: object = {}, headers?: Record<string, string>): Promise<Link> {
  const link = ensure(await api.post(`/document/${documentId}/links`, body, headers), 201).body as Link;
  if (link.token) tokens.push(link.token);
  return link;
}
const document = (fields: { content?: string } = {}) => newDocument(ctx.owner.api, folderId, fields);
const open = (token: string, headers: Record<string, string> = {}) => anonymous().get(`/s/${token}`, headers);
const openContent = (token: string, headers: Record<string, string> = {}) =>
  anonymous().request('GET', `/s/${token}/content`, { headers, redirect: 'manual' });

/** The DynamoDB requests of each answer of a public route so far, from their access log lines. */
const publicRequests = () =>
  logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"message":"request"') && line.includes('"path":"GET /s/{token}')) // a public route logs its route key
    .map((line) => JSON.parse(line).dynamodb.requests as string[]);

/** An answer of a public route, and the DynamoDB requests its access log line records (which may arrive after the answer). */
async function withRequests(send: () => Promise<HttpResponse>): Promise<{ res: HttpResponse; requests: string[] }> {
  const before = publicRequests().length;
  const res = await send();
  for (let i = 0; i < 250 && publicRequests().length <= before; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  const lines = publicRequests();
  expect(lines.length, 'one access log line').toBe(before + 1);
  return { res, requests: lines.at(-1)! };
}

function expectPublicHeaders(res: HttpResponse) {
  expect(res.headers.get('cache-control'), res.request).toBe('private, no-store');
  expect(res.headers.get('referrer-policy'), res.request).toBe('no-referrer');
}

describe('POST /document/{id}/links', () => {
  it('answers 201 with the token and url once, and Location; the link itself has neither', async () => {
    const doc = await document({ content: 'shared text' });
    const res = ensure(await ctx.editor.api.post(`/document/${doc.id}/links`, {}), 201);
    const link = res.body as Link;
    tokens.push(link.token!);
    expect(res.headers.get('location')).toBe(`/links/${link.id}`);
    expect(link).toMatchObject({
      documentId: doc.id,
      repositoryId: ctx.repo.id,
      expiresAt: null,
      hasPassword: false,
      createdBy: ctx.editor.sub,
      lastUsedAt: null,
    });
    // At least 128 random bits, URL-safe: the secret alone is 32 base64url characters (192 bits).
    expect(link.token).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(link.token!.split('.').at(-1)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(link.url).toMatch(new RegExp(`^https?://[^/]+/app/s/${link.token!.replace(/\./g, '\\.')}$`));
    const again = ensure(await ctx.viewer.api.get(`/links/${link.id}`), 200).body as Link;
    expect(again).toEqual({ ...link, url: undefined, token: undefined });
    expect('token' in again || 'url' in again).toBe(false);
    // Two links of one document never share a token.
    const other = await makeLink(ctx.owner.api, doc.id);
    expect(other.token).not.toBe(link.token);
  });

  it('with an Idempotency-Key, a repeat answers the same 201 without token and url, and makes nothing', async () => {
    const doc = await document();
    const key = { 'idempotency-key': `link-${doc.id}` };
    const first = await makeLink(ctx.owner.api, doc.id, { password: 'correct horse' }, key);
    expect(first.token).toBeDefined();
    const repeat = await ctx.owner.api.post(`/document/${doc.id}/links`, { password: 'correct horse' }, key);
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('location')).toBe(`/links/${first.id}`);
    const { token: _t, url: _u, ...rest } = first;
    expect(repeat.body).toEqual(rest);
    const listed = (await listAll<Link>(ctx.owner.api, `/document/${doc.id}/links`, 100)).items;
    expect(listed.map((l) => l.id)).toEqual([first.id]);
  });

  it('keeps only a hash of the token: nothing in the table holds it or its secret', async () => {
    const doc = await document();
    const link = await makeLink(ctx.owner.api, doc.id, { password: 'a password' });
    const table = JSON.stringify(await scanTable());
    const secret = link.token!.split('.').at(-1)!;
    expect(table).not.toContain(secret);
    expect(table).not.toContain('a password');
  });

  it('takes expiresAt in the future, at most a year ahead, and passwords of 8 to 128 characters after NFC', async () => {
    const doc = await document();
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    const DAY = 86_400_000;
    for (const body of [
      { expiresAt: at(-1000) },
      { expiresAt: at(367 * DAY) },
      { expiresAt: 'tomorrow' },
      { expiresAt: '2030-01-01' },
      { password: 'seven77' },
      { password: 'x'.repeat(129) },
      { password: 12345678 },
      { other: 1 },
    ]) {
      const res = await ctx.owner.api.post(`/document/${doc.id}/links`, body);
      expectProblem(res, 400);
    }
    const within = await makeLink(ctx.owner.api, doc.id, { expiresAt: at(364 * DAY) });
    expect(Date.parse(within.expiresAt!)).toBeGreaterThan(Date.now());
    // Eight characters once composed (NFC), sixteen code points as sent.
    const composed = await makeLink(ctx.owner.api, doc.id, { password: 'e\u0301'.repeat(8) });
    expect(composed.hasPassword).toBe(true);
    ensure(await open(composed.token!, { 'link-password': '\u00e9'.repeat(8) }), 200);
    ensure(await open(composed.token!, { 'link-password': Buffer.from('e\u0301'.repeat(8), 'utf8').toString('latin1') }), 200);
    await makeLink(ctx.owner.api, doc.id, { password: 'x'.repeat(128) });
  });

  it('is for owners and editors: a viewer gets 403, a stranger and a trashed document 404', async () => {
    const doc = await document();
    expectProblem(await ctx.viewer.api.post(`/document/${doc.id}/links`, {}), 403);
    expectProblem(await ctx.stranger.api.post(`/document/${doc.id}/links`, {}), 404);
    ensure(await ctx.owner.api.delete(`/document/${doc.id}`), 204);
    expectProblem(await ctx.owner.api.post(`/document/${doc.id}/links`, {}), 404);
  });
});

describe('GET /links/{linkId}, the lists, DELETE /links/{linkId}', () => {
  it('lists a document’s links newest first, in pages, and never a revoked one', async () => {
    const doc = await document();
    const made: Link[] = [];
    for (let i = 0; i < 3; i++) made.push(await makeLink(ctx.owner.api, doc.id));
    const first = ensure(await ctx.viewer.api.get(`/document/${doc.id}/links?limit=2`), 200).body as { items: Link[]; nextToken?: string };
    expect(first.items.map((l) => l.id)).toEqual([made[2]!.id, made[1]!.id]);
    const second = ensure(
      await ctx.viewer.api.get(`/document/${doc.id}/links?limit=2&nextToken=${encodeURIComponent(first.nextToken!)}`),
      200,
    ).body as { items: Link[]; nextToken?: string };
    expect(second.items.map((l) => l.id)).toEqual([made[0]!.id]);
    expect(second.nextToken).toBeUndefined();
    ensure(await ctx.owner.api.delete(`/links/${made[1]!.id}`), 204);
    const after = (await listAll<Link>(ctx.viewer.api, `/document/${doc.id}/links`, 100)).items;
    expect(after.map((l) => l.id)).toEqual([made[2]!.id, made[0]!.id]);
    expectProblem(await ctx.stranger.api.get(`/document/${doc.id}/links`), 404);
  });

  it('lists every link of the repository for an owner only', async () => {
    const { owner, editor, viewer, stranger, repo } = await withRoles(ctx.svc);
    const a = await newDocument(owner.api, repo.rootFolderId);
    const b = await newDocument(owner.api, repo.rootFolderId);
    const la = await makeLink(owner.api, a.id);
    const lb = await makeLink(editor.api, b.id);
    const page = ensure(await owner.api.get(`/${repo.id}/links`), 200).body as { items: Link[] };
    expect(page.items.map((l) => l.id)).toEqual([lb.id, la.id]);
    expect(page.items.every((l) => !('token' in l))).toBe(true);
    expectProblem(await editor.api.get(`/${repo.id}/links`), 403);
    expectProblem(await viewer.api.get(`/${repo.id}/links`), 403);
    expectProblem(await stranger.api.get(`/${repo.id}/links`), 404);
    const paged = ensure(await owner.api.get(`/${repo.id}/links?limit=1`), 200).body as { items: Link[]; nextToken?: string };
    expect(paged.items.map((l) => l.id)).toEqual([lb.id]);
    expect(paged.nextToken).toBeDefined();
  });

  it('revokes at once: an owner any link, an editor their own; then every route answers 404', async () => {
    const doc = await document({ content: 'revoked soon' });
    const owners = await makeLink(ctx.owner.api, doc.id);
    const editors = await makeLink(ctx.editor.api, doc.id);
    expectProblem(await ctx.viewer.api.delete(`/links/${editors.id}`), 403);
    expectProblem(await ctx.editor.api.delete(`/links/${owners.id}`), 403);
    expectProblem(await ctx.stranger.api.delete(`/links/${owners.id}`), 404);
    ensure(await open(editors.token!), 200);
    ensure(await ctx.editor.api.delete(`/links/${editors.id}`), 204);
    ensure(await ctx.owner.api.delete(`/links/${owners.id}`), 204);
    for (const link of [owners, editors]) {
      expectProblem(await ctx.owner.api.delete(`/links/${link.id}`), 404);
      expectProblem(await ctx.owner.api.get(`/links/${link.id}`), 404);
      expectPublicHeaders(await open(link.token!));
      expectProblem(await open(link.token!), 404);
      expectProblem(await openContent(link.token!), 404);
    }
    expectProblem(await ctx.stranger.api.get(`/links/${owners.id}`), 404);
    expectProblem(await ctx.owner.api.get('/links/not-a-link'), 404);
  });

  it('keeps working when its creator leaves: links belong to the repository', async () => {
    const { owner, editor, repo } = await withRoles(ctx.svc);
    const doc = await newDocument(owner.api, repo.rootFolderId, { content: 'stays shared' });
    const link = await makeLink(editor.api, doc.id);
    await removeMember(editor.api, repo.id, editor.sub);
    ensure(await open(link.token!), 200);
    ensure(await owner.api.get(`/links/${link.id}`), 200);
  });
});

describe('GET /s/{token} and GET /s/{token}/content (public)', () => {
  it('need no token and ignore one that is sent; show the document and nothing of its place', async () => {
    const doc = await document({ content: 'hello, world' });
    const link = await makeLink(ctx.owner.api, doc.id);
    const sent: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-jwt' }, { authorization: 'Basic x' }];
    for (const headers of sent) {
      const res = ensure(await open(link.token!, headers), 200);
      expectPublicHeaders(res);
      expect(res.body).toEqual({
        name: doc.name,
        contentType: doc.contentType,
        size: doc.size,
        sha256: doc.sha256,
        version: doc.version,
        updatedAt: doc.updatedAt,
      });
    }
    // A member's own token is ignored too: the answer is the same.
    ensure(await ctx.owner.api.get(`/s/${link.token}`), 200);
  });

  it('serves the content as an attachment with the safety headers, always the current version', async () => {
    const doc = await document({ content: 'version one' });
    const link = await makeLink(ctx.owner.api, doc.id);
    let res = ensure(await openContent(link.token!), 200);
    expect(res.text).toBe('version one');
    expectPublicHeaders(res);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    ensure(await ctx.owner.api.put('/document', { id: doc.id, content: 'version two' }), 200);
    res = ensure(await openContent(link.token!), 200);
    expect(res.text).toBe('version two');
    expect((ensure(await open(link.token!), 200).body as { version: number }).version).toBe(2);
  });

  it('redirects to a short presigned URL for a file, where Range works', async () => {
    const doc = await document({ content: 'text first' });
    const bytes = Buffer.from('0123456789abcdef');
    ensure(
      await ctx.owner.api.request('PUT', `/document/${doc.id}/content`, { raw: bytes, headers: { 'content-type': 'application/pdf' } }),
      200,
    );
    const link = await makeLink(ctx.owner.api, doc.id);
    const res = await openContent(link.token!);
    expect(res.status).toBe(302);
    expectPublicHeaders(res);
    const url = new URL(res.headers.get('location')!);
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(900);
    const ranged = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('2345');
    expect(ranged.headers.get('content-type')).toBe('application/pdf');
  });

  it('answers the same 404 for unknown, malformed, altered, expired, trashed; a restored document’s link works again', async () => {
    const doc = await document({ content: 'lives and dies' });
    const link = await makeLink(ctx.owner.api, doc.id);
    const expiring = await makeLink(ctx.owner.api, doc.id, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    const [linkId, documentId, secret] = link.token!.split('.') as [string, string, string];
    const altered = `${linkId}.${documentId}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const bodies: unknown[] = [];
    const notFound = async (token: string) => {
      for (const res of [await open(token), await openContent(token)]) {
        expectProblem(res, 404);
        expectPublicHeaders(res);
        bodies.push(res.body);
      }
    };
    await notFound(altered);
    await notFound('nothing-like-a-token');
    await notFound(`${linkId}.${documentId}`);
    await notFound(`${linkId}.${ctx.repo.rootFolderId}.${secret}`);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await notFound(expiring.token!);
    ensure(await open(link.token!), 200);
    ensure(await ctx.owner.api.delete(`/document/${doc.id}`), 204);
    await notFound(link.token!);
    // All alike: nothing tells an unknown token from a revoked, expired or trashed one.
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    ensure(await ctx.owner.api.post(`/${ctx.repo.id}/trash/${doc.id}/restore`, {}), 200);
    ensure(await open(link.token!), 200);
    ensure(await openContent(link.token!), 200);
  });

  it('writes lastUsedAt when a link opens, at most once a minute', async () => {
    const doc = await document();
    const link = await makeLink(ctx.owner.api, doc.id);
    expect(link.lastUsedAt).toBeNull();
    ensure(await open(link.token!), 200);
    const first = (ensure(await ctx.owner.api.get(`/links/${link.id}`), 200).body as Link).lastUsedAt;
    expect(first).not.toBeNull();
    ensure(await openContent(link.token!), 200);
    ensure(await open(link.token!), 200);
    expect((ensure(await ctx.owner.api.get(`/links/${link.id}`), 200).body as Link).lastUsedAt).toBe(first);
    expectProblem(await open('x'), 404); // a refused token writes nothing
  });

  it('reads large text in the round trip after the first; with a password, beside the claim given back', async () => {
    const text = 'large text '.repeat(1000); // 11 KB: in a content item of its own, not in the document item
    const doc = await document({ content: text });
    const right = { 'link-password': 'open sesame' };
    const plain = await makeLink(ctx.owner.api, doc.id);
    const guarded = await makeLink(ctx.owner.api, doc.id, { password: 'open sesame' });
    const read = async (token: string, headers: Record<string, string> = {}) => {
      const { res, requests } = await withRequests(() => openContent(token, headers));
      expect(ensure(res, 200).text).toBe(text);
      return [...requests].sort();
    };
    // First opens: lastUsedAt written beside the content item's read; with a password, the check claimed first.
    expect(await read(plain.token!)).toEqual(['BatchGetItem', 'BatchGetItem', 'UpdateItem']);
    expect(await read(guarded.token!, right)).toEqual(['BatchGetItem', 'BatchGetItem', 'UpdateItem', 'UpdateItem']);
    // lastUsedAt fresh: the content item alone; with a password, beside the give-back.
    expect(await read(plain.token!)).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(await read(guarded.token!, right)).toEqual(['BatchGetItem', 'BatchGetItem', 'UpdateItem', 'UpdateItem']);
  });
});

describe('passwords', () => {
  const lockType = 'urn:problem-type:documents:throttled';

  async function passwordLink(password = 'open sesame') {
    const doc = await document({ content: 'secret text' });
    return makeLink(ctx.owner.api, doc.id, { password });
  }

  function expectChallenge(res: HttpResponse, type: 'required' | 'wrong') {
    expect(res.status, res.text).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Link-Password');
    expect(res.body).toMatchObject({ type: `urn:problem-type:documents:link-password-${type}`, status: 401 });
    expectPublicHeaders(res);
  }

  it('needs Link-Password on both routes: missing and wrong are 401 of two types; UTF-8 is read as UTF-8', async () => {
    const link = await passwordLink('pässwörd ✓');
    expect(link.hasPassword).toBe(true);
    for (const get of [open, openContent]) {
      expectChallenge(await get(link.token!), 'required');
      expectChallenge(await get(link.token!, { 'link-password': 'wrong one' }), 'wrong');
      // HTTP carries the header's bytes: the UTF-8 of the password.
      const utf8 = Buffer.from('pässwörd ✓', 'utf8').toString('latin1');
      expect((await get(link.token!, { 'link-password': utf8 })).status).toBe(200);
    }
  });

  it('locks after 10 wrong passwords for the rest of its 15 minutes: 429 with Retry-After, whatever is sent; a missing one does not count', async () => {
    const link = await passwordLink();
    for (let i = 0; i < 5; i++) expectChallenge(await open(link.token!), 'required');
    for (let i = 0; i < 3; i++) ensure(await open(link.token!, { 'link-password': 'open sesame' }), 200);
    for (let i = 0; i < 10; i++) expectChallenge(await open(link.token!, { 'link-password': `guess ${i}` }), 'wrong');
    const sent: Record<string, string>[] = [{ 'link-password': 'open sesame' }, {}, { 'link-password': 'guess' }];
    for (const headers of sent) {
      for (const res of [await open(link.token!, headers), await openContent(link.token!, headers)]) {
        expect(res.status, res.text).toBe(429);
        expect(res.body).toMatchObject({ type: lockType, status: 429 });
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(14 * 60);
        expect(retryAfter).toBeLessThanOrEqual(15 * 60);
        expectPublicHeaders(res);
      }
    }
    // 404 comes before 429: a revoked locked link is 404 like any other.
    ensure(await ctx.owner.api.delete(`/links/${link.id}`), 204);
    expectProblem(await open(link.token!, { 'link-password': 'open sesame' }), 404);
  });

  it('claims each check before scrypt: a wrong try keeps its claim, a right one gives it back (with lastUsedAt when due)', async () => {
    const link = await passwordLink();
    const right = { 'link-password': 'open sesame' };
    const first = await withRequests(() => open(link.token!, right));
    ensure(first.res, 200);
    expect(first.requests).toEqual(['BatchGetItem', 'UpdateItem', 'UpdateItem']); // the claim; given back with lastUsedAt
    const again = await withRequests(() => open(link.token!, right));
    ensure(again.res, 200);
    expect(again.requests).toEqual(['BatchGetItem', 'UpdateItem', 'UpdateItem']); // the claim; given back
    const wrong = await withRequests(() => open(link.token!, { 'link-password': 'wrong' }));
    expectChallenge(wrong.res, 'wrong');
    expect(wrong.requests).toEqual(['BatchGetItem', 'UpdateItem']); // the claim, kept: the wrong try counted
    const missing = await withRequests(() => open(link.token!));
    expectChallenge(missing.res, 'required');
    expect(missing.requests).toEqual(['BatchGetItem']);
    // Only the wrong try is counted: the right ones gave theirs back.
    expect((await storedLink(link.id))?.lock).toMatchObject({ tries: 1 });
    expect(checksOf(link.id)).toEqual({ right: 2, wrong: 1 });
  });

  it('counts only wrong tries towards the lock: right passwords between nine wrong ones leave it one short', async () => {
    const link = await passwordLink();
    for (let i = 0; i < 9; i++) expectChallenge(await open(link.token!, { 'link-password': `guess ${i}` }), 'wrong');
    for (let i = 0; i < 3; i++) ensure(await open(link.token!, { 'link-password': 'open sesame' }), 200);
    expect((await storedLink(link.id))?.lock).toMatchObject({ tries: 9 });
    expectChallenge(await open(link.token!, { 'link-password': 'guess 9' }), 'wrong');
    expect((await open(link.token!, { 'link-password': 'open sesame' })).status).toBe(429);
    expect(checksOf(link.id)).toEqual({ right: 3, wrong: 10 }); // the last one was refused before its check
  });

  it('gives 20 parallel wrong guesses exactly 10 checks: ten 401, ten 429 that ran no check', async () => {
    const link = await passwordLink();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => open(link.token!, { 'link-password': `parallel guess ${i}` })));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(10).fill(429)]);
    expect(checksOf(link.id)).toEqual({ right: 0, wrong: 10 });
    expect((await open(link.token!, { 'link-password': 'open sesame' })).status).toBe(429);
    expect(checksOf(link.id)).toEqual({ right: 0, wrong: 10 });
    // The table agrees: ten checks counted in the window.
    expect((await storedLink(link.id))?.lock).toMatchObject({ tries: 10 });
  });
});

/** The link item as stored. */
async function storedLink(linkId: string) {
  return (await scanTable()).find((item) => item.id === linkId && String(item.PK).startsWith('DOC#'));
}

/** The scrypt checks a link took, from the handlers' log lines (one per check, functions/core/items/link.ts). */
function checksOf(linkId: string): { right: number; wrong: number } {
  const counted = { right: 0, wrong: 0 };
  for (const chunk of logs) {
    for (const line of chunk.split('\n')) {
      if (!line.includes('share link: password checked') || !line.includes(linkId)) continue;
      const parsed = JSON.parse(line) as { linkId: string; right: boolean };
      if (parsed.linkId === linkId) counted[parsed.right ? 'right' : 'wrong']++;
    }
  }
  return counted;
}

describe('the feed, purge and repository delete', () => {
  it('records link-created and link-revoked, with the link id and its document, never the token', async () => {
    const { owner, repo } = await withRoles(ctx.svc);
    const cursor = (ensure(await owner.api.get(`/${repo.id}/changes?cursor=latest`), 200).body as { cursor: string }).cursor;
    const doc = await newDocument(owner.api, repo.rootFolderId);
    const link = await makeLink(owner.api, doc.id);
    ensure(await owner.api.delete(`/links/${link.id}`), 204);
    await ctx.svc.worker.settled();
    const page = ensure(await owner.api.get(`/${repo.id}/changes?cursor=${encodeURIComponent(cursor)}`), 200);
    const changes = (page.body as { items: { type: string; kind: string; id: string; documentId?: string }[] }).items.filter(
      (c) => c.kind === 'link',
    );
    expect(changes.map(({ type, id, documentId }) => ({ type, id, documentId }))).toEqual([
      { type: 'link-created', id: link.id, documentId: doc.id },
      { type: 'link-revoked', id: link.id, documentId: doc.id },
    ]);
    expect(page.text).not.toContain(link.token!.split('.').at(-1)!);
  });

  const linkItemsOf = async (linkIds: readonly string[]) =>
    (await scanTable()).filter(
      (item) => linkIds.some((id) => String(item.SK).endsWith(id) || item.id === id) && !String(item.PK).startsWith('FEED#'),
    );

  it('a purged document leaves no link item behind', async () => {
    const doc = await document({ content: 'purged soon' });
    const links = [await makeLink(ctx.owner.api, doc.id), await makeLink(ctx.editor.api, doc.id, { password: 'pass word' })];
    expect(await linkItemsOf(links.map((l) => l.id))).toHaveLength(4);
    ensure(await ctx.owner.api.delete(`/document/${doc.id}`), 204);
    ensure(await ctx.owner.api.delete(`/${ctx.repo.id}/trash/${doc.id}`), 204);
    await ctx.svc.worker.settled();
    expect(await linkItemsOf(links.map((l) => l.id))).toEqual([]);
    for (const link of links) expectProblem(await open(link.token!), 404);
    await expectInvariants();
  });

  it('a deleted repository ends its links at once, and leaves no link item once reclaimed', async () => {
    const owner: User = await newUser(ctx.svc);
    const repo: Repository = await newRepository(owner.api);
    const folder = await newFolder(owner.api, repo.rootFolderId);
    const docs: Document[] = [await newDocument(owner.api, folder.id), await newDocument(owner.api, repo.rootFolderId)];
    const trashed = await newDocument(owner.api, repo.rootFolderId);
    const links = [...(await Promise.all(docs.map((d) => makeLink(owner.api, d.id)))), await makeLink(owner.api, trashed.id)];
    ensure(await owner.api.delete(`/document/${trashed.id}`), 204);
    ensure(await owner.api.delete(`/${repo.id}`), 204);
    for (const link of links) expectProblem(await open(link.token!), 404);
    await ctx.svc.worker.settled();
    expect(await linkItemsOf(links.map((l) => l.id))).toEqual([]);
    await expectInvariants();
  });
});

describe('no token in any later answer or log', () => {
  it('the gateway logs the public routes by route key', async () => {
    const doc = await document();
    const link = await makeLink(ctx.owner.api, doc.id);
    ensure(await open(link.token!), 200);
    ensure(await openContent(link.token!), 200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.some((line) => line.startsWith('GET /s/{token} 200'))).toBe(true);
    expect(logs.some((line) => line.startsWith('GET /s/{token}/content 200'))).toBe(true);
  });

  it('no log line of this file holds any token it made', async () => {
    await ctx.svc.worker.settled();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(tokens.length).toBeGreaterThan(20);
    const text = logs.join('\n');
    expect(text.length).toBeGreaterThan(0);
    for (const token of tokens) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split('.').at(-1)!);
    }
  });
});
