/**
 * What a handler module declares about its endpoint, next to its code: the request schemas it
 * validates with, what it answers on success, the errors its own logic raises, and the words
 * for readers. `endpoint()` runs from it; lib/openapi documents from it. What every endpoint
 * shares (400, 401, 413, 415, 429, 500, 503) follows from the route and is not declared.
 */
import type * as z from 'zod/mini';
import type { ProblemKind } from '../errors';
import type { ResourceName } from '../resources';

export type Tag = 'Repositories' | 'Members' | 'Folders' | 'Documents' | 'Trash' | 'Revisions' | 'Changes' | 'Documentation';

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
}

/** A public document of another media type (the API reference routes). */
export interface DocumentSuccess {
  status: 200;
  description: string;
  mediaTypes: Record<string, { description?: string }>;
  cacheControl: 'public';
  contentSecurityPolicy?: boolean;
}

export interface Operation {
  tag: Tag;
  summary: string;
  description?: string;
  params?: z.core.$ZodObject;
  query?: z.core.$ZodObject;
  /** The JSON body; its OpenAPI component is named after the route (`CreateDocumentRequest`). */
  body?: z.core.$ZodType;
  /** The body may be left out altogether (no bytes): it is then taken as `{}`. */
  bodyOptional?: boolean;
  /** Takes `If-Match` (docs/api.md). */
  ifMatch?: boolean;
  success: JsonSuccess | DocumentSuccess;
  errors?: Partial<Record<DomainProblem, string>>;
  /** A path parameter that is not an id: its allowed values (the docs asset names). */
  pathParameter?: { name: string; description: string; enum: readonly string[] };
}

/** Words several operations share. */
export const notVisible = (what: string) => `No such ${what}, or you are not a member of its repository.`;
export const readOnly = 'Your role (`viewer`) does not allow changes.';
