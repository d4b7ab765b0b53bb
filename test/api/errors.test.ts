/**
 * Every status of docs/api.md that the local service can produce, in the order of checks
 * docs/api-decisions.md fixes, and the shape every error shares (RFC 9457, no internals).
 * 403 is not here: it needs a second member of a repository, and no endpoint adds members yet.
 */
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '#core/http/request-guards';
import { routes } from '#functions/routes';
import { LOCAL_AUDIENCE } from '#lib/local/jwt';
import { useService, withOwner } from '#test/support/fixture';
import {
  Api,
  type Document,
  expectJson,
  expectProblem,
  expectValidationError,
  type Folder,
  getDocument,
  type HttpResponse,
  listAll,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  problemType,
  type Repository,
  randomId,
  uniqueName,
} from '#test/support/http';

const ctx = useService({
  seed: async (svc) => {
    const { user, repo } = await withOwner(svc);
    const folder = await newFolder(user.api, repo.rootFolderId);
    const doc = await newDocument(user.api, folder.id, { name: 'the document', content: 'original' });
    /** Where requests that should fail validation point, so a wrongly accepted one disturbs nothing. */
    const scratch = await newFolder(user.api, repo.rootFolderId);
    return { user, repo, folder, doc, scratch };
  },
});

const anonymous = () => new Api(ctx.svc.url);
const freshFolder = () => newFolder(ctx.user.api, ctx.repo.rootFolderId);
/** A raw JSON text sent with `Content-Type: application/json`. */
const sendJsonText = (api: Api, method: string, path: string, text: string | Uint8Array) =>
  api.request(method, path, { raw: text, headers: { 'content-type': 'application/json' } });

/** The document and its folder's listing are exactly as `doc` left them. */
async function expectDocumentUnchanged(): Promise<void> {
  expect(await getDocument(ctx.user.api, ctx.doc.id)).toEqual(ctx.doc);
  expect(await namesIn(ctx.user.api, ctx.folder.id, 'documents')).toEqual(['the document']);
}

describe('400 malformed JSON', () => {
  it.each([
    ['POST', '/'],
    ['POST', '/folder'],
    ['POST', '/document'],
    ['PUT', '/document'],
  ])('%s %s with broken JSON', async (method, path) => {
    for (const text of ['{"name":', '{name: "x"}', '{"name":"x"} trailing', "{'name':'x'}"]) {
      expectProblem(await sendJsonText(ctx.user.api, method, path, text), 400, problemType.malformedJson);
    }
  });

  it('answers an empty JSON body with a 400', async () => {
    for (const [method, path] of [
      ['POST', '/'],
      ['PUT', '/document'],
    ] as const) {
      const res = await sendJsonText(ctx.user.api, method, path, '');
      // Not JSON at all, or not an object: either 400 kind is fair, a 500 is not.
      expectProblem(res, 400, res.body?.type === problemType.malformedJson ? problemType.malformedJson : problemType[400]);
    }
  });

  it('creates nothing and changes nothing', async () => {
    const name = uniqueName();
    expectProblem(await sendJsonText(ctx.user.api, 'POST', '/', `{"name":"${name}"`), 400, problemType.malformedJson);
    expectProblem(
      await sendJsonText(ctx.user.api, 'PUT', '/document', `{"id":"${ctx.doc.id}","content":"x"`),
      400,
      problemType.malformedJson,
    );
    const { items } = await listAll<Repository>(ctx.user.api, '/');
    expect(items.map((r) => r.name)).not.toContain(name);
    await expectDocumentUnchanged();
  });
});

describe('400 validation', () => {
  it.each([['[]'], ['"text"'], ['null'], ['42'], ['true']])('rejects a body that is not an object: %s', async (text) => {
    for (const [method, path] of [
      ['POST', '/'],
      ['POST', '/folder'],
      ['POST', '/document'],
      ['PUT', '/document'],
    ] as const) {
      expectValidationError(await sendJsonText(ctx.user.api, method, path, text), '');
    }
  });

  const badNames: [string, string][] = [
    ['a slash', 'a/b'],
    ['an empty name', ''],
    ['a whitespace-only name', '   \t '],
    ['256 characters', 'a'.repeat(256)],
    ['256 code points outside the BMP', '\u{1F600}'.repeat(256)],
    ['a control character (BEL)', 'a\u0007b'],
    ['a newline inside', 'a\nb'],
    ['a NUL', 'a\u0000'],
    ['DEL', 'x\u007f'],
    ['a C1 control (NEL)', 'a\u0085b'],
  ];

  it.each(badNames)('rejects a name with %s, on every endpoint that takes a name', async (_label, name) => {
    const parent = await freshFolder();
    expectValidationError(await ctx.user.api.post('/', { name }), 'name');
    expectValidationError(await ctx.user.api.post('/folder', { parentId: parent.id, name }), 'name');
    expectValidationError(await ctx.user.api.post('/document', { folderId: parent.id, name }), 'name');
    expectValidationError(await ctx.user.api.put('/document', { id: ctx.doc.id, name }), 'name');
    expect(await namesIn(ctx.user.api, parent.id, 'folders')).toEqual([]);
    expect(await namesIn(ctx.user.api, parent.id, 'documents')).toEqual([]);
  });

  it('accepts names at the limit: 255 code points after trimming and NFC', async () => {
    const parent = await freshFolder();
    const cases: [string, string][] = [
      ['a'.repeat(255), 'a'.repeat(255)],
      [`  ${'b'.repeat(255)}  `, 'b'.repeat(255)],
      ['\u{1F600}'.repeat(255), '\u{1F600}'.repeat(255)], // 510 UTF-16 units, 255 code points
      ['e\u0301'.repeat(255), '\u00e9'.repeat(255)], // 510 code points sent, 255 in NFC
    ];
    for (const [sent, stored] of cases) {
      const res = await ctx.user.api.post('/folder', { parentId: parent.id, name: sent });
      expectJson(res, 201);
      expect(res.body.name).toBe(stored);
    }
  });

  it('names an unknown field rather than dropping it', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/', { name: uniqueName(), descripton: 'typo' }, 'descripton'],
      ['POST', '/folder', { parentId: ctx.scratch.id, name: uniqueName(), nmae: 'typo' }, 'nmae'],
      ['POST', '/document', { folderId: ctx.scratch.id, name: uniqueName(), contnet: 'typo' }, 'contnet'],
      ['PUT', '/document', { id: ctx.doc.id, contnet: 'typo' }, 'contnet'],
    ];
    for (const [method, path, json, field] of cases) {
      const res = await ctx.user.api.request(method, path, { json });
      expectProblem(res, 400);
      const mentioned = (res.body.errors as { path: string; message: string }[]).some((e) => e.path === field || e.message.includes(field));
      expect(mentioned, `${method} ${path}: ${res.text}`).toBe(true);
    }
    await expectDocumentUnchanged();
  });

  const invalid: [string, string, () => Record<string, unknown>, string][] = [
    ['POST', '/', () => ({}), 'name'],
    ['POST', '/', () => ({ name: 123 }), 'name'],
    ['POST', '/', () => ({ name: null }), 'name'],
    ['POST', '/', () => ({ name: uniqueName(), description: 5 }), 'description'],
    ['POST', '/', () => ({ name: uniqueName(), description: 'd'.repeat(1025) }), 'description'],
    ['POST', '/folder', () => ({ name: uniqueName() }), 'parentId'],
    ['POST', '/folder', () => ({ parentId: ctx.scratch.id }), 'name'],
    ['POST', '/folder', () => ({ parentId: 7, name: uniqueName() }), 'parentId'],
    ['POST', '/folder', () => ({ parentId: 'bad id', name: uniqueName() }), 'parentId'],
    ['POST', '/document', () => ({ name: uniqueName() }), 'folderId'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id }), 'name'],
    ['POST', '/document', () => ({ folderId: 'x'.repeat(65), name: uniqueName() }), 'folderId'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), content: 5 }), 'content'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), content: ['a'] }), 'content'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), contentType: 5 }), 'contentType'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), contentType: 'not a media type' }), 'contentType'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), contentType: `text/${'x'.repeat(251)}` }), 'contentType'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), id: 'bad!id' }), 'id'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), id: '' }), 'id'],
    ['POST', '/document', () => ({ folderId: ctx.scratch.id, name: uniqueName(), id: 'i'.repeat(65) }), 'id'],
    ['PUT', '/document', () => ({ content: 'no id' }), 'id'],
    ['PUT', '/document', () => ({ id: 'bad id' }), 'id'],
    ['PUT', '/document', () => ({ id: ctx.doc.id, version: '1' }), 'version'],
    ['PUT', '/document', () => ({ id: ctx.doc.id, version: 1.5 }), 'version'],
    ['PUT', '/document', () => ({ id: ctx.doc.id, folderId: 5 }), 'folderId'],
    ['PUT', '/document', () => ({ id: ctx.doc.id, folderId: 'bad/id' }), 'folderId'],
    ['PUT', '/document', () => ({ id: ctx.doc.id, content: 5 }), 'content'],
    ['PUT', '/document', () => ({ id: ctx.doc.id, contentType: 'plain' }), 'contentType'],
  ];
  const titled = invalid.map(([method, path, body, field]) => {
    const shown = String(body)
      .replace(/^\(\) => \(?|\)?$/g, '')
      .replace(/\s+/g, ' ');
    return [`${method} ${path} ${shown} → 400 on ${field}`, method, path, body, field] as const;
  });
  it.each(titled)('%s', async (_title, method, path, body, field) => {
    expectValidationError(await ctx.user.api.request(method, path, { json: body() }), field);
  });

  it('changes nothing after a rejected PUT', async () => {
    await expectDocumentUnchanged();
  });

  it('rejects a malformed id in the path', async () => {
    const paths = ['/bad!id', '/bad!id/folder', '/folder/bad!id', '/folder/bad!id/folders', '/folder/bad!id/documents', '/document/bad!id'];
    const long = 'x'.repeat(65);
    for (const path of [...paths, `/${long}`, `/folder/${long}`, `/document/${long}`, '/document/a%20b', '/document/%C3%A9']) {
      expectValidationError(await ctx.user.api.get(path), 'id');
    }
    expectValidationError(await ctx.user.api.delete('/document/bad!id'), 'id');
    // 64 characters is still an id: it names nothing
    expectProblem(await ctx.user.api.get(`/document/${'x'.repeat(64)}`), 404);
  });

  it('rejects a limit that is not an integer from 1 to 100 written in decimal', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '-1', '1e1', '', '0x10']) {
      for (const path of ['/', `/folder/${ctx.folder.id}/folders`, `/folder/${ctx.folder.id}/documents`]) {
        expectValidationError(await ctx.user.api.get(`${path}?limit=${encodeURIComponent(limit)}`), 'limit');
      }
    }
  });

  it('accepts limits 1 and 100 and ignores unknown query parameters', async () => {
    for (const query of ['limit=1', 'limit=100', 'sort=desc&foo=bar']) {
      const res = await ctx.user.api.get(`/folder/${ctx.folder.id}/documents?${query}`);
      expectJson(res, 200);
      expect(res.body.items.map((d: Document) => d.id)).toEqual([ctx.doc.id]);
    }
  });

  it('checks the request before looking anything up: 400, not 404', async () => {
    const unknown = randomId();
    expectValidationError(await ctx.user.api.get(`/folder/${unknown}/documents?limit=0`), 'limit');
    expectValidationError(await ctx.user.api.post('/document', { folderId: unknown, name: 'a/b' }), 'name');
    expectValidationError(await ctx.user.api.put('/document', { id: unknown, version: 'x' }), 'version');
  });
});

describe('400 bad nextToken', () => {
  let a: Folder;
  let b: Folder;
  /** A folder with 3 sub folders and 3 documents, and another with 3 sub folders. */
  beforeAll(async () => {
    a = await freshFolder();
    b = await freshFolder();
    for (const name of ['f1', 'f2', 'f3']) {
      await newFolder(ctx.user.api, a.id, name);
      await newFolder(ctx.user.api, b.id, name);
      await newDocument(ctx.user.api, a.id, { name: `d-${name}` });
    }
  }, 30_000);

  const firstToken = async (api: Api, path: string): Promise<string> => {
    const res = await api.get(`${path}?limit=1`);
    expectJson(res, 200);
    expect(typeof res.body.nextToken).toBe('string');
    return res.body.nextToken as string;
  };
  const withToken = (path: string, token: string) => `${path}?limit=1&nextToken=${encodeURIComponent(token)}`;

  it('rejects a token that was never issued', async () => {
    for (const token of ['garbage', 'eyJ9', 'a.b', '....', 'x'.repeat(2000)]) {
      expectValidationError(await ctx.user.api.get(withToken(`/folder/${a.id}/folders`, token)), 'nextToken');
    }
  });

  it('rejects a token with one character changed', async () => {
    const path = `/folder/${a.id}/folders`;
    const token = await firstToken(ctx.user.api, path);
    expectJson(await ctx.user.api.get(withToken(path, token)), 200);
    // Change letters and digits only (the last two characters can carry base64 padding bits).
    const positions = [...token.slice(0, -2)].flatMap((c, i) => (/[A-Za-z0-9]/.test(c) ? [i] : []));
    const picks = [positions[0]!, positions[Math.floor(positions.length / 2)]!, positions[positions.length - 1]!];
    for (const i of picks) {
      const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
      expectValidationError(await ctx.user.api.get(withToken(path, altered)), 'nextToken');
    }
  });

  it('rejects a token taken from another list', async () => {
    const foldersOfA = await firstToken(ctx.user.api, `/folder/${a.id}/folders`);
    const documentsOfA = await firstToken(ctx.user.api, `/folder/${a.id}/documents`);
    expectValidationError(await ctx.user.api.get(withToken(`/folder/${b.id}/folders`, foldersOfA)), 'nextToken');
    expectValidationError(await ctx.user.api.get(withToken(`/folder/${a.id}/documents`, foldersOfA)), 'nextToken');
    expectValidationError(await ctx.user.api.get(withToken(`/folder/${a.id}/folders`, documentsOfA)), 'nextToken');
    expectValidationError(await ctx.user.api.get(withToken('/', foldersOfA)), 'nextToken');
  });

  it("rejects one caller's repository-list token from another caller", async () => {
    const alice = await newUser(ctx.svc);
    const bob = await newUser(ctx.svc);
    for (const name of ['a', 'b']) {
      await newRepository(alice.api, { name });
      await newRepository(bob.api, { name });
    }
    const token = await firstToken(alice.api, '/');
    expectJson(await alice.api.get(withToken('/', token)), 200);
    expectValidationError(await bob.api.get(withToken('/', token)), 'nextToken');
    expectValidationError(await bob.api.get(withToken(`/folder/${a.id}/folders`, token)), 'nextToken');
  });
});

describe('401', () => {
  const expectUnauthorized = (res: HttpResponse, invalidToken: boolean) => {
    expectProblem(res, 401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge, res.request).toMatch(/^Bearer\b/);
    if (invalidToken) expect(challenge, res.request).toMatch(/error="invalid_token"/);
  };
  const withRawAuthorization = (value: string) =>
    anonymous().request('GET', `/document/${ctx.doc.id}`, { headers: { authorization: value } });

  it('answers a request without a token', async () => {
    expectUnauthorized(await anonymous().get(`/document/${ctx.doc.id}`), false);
    expectUnauthorized(await anonymous().get('/'), false);
  });

  it('needs a token on every route of the route table but the public ones (the docs)', async () => {
    const guarded = routes.filter((route) => !route.public);
    expect(guarded.length).toBeGreaterThan(10);
    for (const route of guarded) {
      const path = route.path.replace('{id}', randomId());
      const json = route.method === 'POST' || route.method === 'PUT' ? { name: 'x' } : undefined;
      expectUnauthorized(await anonymous().request(route.method, path, { json }), false);
    }
  });

  it('answers a token that fails verification', async () => {
    const sub = ctx.user.sub;
    const good = await ctx.svc.issueToken(sub);
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const claims = decodeJwt(good);
    const otherSub = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const nowSeconds = Math.floor(Date.now() / 1000);

    // Signed by a key that is not in the issuer's JWKS, with the same kid and claims.
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ ...decodeProtectedHeader(good), alg: 'RS256' }).sign(privateKey);

    const bad: [string, string][] = [
      ['garbage', 'Bearer garbage'],
      ['a token with its payload changed', `Bearer ${header}.${otherSub}.${signature}`],
      ['an unsigned token (alg none)', `Bearer ${none}.${payload}.`],
      ['a token without its signature', `Bearer ${header}.${payload}`],
      ['a token signed by another key', `Bearer ${forged}`],
      ['an expired token', `Bearer ${await ctx.svc.issueToken(sub, {}, { expiresInSeconds: -120 })}`],
      ['a token without exp', `Bearer ${await ctx.svc.issueToken(sub, {}, { exp: null })}`],
      ['a token from another issuer', `Bearer ${await ctx.svc.issueToken(sub, {}, { iss: 'https://issuer.invalid/' })}`],
      ['a token for another audience', `Bearer ${await ctx.svc.issueToken(sub, {}, { aud: 'someone-else' })}`],
      ['a token for another client', `Bearer ${await ctx.svc.issueToken(sub, { client_id: 'someone-else' }, { aud: null })}`],
      ['a token not valid yet (nbf)', `Bearer ${await ctx.svc.issueToken(sub, {}, { nbf: nowSeconds + 3600 })}`],
    ];
    for (const [label, authorization] of bad) {
      const res = await withRawAuthorization(authorization);
      expect(res.status, `${label}: ${res.text}`).toBe(401);
      expectUnauthorized(res, true);
    }
    // the good token really works, so the failures above are about the token
    expectJson(await withRawAuthorization(`Bearer ${good}`), 200);
  });

  it('accepts client_id in place of aud, and an nbf in the past', async () => {
    const viaClientId = await ctx.svc.issueToken(ctx.user.sub, { client_id: LOCAL_AUDIENCE }, { aud: null });
    expectJson(await withRawAuthorization(`Bearer ${viaClientId}`), 200);
    const started = await ctx.svc.issueToken(ctx.user.sub, {}, { nbf: Math.floor(Date.now() / 1000) - 60 });
    expectJson(await withRawAuthorization(`Bearer ${started}`), 200);
  });

  // API Gateway's JWT authorizer also takes a bare token (without "Bearer "), so that is not tested.
  it('does not take credentials of another scheme', async () => {
    expectUnauthorized(await withRawAuthorization(`Basic ${Buffer.from('u:p').toString('base64')}`), false);
  });

  it('comes before every other check but the route', async () => {
    const none = anonymous();
    expectUnauthorized(await none.get(`/document/${randomId()}`), false); // not 404
    expectUnauthorized(await none.get('/document/bad!id'), false); // not 400
    expectUnauthorized(await sendJsonText(none, 'POST', '/document', '{"broken'), false); // not 400
    expectUnauthorized(await none.request('POST', '/', { raw: 'x', headers: { 'content-type': 'text/plain' } }), false); // not 415
    expectUnauthorized(await none.post('/', { name: 'x', description: 'd'.repeat(600 * 1024) }), false); // not 413
    expectUnauthorized(await none.put('/document', { id: ctx.doc.id, content: 'x' }, { 'If-Match': '"9"' }), false); // not 412
    await expectDocumentUnchanged();
  });
});

describe('404', () => {
  it('answers an unknown route, with or without a token', async () => {
    for (const api of [anonymous(), ctx.user.api]) {
      for (const path of ['/folder/x/y/z', '/nope/a/b', '/document/x/y', `/${ctx.repo.id}/folder/extra`]) {
        expectProblem(await api.get(path), 404);
      }
      expectProblem(await api.post('/folder/x/y', { name: 'x' }), 404);
    }
  });

  it('answers GET /folder and GET /document as GET /{id} of a repository that does not exist', async () => {
    expectProblem(await ctx.user.api.get('/folder'), 404);
    expectProblem(await ctx.user.api.get('/document'), 404);
  });

  it('answers ids that name nothing', async () => {
    const unknown = randomId();
    for (const path of [
      `/${unknown}`,
      `/${unknown}/folder`,
      `/folder/${unknown}`,
      `/folder/${unknown}/folders`,
      `/folder/${unknown}/documents`,
      `/document/${unknown}`,
    ]) {
      expectProblem(await ctx.user.api.get(path), 404);
    }
    expectProblem(await ctx.user.api.delete(`/document/${unknown}`), 404);
    expectProblem(await ctx.user.api.put('/document', { id: unknown, content: 'x' }), 404);
    expectProblem(await ctx.user.api.post('/folder', { parentId: unknown, name: uniqueName() }), 404);
    expectProblem(await ctx.user.api.post('/document', { folderId: unknown, name: uniqueName() }), 404);
  });

  it('answers ids of the wrong kind', async () => {
    expectProblem(await ctx.user.api.get(`/document/${ctx.folder.id}`), 404);
    expectProblem(await ctx.user.api.get(`/folder/${ctx.doc.id}`), 404);
    expectProblem(await ctx.user.api.get(`/folder/${ctx.doc.id}/documents`), 404);
    expectProblem(await ctx.user.api.get(`/${ctx.folder.id}`), 404);
    expectProblem(await ctx.user.api.get(`/${ctx.folder.id}/folder`), 404);
    expectProblem(await ctx.user.api.post('/folder', { parentId: ctx.doc.id, name: uniqueName() }), 404);
    expectProblem(await ctx.user.api.post('/document', { folderId: ctx.doc.id, name: uniqueName() }), 404);
    expectProblem(await ctx.user.api.put('/document', { id: ctx.folder.id }), 404);
    expectProblem(await ctx.user.api.delete(`/document/${ctx.folder.id}`), 404);
    expectJson(await ctx.user.api.get(`/folder/${ctx.folder.id}`), 200);
  });
});

describe('405', () => {
  const id = randomId();
  const cases: [string, string, string[]][] = [
    // `/document` is also `/{id}`, so GET may be listed there too
    ['PATCH', '/document', ['POST', 'PUT']],
    ['POST', `/folder/${id}`, ['DELETE', 'GET']],
    ['PUT', `/folder/${id}`, ['GET']],
    ['POST', `/document/${id}`, ['DELETE', 'GET']],
    ['PUT', '/', ['GET', 'POST']],
    ['POST', `/${id}`, ['DELETE', 'GET', 'PUT']],
    ['PUT', `/${id}/trash`, ['DELETE', 'GET']],
    ['POST', `/folder/${id}/documents`, ['GET']],
  ];

  it.each(cases)('%s %s → 405 with Allow, with or without a token', async (method, path, allowed) => {
    for (const api of [anonymous(), ctx.user.api]) {
      const res = await api.request(method, path);
      expectProblem(res, 405);
      const allow = (res.headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      expect(allow, `${method} ${path}: Allow`).toEqual(expect.arrayContaining(allowed));
      expect(allow, `${method} ${path}: Allow`).not.toContain(method);
      for (const m of allow) expect(['GET', 'POST', 'PUT', 'DELETE']).toContain(m);
    }
  });
});

describe('409 and 412', () => {
  it('answers a name clash and a taken id as problems', async () => {
    expectProblem(await ctx.user.api.post('/document', { folderId: ctx.folder.id, name: 'THE DOCUMENT' }), 409);
    expectProblem(await ctx.user.api.post('/folder', { parentId: ctx.folder.id, name: 'the document' }), 409);
    expectProblem(await ctx.user.api.post('/document', { folderId: ctx.folder.id, name: uniqueName(), id: ctx.doc.id }), 409);
    await expectDocumentUnchanged();
  });

  it('answers a failed precondition as a problem', async () => {
    expectProblem(await ctx.user.api.put('/document', { id: ctx.doc.id, content: 'x' }, { 'If-Match': '"2"' }), 412);
    expectProblem(await ctx.user.api.put('/document', { id: ctx.doc.id, content: 'x', version: 7 }), 412);
    expectProblem(await ctx.user.api.delete(`/document/${ctx.doc.id}`, { 'If-Match': '"3"' }), 412);
    await expectDocumentUnchanged();
  });

  it('checks preconditions before names: 412, not 409', async () => {
    const parent = await freshFolder();
    const d = await newDocument(ctx.user.api, parent.id, { name: 'one' });
    await newDocument(ctx.user.api, parent.id, { name: 'two' });
    expectProblem(await ctx.user.api.put('/document', { id: d.id, name: 'two' }, { 'If-Match': '"5"' }), 412);
  });
});

describe('413', () => {
  const KiB = 1024;

  it('rejects a request body over 2 MiB, whatever it holds', async () => {
    const padded = `{"name":"x"${' '.repeat(2048 * KiB)}}`;
    expectProblem(await sendJsonText(ctx.user.api, 'POST', '/', padded), 413);
    expectProblem(await ctx.user.api.post('/', { name: uniqueName(), description: 'd'.repeat(2100 * KiB) }), 413);
    expectProblem(await sendJsonText(ctx.user.api, 'POST', '/document', `{"broken ${'x'.repeat(2100 * KiB)}`), 413); // before JSON syntax
    expectProblem(
      await ctx.user.api.request('POST', '/document', { raw: 'x'.repeat(2100 * KiB), headers: { 'content-type': 'text/plain' } }),
      413,
    ); // before Content-Type
    expectProblem(await ctx.user.api.put('/document', { id: ctx.doc.id, content: 'c'.repeat(2100 * KiB) }), 413);
    const name = uniqueName('too-big');
    const parentId = ctx.repo.rootFolderId;
    expectProblem(
      await sendJsonText(ctx.user.api, 'POST', '/folder', JSON.stringify({ parentId, name, padding: 'p'.repeat(2100 * KiB) })),
      413,
    ); // before validation
    expect(await namesIn(ctx.user.api, parentId, 'folders')).not.toContain(name);
    await expectDocumentUnchanged();
  });

  it('accepts a body of exactly 2 MiB', async () => {
    const name = uniqueName();
    const head = `{"name":"${name}"`;
    const exact = `${head}${' '.repeat(2048 * KiB - head.length - 1)}}`;
    expect(Buffer.byteLength(exact)).toBe(MAX_REQUEST_BODY_BYTES);
    expectJson(await sendJsonText(ctx.user.api, 'POST', '/', exact), 201);
    expectProblem(await sendJsonText(ctx.user.api, 'POST', '/', `${exact} `), 413);
  });

  it('accepts any content within 256 KiB however JSON escapes it (newlines, control characters)', async () => {
    const parent = await freshFolder();
    // 262,144 bytes of content each: 512 KiB of body as `\n`, 1.5 MiB as `\u0001`.
    for (const unit of ['\n', '\u0001']) {
      const content = unit.repeat(256 * KiB);
      const created = await ctx.user.api.post('/document', { folderId: parent.id, name: uniqueName(), content });
      expectJson(created, 201);
      expect(created.body.size).toBe(256 * KiB);
    }
  });

  it('rejects content over 256 KiB of UTF-8 in a body under 2 MiB', async () => {
    const parent = await freshFolder();
    const tooBig = ['a'.repeat(256 * KiB + 1), '\u00e9'.repeat(128 * KiB + 1)]; // 262,145 and 262,146 bytes
    for (const content of tooBig) {
      expectProblem(await ctx.user.api.post('/document', { folderId: parent.id, name: uniqueName(), content }), 413);
      expectProblem(await ctx.user.api.put('/document', { id: ctx.doc.id, content }), 413);
    }
    // "whatever the rest of the body": an invalid name does not turn it into a 400
    expectProblem(await ctx.user.api.post('/document', { folderId: parent.id, name: 'a/b', content: tooBig[0] }), 413);
    expect(await namesIn(ctx.user.api, parent.id, 'documents')).toEqual([]);
    await expectDocumentUnchanged();
  });

  it('accepts content of exactly 256 KiB of UTF-8', async () => {
    const parent = await freshFolder();
    for (const content of ['a'.repeat(256 * KiB), '\u00e9'.repeat(128 * KiB)]) {
      const created = await newDocument(ctx.user.api, parent.id, { content });
      expect(created.size).toBe(262_144);
      const updated = await ctx.user.api.put('/document', { id: created.id, content: `${content.slice(1)}z` });
      expectJson(updated, 200);
      const stored = await getDocument(ctx.user.api, created.id);
      expect(stored.content!.length).toBe(content.length);
    }
  });
});

describe('415', () => {
  const body = () => JSON.stringify({ name: uniqueName() });

  it('rejects a POST or PUT whose Content-Type is not JSON', async () => {
    const cases: [string, string, Record<string, string>][] = [
      ['POST', '/', { 'content-type': 'text/plain' }],
      ['POST', '/', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['POST', '/', { 'content-type': 'application/json; charset=iso-8859-1' }],
      ['POST', '/folder', { 'content-type': 'text/plain' }],
      ['POST', '/document', { 'content-type': 'text/html' }],
      ['PUT', '/document', { 'content-type': 'text/plain' }],
    ];
    for (const [method, path, headers] of cases) {
      expectProblem(await ctx.user.api.request(method, path, { raw: body(), headers }), 415);
    }
  });

  it('rejects a body without Content-Type', async () => {
    const res = await ctx.user.api.request('POST', '/', { raw: new TextEncoder().encode(body()) });
    expectProblem(res, 415);
    const put = await ctx.user.api.request('PUT', '/document', {
      raw: new TextEncoder().encode(JSON.stringify({ id: ctx.doc.id, content: 'x' })),
    });
    expectProblem(put, 415);
    await expectDocumentUnchanged();
  });

  it('checks the media type before the JSON syntax', async () => {
    expectProblem(await ctx.user.api.request('POST', '/', { raw: '{"broken', headers: { 'content-type': 'text/plain' } }), 415);
  });

  it('creates nothing', async () => {
    const name = uniqueName('not-created');
    expectProblem(
      await ctx.user.api.request('POST', '/', { raw: JSON.stringify({ name }), headers: { 'content-type': 'text/plain' } }),
      415,
    );
    const { items } = await listAll<Repository>(ctx.user.api, '/');
    expect(items.map((r) => r.name)).not.toContain(name);
  });

  it('accepts application/json with UTF-8 and application/*+json', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/merge-patch+json']) {
      const res = await ctx.user.api.request('POST', '/', { raw: body(), headers: { 'content-type': type } });
      expectJson(res, 201);
    }
  });

  it('reads the media type as RFC 9110 writes it: any case, optional whitespace', async () => {
    for (const type of ['APPLICATION/JSON', 'Application/Json; Charset=UTF-8', 'application/json ; charset=utf-8']) {
      const res = await ctx.user.api.request('POST', '/', { raw: body(), headers: { 'content-type': type } });
      expectJson(res, 201);
    }
  });
});
