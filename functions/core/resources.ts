/**
 * What the API returns, each defined once: the response schemas (zod/mini). The TypeScript
 * types the handlers and the store use are derived from them, and lib/openapi turns them into
 * the OpenAPI components. Handlers import only the types (`import type`), so none of this
 * reaches a Lambda bundle.
 */
import * as z from 'zod/mini';
import { type ProblemKind, problems, problemTypePrefix } from './errors';
import { ID_PATTERN } from './ids';
import { MAX_NAME_LENGTH } from './names';

const id = (description: string) => z.string().check(z.regex(new RegExp(ID_PATTERN)), z.meta({ description }));
/** ISO 8601 in UTC, as `Date.toISOString()` writes it. */
const time = (description: string) =>
  z.string().check(z.meta({ description, format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z$' }));
const user = (description: string) => z.string().check(z.minLength(1), z.meta({ description, examples: ['alice'] }));
const version = (what: string) =>
  z.int().check(z.gte(1), z.meta({ description: `1 when the ${what} is made, +1 on every change; the ETag is \`"<version>"\`.` }));
const name = () =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(MAX_NAME_LENGTH),
      z.meta({ description: 'Trimmed, NFC; unique within its folder, case-insensitively.' }),
    );

export const roles = ['owner', 'editor', 'viewer'] as const;
export type Role = (typeof roles)[number];

export const repositorySchema = z.strictObject({
  id: id('The repository id.'),
  name: name(),
  description: z.string(),
  rootFolderId: id('Its root folder (clients should use this, not `id`).'),
  role: z.enum(roles).check(z.meta({ description: "The caller's role in the repository." })),
  usage: z.optional(
    z
      .strictObject({
        bytes: z
          .int()
          .check(z.gte(0), z.meta({ description: 'The `size` of every kept version, plus the declared `size` of every open upload.' })),
        quota: z.int().check(z.gte(0), z.meta({ description: 'The most `bytes` may reach.' })),
      })
      .check(z.meta({ description: 'Storage used and allowed; in `GET /{id}` only.' })),
  ),
  version: version('repository'),
  createdAt: time('ISO 8601, UTC.'),
  createdBy: user('The JWT `sub` of its creator, its first owner.'),
  updatedAt: time('ISO 8601, UTC.'),
  updatedBy: user('The JWT `sub` of the last writer.'),
});

export const folderSchema = z.strictObject({
  id: id('The folder id.'),
  repositoryId: id('The repository the folder is in.'),
  parentId: z.nullable(id('The parent folder; `null` for a root folder.')),
  name: name(),
  version: version('folder'),
  createdAt: time('ISO 8601, UTC.'),
  createdBy: user('The JWT `sub` of its creator.'),
  updatedAt: time('ISO 8601, UTC.'),
  updatedBy: user('The JWT `sub` of the last writer.'),
});

/** Where a document's (or a revision's) content is (docs/api.md: Files). */
export const storageKinds = ['inline', 'file'] as const;
export type Storage = (typeof storageKinds)[number];
const storage = () =>
  z
    .enum(storageKinds)
    .check(z.meta({ description: '`inline`: UTF-8 text in `content`; `file`: bytes of any type, fetched from `/content`.' }));
const contentSize = () => z.int().check(z.gte(0), z.meta({ description: 'Bytes of the content: of `content` in UTF-8, or of the file.' }));
const sha256 = () => z.string().check(z.regex(/^[0-9a-f]{64}$/), z.meta({ description: 'The SHA-256 of those bytes, in lowercase hex.' }));

const documentShape = {
  id: id('The document id.'),
  repositoryId: id('The repository the document is in.'),
  folderId: id('The folder the document is in.'),
  name: name(),
  contentType: z.string().check(z.meta({ examples: ['text/markdown; charset=utf-8'] })),
  storage: storage(),
  content: z.optional(z.string().check(z.meta({ description: 'UTF-8 text; inline documents only (`storage: "inline"`).' }))),
  size: contentSize(),
  sha256: sha256(),
  version: version('document'),
  createdAt: time('ISO 8601, UTC.'),
  createdBy: user('The JWT `sub` of its creator.'),
  updatedAt: time('ISO 8601, UTC.'),
  updatedBy: user('The JWT `sub` of the last writer.'),
};
export const documentSchema = z.strictObject(documentShape);
const { content: _content, ...summaryShape } = documentShape;
export const documentSummarySchema = z.strictObject(summaryShape);

/** A page of a list; `nextToken` only when there is more. */
const page = <T extends z.core.$ZodType>(item: T) =>
  z.strictObject({
    items: z.array(item),
    nextToken: z.optional(
      z.string().check(z.minLength(1), z.meta({ description: 'Pass it as `nextToken` to get the next page; absent on the last page.' })),
    ),
  });

export const memberSchema = z.strictObject({
  userId: user('The member: a JWT `sub`.'),
  role: z.enum(roles).check(z.meta({ description: 'What the member may do in the repository.' })),
  addedAt: time('When the user became a member.'),
  addedBy: user('Who gave the first role.'),
  updatedAt: time('When the role last changed.'),
  updatedBy: user('Who changed it last.'),
});

export const trashItemSchema = z.strictObject({
  id: id('The document or folder id (the same it had before it was deleted).'),
  kind: z.enum(['document', 'folder']),
  name: name(),
  folderId: id('The folder it was in.'),
  deletedAt: time('When it was moved to the trash.'),
  deletedBy: user('Who moved it there.'),
  purgeAt: time('When it is deleted permanently, unless restored before.'),
});

const revisionShape = {
  version: version('document'),
  name: name(),
  contentType: z.string(),
  storage: storage(),
  size: contentSize(),
  sha256: sha256(),
  updatedAt: time('When this version was written.'),
  updatedBy: user('Who wrote it.'),
};
export const revisionSchema = z.strictObject({
  ...revisionShape,
  content: z.optional(
    z
      .string()
      .check(z.meta({ description: "UTF-8 text; inline revisions only (a file revision's bytes: `…/revisions/{version}/content`)." })),
  ),
});
export const revisionSummarySchema = z.strictObject(revisionShape);

export const changeTypes = [
  'created',
  'updated',
  'renamed',
  'moved',
  'deleted',
  'restored',
  'purged',
  'member-added',
  'member-changed',
  'member-removed',
  'repository-updated',
  'link-created',
  'link-revoked',
] as const;
export const changeKinds = ['document', 'folder', 'repository', 'member', 'link'] as const;
export const changeSchema = z.strictObject({
  type: z.enum(changeTypes),
  kind: z.enum(changeKinds),
  id: z
    .string()
    .check(z.minLength(1), z.meta({ description: 'The document, folder, repository or share link id; for a member, the `userId`.' })),
  documentId: z.optional(id('For a share link: its document.')),
  folderId: z.optional(z.nullable(id('The folder it is in (for a folder: its parent; `null` for a root folder).'))),
  previousFolderId: z.optional(id('For a move: the folder it was in.')),
  name: z.optional(name()),
  version: z.optional(version('resource')),
  role: z.optional(z.enum(roles).check(z.meta({ description: "For a member change: the member's role (after the change)." }))),
  at: time('When the change was made.'),
  by: user('Who made it.'),
});
export const changesPageSchema = z.strictObject({
  items: z.array(changeSchema),
  cursor: z.string().check(z.minLength(1), z.meta({ description: 'Pass it as `cursor` to get the changes after these.' })),
});

const sha256Hex = (description: string) => z.string().check(z.regex(/^[0-9a-f]{64}$/), z.meta({ description }));
const byteCount = (description: string) => z.int().check(z.gte(0), z.meta({ description }));
const partUrl = z.strictObject({
  number: z.int().check(z.gte(1), z.meta({ description: 'The part number (1-based).' })),
  url: z.string().check(z.meta({ description: 'A presigned URL: send the part with one plain HTTP PUT of exactly its bytes.' })),
  expiresAt: time('When the URL stops working (ask `POST /uploads/{id}/parts` for a fresh one).'),
});
export const uploadStatuses = ['open', 'verifying', 'completed', 'failed', 'cancelled', 'expired'] as const;
/** Problem details, as an upload that failed keeps them (the same object `complete` answers). */
const storedProblem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.optional(z.string()),
});
export const uploadSchema = z.strictObject({
  id: id('The upload id.'),
  documentId: id('The document it makes, or makes a new version of.'),
  repositoryId: id('The repository of that document.'),
  folderId: id('The folder the document is (or will be) in.'),
  name: name(),
  size: byteCount('The bytes the file has, as declared when the upload began.'),
  contentType: z.string().check(z.meta({ description: 'Defaults to `application/octet-stream`.' })),
  sha256: z.optional(sha256Hex('The SHA-256 the bytes must have, when one was declared (lowercase hex).')),
  partSize: byteCount('Bytes of every part but the last (at least 8 MiB); a file of at most this size is one part.'),
  partCount: z.int().check(z.gte(1), z.meta({ description: 'How many parts to send (at most 10,000).' })),
  parts: z.optional(z.array(partUrl).check(z.meta({ description: 'In the `201` only: URLs for parts 1 to min(partCount, 100).' }))),
  received: z.optional(
    z
      .array(z.strictObject({ number: z.int().check(z.gte(1)), size: byteCount('Bytes the bucket holds for that part.') }))
      .check(z.meta({ description: 'In `GET /uploads/{id}` only: the parts the bucket holds, to resume after a crash.' })),
  ),
  status: z.enum(uploadStatuses),
  problem: z.optional(storedProblem.check(z.meta({ description: 'The RFC 9457 problem that failed it (status `failed`).' }))),
  expiresAt: time('24 hours after it began: after that it is 410 and its bytes are deleted.'),
  createdAt: time('When it began.'),
  createdBy: user('Who began it: the only user who sees it.'),
});
export const partUrlsSchema = z.strictObject({ items: z.array(partUrl) });

/** A share link (docs/api.md: Share links); `token` and `url` only in the first `201`. */
export const linkSchema = z.strictObject({
  id: id('The link id.'),
  documentId: id('The document it shares.'),
  repositoryId: id('The repository of that document.'),
  url: z.optional(
    z.string().check(
      z.meta({
        description:
          'The address a person opens (the web app page `/app/s/{token}`, else `/s/{token}` of this service); in the first `201` only.',
      }),
    ),
  ),
  token: z.optional(
    z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9_.-]+$/),
        z.meta({ description: 'The secret that opens the link (URL-safe); in the first `201` only: the service keeps only its hash.' }),
      ),
  ),
  expiresAt: z.nullable(time('When the link stops working; `null`: never.')),
  hasPassword: z.boolean().check(z.meta({ description: 'Whether opening it needs the `Link-Password` header.' })),
  createdAt: time('When it was made.'),
  createdBy: user('Who made it.'),
  lastUsedAt: z.nullable(time('When it last opened the document (updated at most once a minute); `null`: never.')),
});

/** What a share link shows of its document: never ids, members or folders. */
export const sharedDocumentSchema = z.strictObject({
  name: name(),
  contentType: z.string(),
  size: contentSize(),
  sha256: sha256(),
  version: version('document'),
  updatedAt: time('When the current version was written.'),
});

export const searchHitSchema = z.strictObject({
  kind: z.enum(['document', 'folder']),
  id: id('The document or folder id.'),
  repositoryId: id('The repository it is in.'),
  folderId: id('The folder it is in (for a folder: its parent).'),
  name: name(),
  contentType: z.optional(z.string().check(z.meta({ description: 'Documents only.' }))),
  size: z.optional(contentSize()),
  updatedAt: time('ISO 8601, UTC.'),
  matched: z.enum(['name', 'content', 'both']).check(z.meta({ description: 'Where the query matched.' })),
  snippet: z.optional(
    z
      .strictObject({
        text: z.string().check(z.maxLength(300), z.meta({ description: 'Plain text around the best match in the content.' })),
        highlights: z
          .array(z.tuple([z.int().check(z.gte(0)), z.int().check(z.gte(0))]))
          .check(z.meta({ description: '`[start, end)` of each matched word in `text`, in UTF-16 code units.' })),
      })
      .check(z.meta({ description: 'When the content matched: an excerpt of at most 300 characters.' })),
  ),
});

/** Every response body by the name of its OpenAPI component. */
export const resources = {
  Repository: repositorySchema,
  Folder: folderSchema,
  Document: documentSchema,
  DocumentSummary: documentSummarySchema,
  RepositoryList: page(repositorySchema),
  FolderList: page(folderSchema),
  /** GET /document/{id}/path: not a page (folders nest at most 50 deep). */
  FolderPath: z.strictObject({
    items: z.array(folderSchema).check(z.meta({ description: "From the repository's root folder down to the document's folder." })),
  }),
  DocumentList: page(documentSummarySchema),
  Member: memberSchema,
  MemberList: page(memberSchema),
  TrashItem: trashItemSchema,
  TrashList: page(trashItemSchema),
  /** What a restore from the trash answers: the document (with content) or the folder, as it is now. */
  RestoredItem: z.union([documentSchema, folderSchema]),
  Revision: revisionSchema,
  RevisionSummary: revisionSummarySchema,
  RevisionList: page(revisionSummarySchema),
  Change: changeSchema,
  ChangesPage: changesPageSchema,
  Upload: uploadSchema,
  PartUrls: partUrlsSchema,
  Link: linkSchema,
  LinkList: page(linkSchema),
  SharedDocument: sharedDocumentSchema,
  SearchHit: searchHitSchema,
  SearchResults: page(searchHitSchema),
};
export type ResourceName = keyof typeof resources;
export type ResourceOf<N extends ResourceName> = z.output<(typeof resources)[N]>;

export type Repository = ResourceOf<'Repository'>;
export type Folder = ResourceOf<'Folder'>;
export type Document = ResourceOf<'Document'>;
export type DocumentSummary = ResourceOf<'DocumentSummary'>;
export type Member = ResourceOf<'Member'>;
export type TrashItem = ResourceOf<'TrashItem'>;
export type Revision = ResourceOf<'Revision'>;
export type RevisionSummary = ResourceOf<'RevisionSummary'>;
export type Change = ResourceOf<'Change'>;
export type Upload = ResourceOf<'Upload'>;
export type Link = ResourceOf<'Link'>;
export type SharedDocument = ResourceOf<'SharedDocument'>;
export type SearchHit = ResourceOf<'SearchHit'>;
export type UploadStatus = (typeof uploadStatuses)[number];
export type ChangeType = (typeof changeTypes)[number];
export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/** Who is calling: the JWT `sub`. */
export interface Caller {
  userId: string;
}

// ---------------------------------------------------------------------------------------------
// Errors: RFC 9457 problem details, one schema per kind (the catalogue is core/errors.ts).

const fieldError = z.strictObject({
  path: z.string().check(z.meta({ description: 'The field, with dots (`name`, `limit`, `If-Match`); `""` for the whole body.' })),
  message: z.string(),
});

/** The problem+json body of one kind of error: `type` and `status` are fixed by the kind. */
export function problemSchema(kind: ProblemKind) {
  const { status, title } = problems[kind];
  const shape = {
    type: z.literal(problemTypePrefix + kind),
    title: z.string().check(z.minLength(1), z.meta({ examples: [title] })),
    status: z.literal(status),
    detail: z.string().check(z.meta({ description: 'What went wrong with this request, for people.' })),
  };
  return kind === 'validation-error'
    ? z.strictObject({ ...shape, errors: z.array(fieldError).check(z.minLength(1)) })
    : z.strictObject(shape);
}

/** What every problem+json body holds (`errors` on validation errors only). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: z.output<typeof fieldError>[];
}
