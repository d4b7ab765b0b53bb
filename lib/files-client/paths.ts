/**
 * The file routes of API.md section 12, typed by hand in openapi-typescript's shape until
 * `npm run openapi` writes them into lib/client/schema.ts. The one switch then: `FilePaths` and
 * the types below come from `#lib/client/index` (its `paths` and `components`), and api.ts makes
 * its client with `createDocumentsClient`; the calls stay as they are.
 */
import type { Document } from '#lib/client/index';

/** Any problem+json answer (RFC 9457); `type` tells the kind (API.md section 6). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
}

export interface PartUrl {
  number: number;
  url: string;
  expiresAt: string;
}

export type UploadStatus = 'open' | 'verifying' | 'completed' | 'failed' | 'cancelled' | 'expired';

export interface Upload {
  id: string;
  documentId: string;
  repositoryId: string;
  folderId: string;
  name: string;
  size: number;
  contentType: string;
  sha256?: string;
  partSize: number;
  partCount: number;
  /** In the 201 only: URLs for parts 1 to min(partCount, 100). */
  parts?: PartUrl[];
  /** In GET only: the parts the bucket holds. */
  received?: { number: number; size: number }[];
  status: UploadStatus;
  problem?: Problem;
  expiresAt: string;
  createdAt: string;
  createdBy: string;
}

/** A new document in a folder, or a new version of a document. */
export type StartUpload =
  | { folderId: string; name: string; size: number; contentType?: string; sha256?: string; id?: string }
  | { documentId: string; size: number; contentType?: string; sha256?: string; version?: number };

/** A Document as section 12 has it: `storage` and `sha256`, and no `content` for a file. */
export type FileDocument = Omit<Document, 'content'> & { content?: string; storage: 'inline' | 'file'; sha256: string };

type NoParameters = { query?: never; header?: never; path?: never; cookie?: never };
type IdParameter = { query?: never; header?: never; path: { id: string }; cookie?: never };
type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Empty = { headers: { [name: string]: unknown }; content?: never };
type Errors = { [status in 400 | 401 | 403 | 404 | 409 | 410 | 412 | 413 | 415 | 422 | 429 | 500 | 503]: Json<Problem> };
/** An operation without a request body, and one with a JSON body. */
type Op<P, Responses> = { parameters: P; requestBody?: never; responses: Responses & Errors };
type OpWithBody<P, Body, Responses> = {
  parameters: P;
  requestBody: { content: { 'application/json': Body } };
  responses: Responses & Errors;
};
type NoMethods = { get?: never; put?: never; post?: never; delete?: never; options?: never; head?: never; patch?: never; trace?: never };
type PathItem<Methods> = { parameters: NoParameters } & Omit<NoMethods, keyof Methods> & Methods;

type WithIdempotencyKey<P> = Omit<P, 'header'> & { header?: { 'Idempotency-Key'?: string } };

export interface FilePaths {
  '/uploads': PathItem<{ post: OpWithBody<WithIdempotencyKey<NoParameters>, StartUpload, { 201: Json<Upload> }> }>;
  '/uploads/{id}': PathItem<{ get: Op<IdParameter, { 200: Json<Upload> }>; delete: Op<IdParameter, { 204: Empty }> }>;
  '/uploads/{id}/parts': PathItem<{ post: OpWithBody<IdParameter, { numbers: number[] }, { 200: Json<{ items: PartUrl[] }> }> }>;
  '/uploads/{id}/complete': PathItem<{ post: Op<IdParameter, { 200: Json<FileDocument>; 202: Json<Upload> }> }>;
  '/document/{id}': PathItem<{ get: Op<IdParameter, { 200: Json<FileDocument> }> }>;
  '/document/{id}/content': PathItem<{ get: Op<IdParameter, { 200: Empty; 302: Empty }> }>;
}
