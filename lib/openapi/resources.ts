/**
 * The response bodies of API.md §1 and §6 as zod schemas, for the OpenAPI document only:
 * handlers never import this module, so none of it reaches a Lambda bundle. Each schema is
 * held equal to the TypeScript type the handlers return (functions/core/types.ts) at
 * compile time, so the documented shape cannot drift from the code's.
 */
import * as z from 'zod/mini';
import { HttpError, type ProblemKind, problemResponse, problemTypePrefix } from '#core/errors';
import { MAX_NAME_LENGTH } from '#core/names';
import { ID_PATTERN } from '#core/schemas';
import type { Document, DocumentSummary, Folder, Page, Repository } from '#core/types';

const id = (description: string) => z.string().check(z.regex(new RegExp(ID_PATTERN)), z.meta({ description }));
/** ISO 8601 in UTC, as `Date.toISOString()` writes it. */
const time = (description: string) =>
  z.string().check(z.meta({ description, format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z$' }));
const user = (description: string) => z.string().check(z.minLength(1), z.meta({ description, examples: ['alice'] }));
const name = () =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(MAX_NAME_LENGTH),
      z.meta({ description: 'Trimmed, NFC; unique within its folder, case-insensitively.' }),
    );

export const repositorySchema = z.strictObject({
  id: id('The repository id.'),
  name: name(),
  description: z.string(),
  rootFolderId: id('Its root folder (clients should use this, not `id`).'),
  role: z.enum(['owner', 'editor', 'viewer']).check(z.meta({ description: "The caller's role in the repository." })),
  createdAt: time('ISO 8601, UTC.'),
  createdBy: user('The JWT `sub` of its creator, its first owner.'),
  updatedAt: time('ISO 8601, UTC.'),
});

export const folderSchema = z.strictObject({
  id: id('The folder id.'),
  repositoryId: id('The repository the folder is in.'),
  parentId: z.nullable(id('The parent folder; `null` for a root folder.')),
  name: name(),
  createdAt: time('ISO 8601, UTC.'),
  createdBy: user('The JWT `sub` of its creator.'),
  updatedAt: time('ISO 8601, UTC.'),
  updatedBy: user('The JWT `sub` of the last writer.'),
});

const documentShape = {
  id: id('The document id.'),
  repositoryId: id('The repository the document is in.'),
  folderId: id('The folder the document is in.'),
  name: name(),
  contentType: z.string().check(z.meta({ examples: ['text/markdown; charset=utf-8'] })),
  content: z.string().check(z.meta({ description: 'UTF-8 text.' })),
  size: z.int().check(z.gte(0), z.meta({ description: 'Bytes of `content` in UTF-8.' })),
  version: z.int().check(z.gte(1), z.meta({ description: '1 on create, +1 on every update; the ETag is `"<version>"`.' })),
  createdAt: time('ISO 8601, UTC.'),
  createdBy: user('The JWT `sub` of its creator.'),
  updatedAt: time('ISO 8601, UTC.'),
  updatedBy: user('The JWT `sub` of the last writer.'),
};
export const documentSchema = z.strictObject(documentShape);
const { content: _content, ...summaryShape } = documentShape;
export const documentSummarySchema = z.strictObject(summaryShape);

/** API.md §3: a page of a list; `nextToken` only when there is more. */
const page = <T extends z.core.$ZodType>(item: T) =>
  z.strictObject({
    items: z.array(item),
    nextToken: z.optional(
      z.string().check(z.minLength(1), z.meta({ description: 'Pass it as `nextToken` to get the next page; absent on the last page.' })),
    ),
  });
export const repositoryListSchema = page(repositorySchema);
export const folderListSchema = page(folderSchema);
export const documentListSchema = page(documentSummarySchema);

// ---------------------------------------------------------------------------------------------
// Errors: RFC 9457 problem details, one schema per kind of error (functions/core/errors.ts).

/** Every ProblemKind, in the order of the table in docs/api-decisions.md. */
export const problemKinds = [
  'validation-error',
  'malformed-json',
  'unauthorized',
  'forbidden',
  'not-found',
  'method-not-allowed',
  'conflict',
  'precondition-failed',
  'payload-too-large',
  'unsupported-media-type',
  'throttled',
  'unavailable',
  'internal',
] as const satisfies readonly ProblemKind[];
// A kind added to errors.ts and not here fails to compile.
const allKinds: Record<Exclude<ProblemKind, (typeof problemKinds)[number]>, never> = {};
void allKinds;

/** Status and title of a kind, read from errors.ts itself. */
export function problemInfo(kind: ProblemKind): { status: number; title: string } {
  const response = problemResponse(new HttpError(kind, ''));
  return { status: response.statusCode, title: (JSON.parse(response.body) as { title: string }).title };
}

const fieldError = z.strictObject({
  path: z.string().check(z.meta({ description: 'The field, with dots (`name`, `limit`, `If-Match`); `""` for the whole body.' })),
  message: z.string(),
});

export function problemSchema(kind: ProblemKind) {
  const { status, title } = problemInfo(kind);
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

/**
 * What API Gateway itself answers on AWS before any handler runs (its JWT authorizer's 401,
 * its throttling 429, its own 413, 500 and 503): `{"message": "..."}`, not problem+json.
 */
export const gatewayMessageSchema = z.strictObject({ message: z.string().check(z.meta({ examples: ['Unauthorized'] })) });

// ---------------------------------------------------------------------------------------------
// Compile-time proof that each schema describes exactly the type the handlers return.

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
export type ResourceSchemasMatchTypes = [
  Assert<Equal<z.output<typeof repositorySchema>, Repository>>,
  Assert<Equal<z.output<typeof folderSchema>, Folder>>,
  Assert<Equal<z.output<typeof documentSchema>, Document>>,
  Assert<Equal<z.output<typeof documentSummarySchema>, DocumentSummary>>,
  Assert<Equal<z.output<typeof documentListSchema>, Page<DocumentSummary>>>,
  Assert<Equal<z.output<typeof repositoryListSchema>, Page<Repository>>>,
  Assert<Equal<z.output<typeof folderListSchema>, Page<Folder>>>,
];
