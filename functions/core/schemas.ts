/**
 * The request schemas: every path parameter, query parameter and body field the API
 * accepts is declared here, once. The HTTP layer validates against them (core/http) and
 * turns failures into 400 problem+json with `errors[]`.
 */
import { z } from 'zod';
import { nameProblem, normalizeName } from './names';

export const MAX_CONTENT_BYTES = 256 * 1024;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_CONTENT_TYPE_LENGTH = 255;
export const DEFAULT_CONTENT_TYPE = 'text/plain; charset=utf-8';
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** Marks an issue that is a 413 rather than a 400 (content over its byte limit). */
export const PAYLOAD_TOO_LARGE = { status: 413 } as const;

/** JSON can carry lone UTF-16 surrogates; they have no UTF-8 form, so text must be well formed. */
const text = () => z.string().refine((value) => value.isWellFormed(), 'must be valid Unicode text (no lone surrogates)');

export const idSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 characters of A-Z, a-z, 0-9, "_" or "-"');

export const nameSchema = text()
  .transform(normalizeName)
  .check((ctx) => {
    const problem = nameProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });

const contentSchema = text().check((ctx) => {
  if (Buffer.byteLength(ctx.value, 'utf8') > MAX_CONTENT_BYTES) {
    ctx.issues.push({
      code: 'custom',
      message: `must be at most ${MAX_CONTENT_BYTES} bytes of UTF-8`,
      input: ctx.value,
      params: PAYLOAD_TOO_LARGE,
    });
  }
});

// RFC 9110 media type: type "/" subtype *( OWS ";" OWS token "=" ( token / quoted-string ) )
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const quotedString = '"(?:[^"\\\\\\x00-\\x08\\x0a-\\x1f\\x7f]|\\\\[\\x09\\x20-\\x7e])*"';
const mediaType = new RegExp(`^${token}/${token}(?:[ \\t]*;[ \\t]*${token}=(?:${token}|${quotedString}))*$`);

const contentTypeSchema = z
  .string()
  .max(MAX_CONTENT_TYPE_LENGTH, `must be at most ${MAX_CONTENT_TYPE_LENGTH} characters`)
  .regex(mediaType, 'must be a media type such as "text/markdown; charset=utf-8"');

const versionSchema = z.number().int().min(1);

/** `limit` arrives as text; only plain decimal 1–100 is accepted (never clamped). */
const limitSchema = z
  .string()
  .regex(/^[0-9]+$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
  .transform(Number)
  .pipe(z.number().int().min(1, `must be at least 1`).max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`));

export const idParams = z.object({ id: idSchema });

export const pageQuery = z.object({
  limit: limitSchema.default(DEFAULT_PAGE_SIZE),
  nextToken: z.string().min(1).max(2048).optional(),
});
export type PageQuery = z.infer<typeof pageQuery>;

export const createRepositoryBody = z.strictObject({
  name: nameSchema,
  description: text()
    .max(MAX_DESCRIPTION_LENGTH, `must be at most ${MAX_DESCRIPTION_LENGTH} characters`)
    .default(''),
});

export const createFolderBody = z.strictObject({
  parentId: idSchema,
  name: nameSchema,
});

export const createDocumentBody = z.strictObject({
  folderId: idSchema,
  name: nameSchema,
  content: contentSchema.default(''),
  contentType: contentTypeSchema.default(DEFAULT_CONTENT_TYPE),
  id: idSchema.optional(),
});

export const updateDocumentBody = z.strictObject({
  id: idSchema,
  name: nameSchema.optional(),
  content: contentSchema.optional(),
  contentType: contentTypeSchema.optional(),
  folderId: idSchema.optional(),
  version: versionSchema.optional(),
});
export type DocumentChanges = z.infer<typeof updateDocumentBody>;
