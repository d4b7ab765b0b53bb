/**
 * What a handler module declares about its endpoint, next to its code: the request schemas it
 * validates with, what it answers on success, the errors its own logic raises, and the words
 * for readers. `endpoint()` runs from it; lib/openapi documents from it. What every endpoint
 * shares (400, 401, 413, 415, 429, 500, 503) follows from the route and is not declared.
 */
import type * as z from 'zod/mini';
import type { ProblemKind } from '../errors';
import type { ResourceName, Role } from '../resources';

export type Tag =
  | 'Repositories'
  | 'Members'
  | 'Folders'
  | 'Documents'
  | 'Uploads'
  | 'Trash'
  | 'Revisions'
  | 'Changes'
  | 'Links'
  | 'Search'
  | 'Documentation';

/** Errors an endpoint's own logic raises (and what each means there). */
export type DomainProblem = Exclude<
  ProblemKind,
  | 'validation-error'
  | 'malformed-json'
  | 'unauthorized'
  | 'method-not-allowed'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'throttled'
  | 'unavailable'
  | 'internal'
>;

export interface JsonSuccess {
  status: 200 | 201 | 204;
  description: string;
  /** The body: a resource of core/resources.ts, by name; none for 204. */
  body?: ResourceName;
  /** `ETag: "<version>"` from the body's `version`. */
  etag?: boolean;
  /** `Location` of a 201: a path template filled from the body (`/document/{id}`). */
  location?: string;
  /**
   * A PUT that may make what it names answers 201 (with `Location`: the request's own path,
   * `{param}`s filled from the path parameters) when it did, `status` otherwise: its `run`
   * returns `created(body)` for the 201 (core/http/endpoint.ts).
   */
  created?: { description: string; location: string };
  /** It may also answer 202 with this body and `Retry-After` while work goes on: its `run` returns `accepted(body, seconds)`. */
  accepted?: { description: string; body: ResourceName };
}

/** A public document of another media type (the API reference routes). */
export interface DocumentSuccess {
  status: 200;
  description: string;
  mediaTypes: Record<string, { description?: string }>;
  cacheControl: 'public';
  contentSecurityPolicy?: boolean;
}

/**
 * A document's content as bytes (docs/api.md: Files): 200 with the bytes of inline text, or 302
 * to a presigned URL of the bucket for a file; both as an attachment, with the safety headers.
 */
export interface ContentSuccess {
  status: 200;
  description: string;
  /** What the 302 is for. */
  redirect: string;
}

/**
 * Who may call an endpoint: anyone (`public`: no token), any signed-in caller (`signed-in`), or
 * a member of the repository it touches with at least this role (`viewer` < `editor` < `owner`).
 * A caller below the role gets 403, a caller who is not a member 404 (docs/api.md: Roles).
 * `uploader`: only the user who began the upload; anyone else gets 404, as if it did not exist.
 * The store enforces it; this says it, for the reference and for the role matrix.
 */
export type Access = 'public' | 'signed-in' | Role | 'uploader';

/**
 * What an example request may name: a repository the caller may reach, with a folder, a document
 * in it, a document in its trash and a member (a `viewer`, by JWT `sub`); `unique` makes names
 * that are free. An example that uses up what it names (`consumes`) is given a new scene each time.
 */
export interface Scene {
  repository: string;
  folder: string;
  document: string;
  trashedDocument: string;
  member: string;
  /** An open upload of a small file the caller began, no byte sent yet. */
  upload: string;
  /** The same, with its bytes sent (so it can be completed). */
  sentUpload: string;
  /** A share link of `document`, made by the repository's owner, without a password, and its token. */
  link: string;
  linkToken: string;
  unique: string;
}

/** A request the endpoint answers with its success status (a create-or-update: with 201). */
export interface ExampleRequest {
  /** Path parameters, as they are (the consumer percent-encodes them into the route's path). */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** The JSON body. */
  body?: unknown;
  /** A raw body (operations that declare `rawBody`), and its media type. */
  raw?: { body: string; contentType: string };
}

export interface Example {
  request(scene: Scene): ExampleRequest;
  /** It deletes, restores or otherwise uses up what it names: each request needs a scene of its own. */
  consumes?: boolean;
}

export interface Operation {
  tag: Tag;
  access: Access;
  example: Example;
  summary: string;
  description?: string;
  params?: z.core.$ZodObject;
  query?: z.core.$ZodObject;
  /** The JSON body; its OpenAPI component is named after the route (`CreateDocumentRequest`). */
  body?: z.core.$ZodType;
  /** The body may be left out altogether (no bytes): it is then taken as `{}`. */
  bodyOptional?: boolean;
  /** The body is raw bytes of any media type, never parsed, up to `maxBytes` (PUT /document/{id}/content). */
  rawBody?: { maxBytes: number; description: string };
  /** Takes `If-Match` (docs/api.md). */
  ifMatch?: boolean;
  success: JsonSuccess | DocumentSuccess | ContentSuccess;
  errors?: Partial<Record<DomainProblem, string>>;
  /**
   * A share link's public route: every answer carries `Cache-Control: private, no-store` and
   * `Referrer-Policy: no-referrer` (functions/links/public.ts), and a 401 `WWW-Authenticate: Link-Password`.
   */
  linkAnswers?: true;
  /** A path parameter that is not an id: its allowed values (the docs asset names). */
  pathParameter?: { name: string; description: string; enum: readonly string[] };
}

/** Words several operations share. */
export const notVisible = (what: string) => `No such ${what}, or you are not a member of its repository.`;
export const readOnly = 'Your role (`viewer`) does not allow changes.';
