/**
 * Property test against the running service: requests generated from the schemas (valid and
 * deliberately invalid bodies, ids, `limit`/`nextToken`, `If-Match`, media types) are sent
 * through the e2e client, so every answer is also checked against openapi.json.
 *
 * The oracle is the service's own rules, not its code paths: the zod schemas the handlers
 * validate with decide 400/413, a model of what was created decides 404/409/412 (and 400 for
 * a move to another repository). A request nothing is wrong with must succeed; any other
 * must get one of the 4xx that apply, as problem+json; none may ever get a 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '#core/errors';
import { type InputSchemas, validateInput } from '#core/http/validation';
import { nameKey, normalizeName } from '#core/names';
import { parseIfMatch } from '#core/preconditions';
import type { Folder } from '#core/resources';
import { createDocumentBody, createFolderBody, createRepositoryBody, idParams, pageQuery, updateDocumentBody } from '#core/schemas';
import { ensure, type HttpResponse, newUser, type User } from '#test/support/http';
import { startTestService, type TestService } from '#test/support/service';
import { reportStat } from '#test/support/stats';
import { bodies, edges, fieldValue, ifMatches, limits, text, validId } from './arbitraries';

let svc: TestService;
let owner: User;

// ---------------------------------------------------------------------------------------------
// The model: what exists, as the service has said.

interface ModelFolder {
  repositoryId: string;
  /** Name keys of the sub folders and documents in it. */
  names: Set<string>;
}
const folders = new Map<string, ModelFolder>();
const documents = new Map<string, { folderId: string; key: string; version: number }>();
/** Repository id → its root folder id. */
const repositories = new Map<string, string>();
/** Tokens the service handed out, with the list they belong to. */
const tokens: { list: string; token: string }[] = [];

const addFolder = (folder: Folder) => folders.set(folder.id, { repositoryId: folder.repositoryId, names: new Set() });

/** An id: usually one that exists (the n-th of its kind), sometimes any generated one. */
const idChoice = fc.oneof(
  { weight: 5, arbitrary: fc.nat().map((n) => ({ existing: n })) },
  { weight: 2, arbitrary: fc.oneof(validId, edges.id!).map((id) => ({ id: String(id) })) },
);
type IdChoice = { existing: number } | { id: string };
const pick = (choice: IdChoice, from: Map<string, unknown>) => {
  if ('id' in choice) return choice.id;
  const keys = [...from.keys()];
  return keys.length === 0 ? 'none' : keys[choice.existing % keys.length]!;
};

// ---------------------------------------------------------------------------------------------
// Requests.

type Body = { json: unknown } | { raw: string; contentType: string };
const bodyOf = (schemaFields: string[], required: string[], overrides: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.oneof(
    {
      weight: 12,
      arbitrary: bodies(schemaFields, required, (name) => overrides[name] ?? fieldValue(name)).map((json): Body => ({ json })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '[1,', '{"name": "x",}', '').map((raw): Body => ({ raw, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1')
        .map((contentType): Body => ({ raw: '{"name":"x"}', contentType })),
    },
  );

/** Ids in a body: usually an existing folder / document, as the model knows them. */
const folderRef = idChoice.map((c) => ({ folder: c }));
const documentRef = idChoice.map((c) => ({ document: c }));

const requests = fc.oneof(
  fc.record({ kind: fc.constant('createRepository' as const), body: bodyOf(['name', 'description'], ['name']) }),
  fc.record({
    kind: fc.constant('createFolder' as const),
    body: bodyOf(['parentId', 'name'], ['parentId', 'name'], { parentId: folderRef }),
  }),
  fc.record({
    kind: fc.constant('createDocument' as const),
    body: bodyOf(['folderId', 'name', 'content', 'contentType', 'id'], ['folderId', 'name'], {
      folderId: folderRef,
      id: fc.oneof(validId, documentRef, edges.id!),
    }),
  }),
  fc.record({
    kind: fc.constant('updateDocument' as const),
    body: bodyOf(['id', 'name', 'content', 'contentType', 'folderId', 'version'], ['id'], { id: documentRef, folderId: folderRef }),
    ifMatch: fc.option(ifMatches, { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('getDocument' as const), id: idChoice }),
  fc.record({ kind: fc.constant('read' as const), what: fc.constantFrom('folder', 'repository', 'rootFolder'), id: idChoice }),
  fc.record({ kind: fc.constant('deleteDocument' as const), id: idChoice, ifMatch: fc.option(ifMatches, { nil: undefined }) }),
  fc.record({
    kind: fc.constant('list' as const),
    what: fc.constantFrom('folders', 'documents', 'repositories'),
    id: idChoice,
    limit: fc.option(limits, { nil: undefined }),
    nextToken: fc.option(
      fc.oneof(
        fc.nat().map((n) => ({ issued: n })),
        text(8).map((t) => ({ text: t })),
        fc.nat().map((n) => ({ tampered: n })),
      ),
      {
        nil: undefined,
      },
    ),
  }),
);
type Request = typeof requests extends fc.Arbitrary<infer R> ? R : never;

/** Replaces `{folder: choice}` / `{document: choice}` placeholders with ids from the model. */
function resolveRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveRefs);
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if ('folder' in v && Object.keys(v).length === 1) return pick(v.folder as IdChoice, folders);
    if ('document' in v && Object.keys(v).length === 1) return pick(v.document as IdChoice, documents);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveRefs(x)]));
  }
  return value;
}

/** The status the schemas give a request, or undefined when they accept it. */
function schemaStatus(schemas: InputSchemas, raw: { params?: unknown; query?: unknown; body?: unknown }): number | undefined {
  try {
    validateInput(schemas, { params: raw.params ?? {}, query: raw.query ?? {}, body: raw.body });
    return undefined;
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

/** The body's status before any schema: 415 for a non-JSON media type, 400 for broken JSON. */
function transportStatus(body: Body): number | undefined {
  if ('json' in body) return undefined;
  if (!/^application\/json(;\s*charset=utf-8)?$/i.test(body.contentType)) return 415;
  try {
    JSON.parse(body.raw);
    return undefined;
  } catch {
    return 400;
  }
}

const sendBody = (method: string, path: string, body: Body, headers: Record<string, string> = {}) =>
  'json' in body
    ? owner.api.request(method, path, { json: body.json, headers })
    : owner.api.request(method, path, { raw: body.raw, headers: { ...headers, 'content-type': body.contentType } });

/** Path segments the URL parser would not keep as they are. */
const pathSafe = (id: string) => id !== '' && id !== '.' && id !== '..' && id.isWellFormed();
/** `/{id}` with these is another route (`/docs`, `/openapi.json`) or `/{id}` by another name. */
const routeLiterals = new Set(['docs', 'openapi.json', 'folder', 'document']);

interface Outcome {
  res: HttpResponse;
  /** Statuses the request may get because something is wrong with it; empty: it must succeed. */
  errors: number[];
  success: number;
  /** Updates the model after a success. */
  apply?: () => void;
}

async function send(request: Request): Promise<Outcome | undefined> {
  switch (request.kind) {
    case 'createRepository': {
      const status =
        transportStatus(request.body) ??
        ('json' in request.body ? schemaStatus({ body: createRepositoryBody }, { body: request.body.json }) : undefined);
      const res = await sendBody('POST', '/', request.body);
      const apply = () => {
        repositories.set(res.body.id, res.body.rootFolderId);
        addFolder({ id: res.body.rootFolderId, repositoryId: res.body.id } as Folder);
      };
      return { res, errors: status ? [status] : [], success: 201, apply };
    }
    case 'createFolder':
    case 'createDocument': {
      const isFolder = request.kind === 'createFolder';
      const body: Body = 'json' in request.body ? { json: resolveRefs(request.body.json) } : request.body;
      const schema = isFolder ? createFolderBody : createDocumentBody;
      const status = transportStatus(body) ?? ('json' in body ? schemaStatus({ body: schema }, { body: body.json }) : undefined);
      const res = await sendBody('POST', isFolder ? '/folder' : '/document', body);
      if (status) return { res, errors: [status], success: 201 };
      const input = (body as { json: Record<string, string> }).json;
      const parent = folders.get(isFolder ? input.parentId! : input.folderId!);
      const key = nameKey(normalizeName(input.name!));
      const errors: number[] = [];
      if (!parent) errors.push(404);
      else if (parent.names.has(key) || (!isFolder && input.id !== undefined && documents.has(input.id))) errors.push(409);
      return {
        res,
        errors,
        success: 201,
        apply: () => {
          parent!.names.add(key);
          if (isFolder) addFolder(res.body as Folder);
          else documents.set(res.body.id, { folderId: res.body.folderId, key, version: 1 });
        },
      };
    }
    case 'updateDocument': {
      const body: Body = 'json' in request.body ? { json: resolveRefs(request.body.json) } : request.body;
      const headers: Record<string, string> = request.ifMatch === undefined ? {} : { 'if-match': request.ifMatch };
      let status = transportStatus(body) ?? ('json' in body ? schemaStatus({ body: updateDocumentBody }, { body: body.json }) : undefined);
      let ifMatch: number[] | undefined;
      try {
        ifMatch = parseIfMatch(request.ifMatch);
      } catch {
        status ??= 400;
      }
      const res = await sendBody('PUT', '/document', body, headers);
      if (status) return { res, errors: [status], success: 200 };
      const input = (body as { json: { id: string; name?: string; folderId?: string; version?: number } }).json;
      const stored = documents.get(input.id);
      if (!stored) return { res, errors: [404], success: 200 };
      const errors: number[] = [];
      if ((ifMatch && !ifMatch.includes(stored.version)) || (input.version !== undefined && input.version !== stored.version))
        errors.push(412);
      const targetId = input.folderId ?? stored.folderId;
      const target = folders.get(targetId);
      const key = input.name === undefined ? stored.key : nameKey(normalizeName(input.name));
      if (!target) errors.push(404);
      else if (target.repositoryId !== folders.get(stored.folderId)!.repositoryId) errors.push(400);
      else if ((targetId !== stored.folderId || key !== stored.key) && target.names.has(key)) errors.push(409);
      return {
        res,
        errors,
        success: 200,
        apply: () => {
          folders.get(stored.folderId)!.names.delete(stored.key);
          target!.names.add(key);
          documents.set(input.id, { folderId: targetId, key, version: stored.version + 1 });
        },
      };
    }
    case 'getDocument':
    case 'deleteDocument': {
      const id = pick(request.id, documents);
      if (!pathSafe(id)) return undefined;
      const isDelete = request.kind === 'deleteDocument';
      const headers: Record<string, string> = isDelete && request.ifMatch !== undefined ? { 'if-match': request.ifMatch } : {};
      const res = await owner.api.request(isDelete ? 'DELETE' : 'GET', `/document/${encodeURIComponent(id)}`, { headers });
      if (schemaStatus({ params: idParams }, { params: { id } })) return { res, errors: [400], success: 0 };
      let ifMatch: number[] | undefined;
      try {
        ifMatch = isDelete ? parseIfMatch(request.ifMatch) : undefined;
      } catch {
        return { res, errors: [400], success: 204 };
      }
      const stored = documents.get(id);
      if (!stored) return { res, errors: [404], success: 0 };
      const errors = ifMatch && !ifMatch.includes(stored.version) ? [412] : [];
      if (!isDelete) return { res, errors, success: 200 };
      return {
        res,
        errors,
        success: 204,
        apply: () => {
          folders.get(stored.folderId)!.names.delete(stored.key);
          documents.delete(id);
        },
      };
    }
    case 'read': {
      const isFolder = request.what === 'folder';
      const id = pick(request.id, isFolder ? folders : repositories);
      if (!pathSafe(id) || routeLiterals.has(id)) return undefined;
      const path = isFolder
        ? `/folder/${encodeURIComponent(id)}`
        : `/${encodeURIComponent(id)}${request.what === 'rootFolder' ? '/folder' : ''}`;
      const res = await owner.api.request('GET', path);
      if (schemaStatus({ params: idParams }, { params: { id } })) return { res, errors: [400], success: 200 };
      return { res, errors: (isFolder ? folders : repositories).has(id) ? [] : [404], success: 200 };
    }
    case 'list': {
      const all = request.what === 'repositories';
      const id = all ? '' : pick(request.id, folders);
      if (!all && !pathSafe(id)) return undefined;
      const list = `${request.what}:${id}`;
      const query = new URLSearchParams();
      if (request.limit !== undefined) query.set('limit', request.limit);
      const next = request.nextToken;
      let issuedFor: string | undefined;
      if (next && 'issued' in next && tokens.length > 0) {
        const issued = tokens[next.issued % tokens.length]!;
        query.set('nextToken', issued.token);
        issuedFor = issued.list;
      } else if (next && 'tampered' in next && tokens.length > 0) {
        const { token } = tokens[next.tampered % tokens.length]!;
        const at = next.tampered % token.length;
        query.set('nextToken', token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1));
      } else if (next && 'text' in next) query.set('nextToken', next.text);
      const qs = query.toString();
      const path = all ? '/' : `/folder/${encodeURIComponent(id)}/${request.what}`;
      const res = await owner.api.request('GET', `${path}${qs ? `?${qs}` : ''}`);
      // What the service receives, after URL encoding (a lone surrogate arrives as U+FFFD).
      const received = Object.fromEntries(new URLSearchParams(qs));
      const status = schemaStatus(all ? { query: pageQuery } : { params: idParams, query: pageQuery }, { params: { id }, query: received });
      if (status) return { res, errors: [status], success: 200 };
      const errors: number[] = [];
      if (!all && !folders.has(id)) errors.push(404);
      if (received.nextToken !== undefined && issuedFor !== list) errors.push(400);
      return {
        res,
        errors,
        success: 200,
        apply: () => {
          if (res.body.nextToken) tokens.push({ list, token: res.body.nextToken });
        },
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  svc = await startTestService();
  owner = await newUser(svc);
  // Two repositories, so a move to another repository's folder can be generated.
  for (let i = 0; i < 2; i++) {
    const repository = ensure(await owner.api.post('/', { name: `repository ${i}` }), 201).body;
    repositories.set(repository.id, repository.rootFolderId);
    addFolder({ id: repository.rootFolderId, repositoryId: repository.id } as Folder);
  }
}, 60_000);
afterAll(() => svc.stop());

describe('generated requests against the running service', () => {
  it('valid ones succeed; invalid ones get a 4xx problem+json that applies; none gets a 5xx', async () => {
    const counts = { sent: 0, succeeded: 0, rejected: 0 };
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        const outcome = await send(request);
        if (!outcome) return;
        counts.sent++;
        const { res, errors, success, apply } = outcome;
        const what = `${res.request} → ${res.status} ${res.text.slice(0, 300)}`;
        expect(res.status, what).toBeLessThan(500);
        if (errors.length === 0) {
          expect(res.status, `${what}: nothing is wrong with it`).toBe(success);
          counts.succeeded++;
          apply?.();
        } else {
          expect(errors, `${what}: expected one of ${errors.join(', ')}`).toContain(res.status);
          expect(res.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
          counts.rejected++;
        }
      }),
      // Moderate: the whole suite runs on two cores. Stateful, so a failure is reported as found.
      { numRuns: 600, endOnFailure: true },
    );
    reportStat('propertyRequests', counts.sent);
    console.log(`[stats] property test: ${counts.succeeded} succeeded, ${counts.rejected} rejected with a 4xx`);
    // Both sides of the line were reached, often.
    expect(counts.succeeded).toBeGreaterThan(counts.sent / 5);
    expect(counts.rejected).toBeGreaterThan(counts.sent / 5);
  }, 240_000);
});
