/**
 * The routes the file tools call, as the typed client knows them: the /uploads routes from
 * lib/client (generated from openapi.json). GET /document/{id}/content and a Document's `storage`
 * and `sha256` (API.md section 12) are typed here by hand, in openapi-typescript's shape, until
 * `npm run openapi` writes them too; then `FilePaths` is `paths`, `FileDocument` is `Document`, and
 * api.ts makes its client with `createDocumentsClient`. The calls stay as they are.
 */
import type { components, Document, paths } from '#lib/client/index';

export type Upload = components['schemas']['Upload'];
export type PartUrl = NonNullable<Upload['parts']>[number];

/** Any problem+json answer (RFC 9457); `type` tells the kind (API.md section 6). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
}

/** A Document as section 12 has it: `storage` and `sha256`, and no `content` for a file. */
export type FileDocument = Omit<Document, 'content'> & { content?: string; storage: 'inline' | 'file'; sha256: string };

type IdParameter = { query?: never; header?: never; path: { id: string }; cookie?: never };
type Answer<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
type Problems = {
  [status in 400 | 401 | 404 | 429 | 500 | 503]: { headers: { [name: string]: unknown }; content: { 'application/problem+json': Problem } };
};
type Get<Responses> = {
  parameters: { query?: never; header?: never; path?: never; cookie?: never };
  get: { parameters: IdParameter; requestBody?: never; responses: Responses & Problems };
  put?: never;
  post?: never;
  delete?: never;
  options?: never;
  head?: never;
  patch?: never;
  trace?: never;
};

export type FilePaths = Omit<paths, '/document/{id}'> & {
  '/document/{id}': Get<{ 200: Answer<FileDocument> }>;
  '/document/{id}/content': Get<{
    200: { headers: { [name: string]: unknown }; content?: never };
    302: { headers: { Location: string }; content?: never };
  }>;
};
