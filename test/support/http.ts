/**
 * The end-to-end tests' client: the project's typed client (lib/client: openapi-fetch over
 * types generated from openapi.json) with every response checked against openapi.json
 * (./contract.ts), plus fixtures that build data through the public API only (never through
 * the database) and the assertions every error answer shares.
 *
 * `api.client` is the typed client for calls the contract allows; `api.request()` sends
 * anything at all (malformed bodies, unknown routes) through the same client, so those
 * answers are checked against the contract too.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Middleware } from 'openapi-fetch';
import { expect } from 'vitest';
import type { Document as CoreDocument, Folder, Repository } from '#core/resources';
import { createDocumentsClient, type DocumentsClient } from '#lib/client/index';
import { markAsserted, watchedAnswer, watchStatus } from './asserted-statuses';
import { assertKeepsContract, operationOf } from './contract';

/** What the tests need of the running service (test/support/service.ts provides it). */
export interface TestService {
  url: string;
  issueToken(sub: string, extraClaims?: Record<string, unknown>, options?: Record<string, unknown>): Promise<string>;
}

export interface HttpResponse {
  /** `METHOD /path`, for failure messages. */
  request: string;
  status: number;
  headers: Headers;
  /** Parsed JSON when the response says it is JSON, otherwise the raw text (`''` when empty). */
  body: any;
  text: string;
}

export interface RequestOptions {
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is; a `Uint8Array` goes without any `Content-Type` unless `headers` sets one. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** `manual`: a 3xx is the answer (a content route's 302), not followed. */
  redirect?: 'manual';
}

/** Response texts, read once by the contract check and kept for the test to look at. */
const texts = new WeakMap<Response, string>();

/** Every answer the client receives must keep openapi.json: status, headers and body. */
const keepsContract: Middleware = {
  async onResponse({ request, response }) {
    const text = await response.text();
    const path = new URL(request.url).pathname;
    assertKeepsContract({
      method: request.method,
      path,
      status: response.status,
      headers: response.headers,
      body: text,
    });
    const copy = new Response(text === '' ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    texts.set(copy, text);
    // Its status counts as covered only where a test asserts it (./asserted-statuses.ts).
    return watchStatus(copy, { operation: operationOf(request.method, path), status: response.status });
  },
};

/** `client.request` without the compile-time path check: for requests the contract does not allow. */
type AnyRequest = (method: string, url: string, init: Record<string, unknown>) => Promise<{ response: Response }>;

export class Api {
  readonly baseUrl: string;
  /** The typed client (openapi-fetch), authenticated as this caller. */
  readonly client: DocumentsClient;

  constructor(
    baseUrl: string,
    readonly token?: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.client = createDocumentsClient(this.baseUrl, token === undefined ? {} : { token });
    this.client.use(keepsContract);
  }

  /** The same caller with another `Authorization` (or none). */
  withToken(token: string | undefined): Api {
    return new Api(this.baseUrl, token);
  }

  /** The answer to a typed call, in the shape the assertions below take. */
  static async from(request: string, call: Promise<{ response: Response }>): Promise<HttpResponse> {
    return toHttpResponse(request, (await call).response);
  }

  /** Anything at all: any method, any path (with its query), any body. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const headers: Record<string, string | null> = {};
    let body: string | Uint8Array | undefined;
    let bodySerializer: ((b: unknown) => unknown) | undefined;
    if (options.json !== undefined) {
      body = options.json as string; // serialized by the client, as JSON
    } else if (options.raw !== undefined) {
      body = options.raw;
      bodySerializer = (raw) => raw;
      headers['content-type'] = null; // the client would say JSON; the body says what it is
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    const send = this.client.request as unknown as AnyRequest;
    const { response } = await send(method.toLowerCase(), path, {
      headers,
      ...(body === undefined ? {} : { body }),
      ...(bodySerializer ? { bodySerializer } : {}),
      ...(options.redirect ? { redirect: options.redirect } : {}),
      parseAs: 'text',
    });
    return toHttpResponse(`${method} ${path}`, response);
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }
  post(path: string, json: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { json, headers });
  }
  put(path: string, json: unknown, headers?: Record<string, string>) {
    return this.request('PUT', path, { json, headers });
  }
  delete(path: string, headers?: Record<string, string>) {
    return this.request('DELETE', path, { headers });
  }
}

function toHttpResponse(request: string, response: Response): HttpResponse {
  const text = texts.get(response);
  const answer = watchedAnswer(response);
  if (text === undefined || answer === undefined) throw new Error(`${request}: the answer did not pass the contract check`);
  const contentType = response.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (text !== '' && /^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return watchStatus({ request, status: answer.status, headers: response.headers, body: parsed, text }, answer);
}

// ---------------------------------------------------------------------------------------------
// Resources as the contract (docs/api.md) describes them.

export type { Folder, Repository } from '#core/resources';
/** A document as any response shows it: `content` is absent from lists. */
export type Document = Omit<CoreDocument, 'content'> & { content?: string };

// ---------------------------------------------------------------------------------------------
// Fixtures.

export interface User {
  sub: string;
  api: Api;
}

/** A caller nobody else uses: a random `sub` with a valid token. */
export async function newUser(svc: TestService): Promise<User> {
  const sub = `user-${randomUUID()}`;
  return { sub, api: new Api(svc.url, await svc.issueToken(sub)) };
}

/** A name no other test uses. */
export function uniqueName(prefix = 'item'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

/** A well-formed id that names nothing (the shape of a service-made id). */
export function randomId(): string {
  return randomBytes(16).toString('base64url');
}

/** Throws with the whole exchange when a fixture step does not answer as expected. */
export function ensure(res: HttpResponse, status: number): HttpResponse {
  if (res.status !== status) throw new Error(`${res.request}: expected ${status}, got ${res.status} ${res.text}`);
  markAsserted(res);
  return res;
}

export async function newRepository(api: Api, fields: { name?: string; description?: string } = {}): Promise<Repository> {
  const body = {
    name: fields.name ?? uniqueName('repo'),
    ...(fields.description === undefined ? {} : { description: fields.description }),
  };
  return ensure(await Api.from('POST /', api.client.POST('/', { body })), 201).body as Repository;
}

/**
 * A fixture create, sent again when a loaded DynamoDB Local made it a 503, as the contract tells
 * clients to (`Retry-After`). A 503 may come after the write committed: a `409` for the name on
 * the next attempt then means the first one made it, found by its name (fixtures' names are
 * unique in their folder). So a resend can hide what the first attempt did (a second change in
 * the feed, a name a failed write kept): only set-up whose own outcome no test examines goes
 * through here (`newFolder`, `newDocument`). A write a test then examines (its change in the
 * feed, that its name was free, its answer) is sent once, with `postFolder` / `postDocument`.
 */
async function createFixture<T extends { id: string; name: string }>(
  send: () => Promise<HttpResponse>,
  madeEarlier: () => Promise<T | undefined>,
  once = false,
): Promise<T> {
  let res = await send();
  for (let attempt = 1; !once && res.status === 503 && attempt <= 3; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)));
    res = await send();
    if (res.status === 409 && res.body?.type === problemType[409]) {
      const found = await madeEarlier();
      if (found) return found;
    }
  }
  return ensure(res, 201).body as T;
}

/** The item of that name in a folder's list of sub folders or documents, if there is one. */
const listedAs = async <T extends { name: string }>(api: Api, folderId: string, kind: 'folders' | 'documents', name: string) =>
  (await listAll<T>(api, `/folder/${folderId}/${kind}`, 100)).items.find((item) => item.name === name);

/** A folder for set-up (resent after a 503: `createFixture`). */
export async function newFolder(api: Api, parentId: string, name = uniqueName('folder'), once = false): Promise<Folder> {
  return createFixture(
    () => Api.from('POST /folder', api.client.POST('/folder', { body: { parentId, name } })),
    () => listedAs<Folder>(api, parentId, 'folders', name),
    once,
  );
}

type DocumentFields = { name?: string; content?: string; contentType?: string; id?: string };

/** A document for set-up (resent after a 503: `createFixture`). */
export async function newDocument(api: Api, folderId: string, fields: DocumentFields = {}, once = false): Promise<Document> {
  const body = { folderId, name: uniqueName('doc'), ...fields };
  // A list shows no content: the document is read again whole.
  return createFixture(
    () => Api.from('POST /document', api.client.POST('/document', { body })),
    async () => {
      const listed = await listedAs<Document>(api, folderId, 'documents', body.name);
      return listed && getDocument(api, listed.id);
    },
    once,
  );
}

/** A folder made by one request, never resent, that must be a 201: for a write the test examines. */
export const postFolder = (api: Api, parentId: string, name?: string): Promise<Folder> => newFolder(api, parentId, name, true);

/** A document made by one request, never resent, that must be a 201: for a write the test examines. */
export const postDocument = (api: Api, folderId: string, fields: DocumentFields = {}): Promise<Document> =>
  newDocument(api, folderId, fields, true);

export async function getDocument(api: Api, id: string): Promise<Document> {
  return ensure(await Api.from(`GET /document/${id}`, api.client.GET('/document/{id}', { params: { path: { id } } })), 200)
    .body as Document;
}

/** Gives `userId` a role in the repository through the API (PUT /{id}/members/{userId}); 201 or 200. */
export async function setRole(
  owner: Api,
  repositoryId: string,
  userId: string,
  role: 'owner' | 'editor' | 'viewer',
): Promise<HttpResponse> {
  const res = await Api.from(
    `PUT /${repositoryId}/members/${userId}`,
    owner.client.PUT('/{id}/members/{userId}', { params: { path: { id: repositoryId, userId } }, body: { role } }),
  );
  if (res.status !== 201 && res.status !== 200) throw new Error(`${res.request}: expected 201 or 200, got ${res.status} ${res.text}`);
  return res;
}

/** Removes a member through the API (DELETE /{id}/members/{userId}); 204. */
export async function removeMember(api: Api, repositoryId: string, userId: string): Promise<void> {
  const res = await Api.from(
    `DELETE /${repositoryId}/members/${userId}`,
    api.client.DELETE('/{id}/members/{userId}', { params: { path: { id: repositoryId, userId } } }),
  );
  ensure(res, 204);
}

/** Follows `nextToken` to the end of a list; every page must be a 200. */
export async function listAll<T = { id: string; name: string }>(
  api: Api,
  path: string,
  limit?: number,
): Promise<{ items: T[]; pages: T[][]; tokens: string[] }> {
  const pages: T[][] = [];
  const tokens: string[] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (token !== undefined) query.set('nextToken', token);
    const qs = query.toString();
    const res = ensure(await api.get(qs ? `${path}?${qs}` : path), 200);
    expect(Array.isArray(res.body.items), `${res.request}: items`).toBe(true);
    pages.push(res.body.items as T[]);
    token = res.body.nextToken;
    if (token !== undefined && (typeof token !== 'string' || token === '')) {
      throw new Error(`${res.request}: nextToken must be absent or a non-empty string, got ${JSON.stringify(token)}`);
    }
    if (token !== undefined) tokens.push(token);
    if (pages.length > 200) throw new Error(`${path}: more than 200 pages, the nextToken never ends`);
  } while (token !== undefined);
  return { items: pages.flat(), pages, tokens };
}

/** The names of a folder's sub folders or documents (one big page). */
export async function namesIn(api: Api, folderId: string, kind: 'folders' | 'documents'): Promise<string[]> {
  const { items } = await listAll<{ name: string }>(api, `/folder/${folderId}/${kind}`, 100);
  return items.map((i) => i.name);
}

/** Runs `fn` over `items` with at most `width` in flight (fixture set-up, not a race). */
export async function inBatches<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

/** The contract's order: by name, case-insensitively (lower case of NFC), ascending. */
export function byName<T extends { name: string }>(items: readonly T[]): T[] {
  const key = (s: string) => s.normalize('NFC').toLowerCase();
  return [...items].sort((a, b) => (key(a.name) < key(b.name) ? -1 : key(a.name) > key(b.name) ? 1 : 0));
}

/** How many responses of a race had each status, e.g. `{ 201: 1, 409: 7 }`. */
export function countStatuses(responses: readonly HttpResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Assertions.

export const problemType = {
  400: 'urn:problem-type:documents:validation-error',
  malformedJson: 'urn:problem-type:documents:malformed-json',
  401: 'urn:problem-type:documents:unauthorized',
  403: 'urn:problem-type:documents:forbidden',
  404: 'urn:problem-type:documents:not-found',
  405: 'urn:problem-type:documents:method-not-allowed',
  409: 'urn:problem-type:documents:conflict',
  412: 'urn:problem-type:documents:precondition-failed',
  413: 'urn:problem-type:documents:payload-too-large',
  415: 'urn:problem-type:documents:unsupported-media-type',
  410: 'urn:problem-type:documents:cursor-expired',
  422: 'urn:problem-type:documents:idempotency-key-reused',
  503: 'urn:problem-type:documents:unavailable',
  idempotencyKeyReused: 'urn:problem-type:documents:idempotency-key-reused',
  requestInProgress: 'urn:problem-type:documents:request-in-progress',
} as const;

type ProblemStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 412 | 413 | 415 | 422 | 503;

/** Traces of internals an error body must never show: stack frames, source paths. */
const INTERNALS = /(\n|\\n)\s*at\s|\bat \S+ \([^)]*:\d+:\d+\)|\bat (file|node):|\.(ts|js|mjs|cjs):\d+|node_modules|\/work\//;

/**
 * An RFC 9457 problem with the status, the stable `type` for it, a title, `errors` only on a
 * validation error, and nothing of the service's internals.
 */
export function expectProblem(res: HttpResponse, status: ProblemStatus, type: string = problemType[status]): void {
  expect(res.status, `${res.request} → ${res.status} ${res.text}`).toBe(status);
  expect(res.headers.get('content-type'), `${res.request}: content-type`).toMatch(/^application\/problem\+json/i);
  expect(res.body, `${res.request}: body`).toMatchObject({ type, status });
  expect(typeof res.body.title, `${res.request}: title`).toBe('string');
  expect(res.body.title.length).toBeGreaterThan(0);
  expect(res.text, `${res.request}: shows internals`).not.toMatch(INTERNALS);
  expect(res.headers.get('cache-control') ?? '', `${res.request}: cache-control`).toMatch(/no-store/);
  if (type === problemType[400]) {
    expect(Array.isArray(res.body.errors), `${res.request}: errors[]`).toBe(true);
    expect(res.body.errors.length).toBeGreaterThan(0);
    for (const e of res.body.errors) {
      expect(typeof e.path, `${res.request}: errors[].path`).toBe('string');
      expect(typeof e.message, `${res.request}: errors[].message`).toBe('string');
    }
  } else {
    expect(res.body.errors, `${res.request}: errors only on validation`).toBeUndefined();
  }
}

/** A 400 validation error that names `path` among its errors. */
export function expectValidationError(res: HttpResponse, path: string): void {
  expectProblem(res, 400);
  const paths = (res.body.errors as { path: string }[]).map((e) => e.path);
  expect(paths, `${res.request}: errors[].path`).toContain(path);
}

/** A successful JSON answer with the given status, private (`Cache-Control: no-store`). */
export function expectJson(res: HttpResponse, status: 200 | 201): void {
  expect(res.status, `${res.request} → ${res.status} ${res.text}`).toBe(status);
  expect(res.headers.get('content-type'), `${res.request}: content-type`).toMatch(/^application\/json; ?charset=utf-8$/i);
  expect(res.headers.get('cache-control') ?? '', `${res.request}: cache-control`).toMatch(/no-store/);
}

/** An ISO 8601 UTC time close to now. */
export function expectRecentTime(value: unknown): void {
  expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const ms = Date.parse(value as string);
  expect(Math.abs(Date.now() - ms)).toBeLessThan(120_000);
}

/** The path of a `Location` header, whether the service sent it relative or absolute. */
export function locationPath(res: HttpResponse): string | undefined {
  const location = res.headers.get('location');
  return location === null ? undefined : new URL(location, 'http://service.invalid').pathname;
}

export const SERVICE_ID = /^[A-Za-z0-9_-]{22}$/;
/** Any id the API allows. */
export const API_ID = /^[A-Za-z0-9_-]{1,64}$/;
