/**
 * What the route table cannot say about each route: its words for readers, the request
 * schemas its handler validates with (the same objects, from functions/core/schemas.ts),
 * what it answers on success, and the errors its own logic can raise. Everything else —
 * 401, 400, 413, 415, 429, 500, 503 — follows from the route's kind (lib/openapi/document.ts).
 *
 * Keyed by route name; the generator fails when a route has no entry or an entry no route.
 */
import type * as z from 'zod/mini';
import type { ProblemKind } from '#core/errors';
import { createDocumentBody, createFolderBody, createRepositoryBody, idParams, pageQuery, updateDocumentBody } from '#core/schemas';
import { assetNames } from '#functions/docs/page';

export type Tag = 'Repositories' | 'Folders' | 'Documents' | 'Documentation';

export const tags: Record<Tag, string> = {
  Repositories: 'A repository holds folders and documents; each member has a role in it (`owner`, `editor`, `viewer`).',
  Folders: 'Folders nest; a repository has one root folder. Lists are by name, case-insensitively, in pages.',
  Documents: 'UTF-8 text documents, versioned for optimistic concurrency (`ETag` / `If-Match`).',
  Documentation: 'This reference and the OpenAPI document it is made from. Public: no token.',
};

/** A success body: a named component schema, or a document of another media type. */
export type SuccessBody =
  | { schema: 'Repository' | 'Folder' | 'Document' | 'RepositoryList' | 'FolderList' | 'DocumentList' }
  | { mediaTypes: Record<string, { description?: string }> };

export interface OperationSpec {
  tag: Tag;
  summary: string;
  description?: string;
  params?: z.core.$ZodObject;
  query?: z.core.$ZodObject;
  /** The JSON body and the name of its component schema. */
  body?: { schema: z.core.$ZodType; name: string };
  /** Takes `If-Match` (API.md §5). */
  ifMatch?: boolean;
  success: {
    status: 200 | 201 | 204;
    description: string;
    body?: SuccessBody;
    /** `Location` of a 201: the path of the new resource, as a regular expression. */
    location?: string;
    etag?: boolean;
    /** Headers of the docs routes. */
    cacheControl?: 'no-store' | 'public';
    contentSecurityPolicy?: boolean;
  };
  /** Errors the handler's own logic raises, with what they mean here. */
  errors?: Partial<Record<Extract<ProblemKind, 'not-found' | 'forbidden' | 'conflict' | 'precondition-failed'>, string>>;
  /** Overrides the path parameter's schema (the docs asset names). */
  pathParameter?: { name: string; description: string; enum: readonly string[] };
}

const ID = '[A-Za-z0-9_-]{1,64}';
const notVisible = (what: string) => `No such ${what}, or you are not a member of its repository.`;
const readOnly = 'Your role (`viewer`) does not allow changes.';

export const operations: Record<string, OperationSpec> = {
  ListRepositories: {
    tag: 'Repositories',
    summary: 'List your repositories',
    description: 'The repositories you are a member of, with your role in each, by name.',
    query: pageQuery,
    success: { status: 200, description: 'A page of repositories.', body: { schema: 'RepositoryList' } },
  },
  CreateRepository: {
    tag: 'Repositories',
    summary: 'Create a repository',
    description: 'Creates the repository, its root folder and your `owner` membership in one transaction.',
    body: { schema: createRepositoryBody, name: 'CreateRepositoryRequest' },
    success: { status: 201, description: 'The new repository.', body: { schema: 'Repository' }, location: `^/${ID}$` },
  },
  GetRepository: {
    tag: 'Repositories',
    summary: 'Get a repository',
    params: idParams,
    success: { status: 200, description: 'The repository, with your role in it.', body: { schema: 'Repository' } },
    errors: { 'not-found': notVisible('repository') },
  },
  GetRootFolder: {
    tag: 'Repositories',
    summary: "Get a repository's root folder",
    params: idParams,
    success: { status: 200, description: 'The root folder (`parentId` is `null`).', body: { schema: 'Folder' } },
    errors: { 'not-found': notVisible('repository') },
  },
  GetFolder: {
    tag: 'Folders',
    summary: 'Get a folder',
    params: idParams,
    success: { status: 200, description: 'The folder.', body: { schema: 'Folder' } },
    errors: { 'not-found': notVisible('folder') },
  },
  CreateFolder: {
    tag: 'Folders',
    summary: 'Create a folder',
    description: 'A sub folder of `parentId`. Needs the `owner` or `editor` role.',
    body: { schema: createFolderBody, name: 'CreateFolderRequest' },
    success: { status: 201, description: 'The new folder.', body: { schema: 'Folder' }, location: `^/folder/${ID}$` },
    errors: {
      'not-found': notVisible('parent folder'),
      forbidden: readOnly,
      conflict: 'The parent folder already has a folder or document of that name (case-insensitively).',
    },
  },
  ListFolders: {
    tag: 'Folders',
    summary: "List a folder's sub folders",
    description: 'Direct sub folders only, by name, case-insensitively.',
    params: idParams,
    query: pageQuery,
    success: { status: 200, description: 'A page of folders.', body: { schema: 'FolderList' } },
    errors: { 'not-found': notVisible('folder') },
  },
  ListDocuments: {
    tag: 'Folders',
    summary: "List a folder's documents",
    description: 'Documents directly in the folder, by name, case-insensitively; without `content`.',
    params: idParams,
    query: pageQuery,
    success: { status: 200, description: 'A page of documents, without their content.', body: { schema: 'DocumentList' } },
    errors: { 'not-found': notVisible('folder') },
  },
  GetDocument: {
    tag: 'Documents',
    summary: 'Get a document',
    params: idParams,
    success: { status: 200, description: 'The document, with its content.', body: { schema: 'Document' }, etag: true },
    errors: { 'not-found': notVisible('document') },
  },
  CreateDocument: {
    tag: 'Documents',
    summary: 'Create a document',
    description:
      'A document in `folderId`. `content` defaults to `""`, `contentType` to `text/plain; charset=utf-8`. ' +
      'An `id` may be supplied; one that exists is 409. Needs the `owner` or `editor` role.',
    body: { schema: createDocumentBody, name: 'CreateDocumentRequest' },
    success: {
      status: 201,
      description: 'The new document (version 1).',
      body: { schema: 'Document' },
      location: `^/document/${ID}$`,
      etag: true,
    },
    errors: {
      'not-found': notVisible('folder'),
      forbidden: readOnly,
      conflict: 'The folder already has a folder or document of that name, or a document with that `id` exists.',
    },
  },
  UpdateDocument: {
    tag: 'Documents',
    summary: 'Update or move a document',
    description:
      'Changes the fields sent; the others keep their value. `folderId` moves it to another folder of the same ' +
      'repository. Every update adds 1 to `version`. With `If-Match` or `version`, it applies only to that version.',
    body: { schema: updateDocumentBody, name: 'UpdateDocumentRequest' },
    ifMatch: true,
    success: { status: 200, description: 'The updated document.', body: { schema: 'Document' }, etag: true },
    errors: {
      'not-found': 'No such document or target folder, or you are not a member of its repository.',
      forbidden: readOnly,
      conflict: 'The target folder already has a folder or document of that name.',
      'precondition-failed': 'The stored version is not the one in `If-Match` or `version`; nothing changed.',
    },
  },
  DeleteDocument: {
    tag: 'Documents',
    summary: 'Delete a document',
    params: idParams,
    ifMatch: true,
    success: { status: 204, description: 'Deleted.' },
    errors: {
      'not-found': notVisible('document'),
      forbidden: readOnly,
      'precondition-failed': 'The stored version is not the one in `If-Match`; nothing changed.',
    },
  },
  GetOpenApi: {
    tag: 'Documentation',
    summary: 'This API as an OpenAPI 3.1 document',
    success: {
      status: 200,
      description: 'The OpenAPI document (this one).',
      body: { mediaTypes: { 'application/json': { description: 'OpenAPI 3.1' } } },
      cacheControl: 'public',
    },
  },
  GetDocsPage: {
    tag: 'Documentation',
    summary: 'This reference, for people',
    success: {
      status: 200,
      description: 'An HTML page (Swagger UI) rendering `/openapi.json`.',
      body: { mediaTypes: { 'text/html': {} } },
      cacheControl: 'public',
      contentSecurityPolicy: true,
    },
  },
  GetDocsAsset: {
    tag: 'Documentation',
    summary: 'A script or style sheet of the reference page',
    pathParameter: { name: 'asset', description: 'A file of the reference page.', enum: assetNames },
    success: {
      status: 200,
      description: 'The file.',
      body: { mediaTypes: { 'text/javascript': {}, 'text/css': {} } },
      cacheControl: 'public',
    },
    errors: { 'not-found': 'No such file.' },
  },
};
