/**
 * The request schemas: every path parameter, query parameter and body field the API
 * accepts is declared here, once. The HTTP layer validates against them (core/http) and
 * turns failures into 400 problem+json with `errors[]`; the OpenAPI document
 * (lib/openapi) is generated from them, so what is documented is what is enforced.
 *
 * Written with `zod/mini`: its functions tree-shake, so a handler bundle carries only the
 * checks it uses (the `zod` class API pulls all of zod, ~440 KB, into every bundle).
 * zod/mini has no message catalogue, so every check names its own message.
 *
 * Rules a JSON Schema keyword cannot see (a check function) carry that keyword in `meta`,
 * next to the function, for the OpenAPI document; test/contract proves the two agree.
 */
import * as z from 'zod/mini';
import { ID_PATTERN } from './ids';
import { MAX_NAME_LENGTH, nameProblem, normalizeName } from './names';

export const MAX_CONTENT_BYTES = 256 * 1024;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_CONTENT_TYPE_LENGTH = 255;
export const DEFAULT_CONTENT_TYPE = 'text/plain; charset=utf-8';
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE_TOKEN_LENGTH = 2048;

/** Marks an issue that is a 413 rather than a 400 (content over its byte limit). */
export const PAYLOAD_TOO_LARGE = { status: 413 } as const;

/** The message for a value of the wrong type, or for a required field that is missing. */
const expected = (what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});

/** Length in Unicode code points, as JSON Schema's maxLength counts (an emoji is one). */
const codePoints = (value: string) => {
  let n = 0;
  for (const _ of value) n++;
  return n;
};

/** At most `max` characters (code points): the same count as JSON Schema's `maxLength`. */
const maxChars = (max: number) => [
  z.refine<string>((value) => codePoints(value) <= max, `must be at most ${max} characters`),
  z.meta({ maxLength: max }),
];

/** JSON can carry lone UTF-16 surrogates; they have no UTF-8 form, so text must be well formed. */
const text = () =>
  z.string(expected('a string')).check(
    z.refine((value: string) => value.isWellFormed(), 'must be valid Unicode text (no lone surrogates)'),
    z.meta({ pattern: '^\\P{Cs}*$' }),
  );

export const idSchema = z
  .string(expected('a string'))
  .check(
    z.regex(new RegExp(ID_PATTERN), 'must be 1 to 64 characters of A-Z, a-z, 0-9, "_" or "-"'),
    z.meta({ description: 'An opaque id.', examples: ['Jx3kQ0nW2b7VtYc9LmA1eQ'] }),
  );

/**
 * A name as stored: trimmed, NFC, 1–255 characters, no "/" and no control characters
 * (names.ts). The pattern says the same of the text sent: white space around the name
 * (which is trimmed) is free; between its first and last visible character at most 255.
 */
const nameChar = '[^/\\p{Cc}\\p{Cs}]';
const visibleNameChar = '[^\\s/\\p{Cc}\\p{Cs}]';
export const nameSchema = z.pipe(text(), z.transform(normalizeName)).check(
  (ctx) => {
    const problem = nameProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  },
  z.meta({
    description:
      `Trimmed and normalised to NFC before it is stored; then 1 to ${MAX_NAME_LENGTH} characters, ` +
      'no "/" and no control characters. Unique within its folder, case-insensitively.',
    pattern: `^\\s*${visibleNameChar}(?:${nameChar}{0,${MAX_NAME_LENGTH - 2}}${visibleNameChar})?\\s*$`,
    examples: ['Travel.md'],
  }),
);

const contentSchema = text().check(
  (ctx) => {
    if (Buffer.byteLength(ctx.value, 'utf8') > MAX_CONTENT_BYTES) {
      ctx.issues.push({
        code: 'custom',
        message: `must be at most ${MAX_CONTENT_BYTES} bytes of UTF-8`,
        input: ctx.value,
        params: PAYLOAD_TOO_LARGE,
      });
    }
  },
  z.meta({
    description: `UTF-8 text, at most ${MAX_CONTENT_BYTES} bytes of UTF-8 (more is 413).`,
    // A byte limit has no JSON Schema keyword; no text of more code points than bytes fits.
    maxLength: MAX_CONTENT_BYTES,
  }),
);

// RFC 9110 media type: type "/" subtype *( OWS ";" OWS token "=" ( token / quoted-string ) )
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const quotedString = '"(?:[^"\\\\\\x00-\\x08\\x0a-\\x1f\\x7f]|\\\\[\\x09\\x20-\\x7e])*"';
const mediaType = new RegExp(`^${token}/${token}(?:[ \\t]*;[ \\t]*${token}=(?:${token}|${quotedString}))*$`);

const contentTypeSchema = text().check(
  ...maxChars(MAX_CONTENT_TYPE_LENGTH),
  z.regex(mediaType, 'must be a media type such as "text/markdown; charset=utf-8"'),
  z.meta({
    description: 'A media type (RFC 9110), with optional parameters.',
    // One JSON Schema `pattern` for both rules: well-formed text, and a media type.
    pattern: `^(?=\\P{Cs}*$)${mediaType.source.slice(1)}`,
    examples: ['text/markdown; charset=utf-8'],
  }),
);

const versionSchema = z
  .int(expected('a whole number'))
  .check(
    z.gte(1, 'must be at least 1'),
    z.meta({ description: 'The version the client last saw: the update applies only if it is still the stored one (else 412).' }),
  );

/** `limit` arrives as text; only plain decimal 1–100 is accepted (never clamped). */
const limitSchema = z.pipe(
  z.pipe(
    z.string(expected('a string')).check(z.regex(/^[0-9]+$/, `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)),
    z.transform(Number),
  ),
  z.int().check(z.gte(1, 'must be at least 1'), z.lte(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)),
);

export const idParams = z.object({ id: idSchema });

export const pageQuery = z.object({
  limit: z._default(limitSchema, DEFAULT_PAGE_SIZE).check(z.meta({ description: 'Page size, written in decimal.' })),
  nextToken: z.optional(
    z
      .string(expected('a string'))
      .check(
        z.minLength(1, 'must not be empty'),
        ...maxChars(MAX_PAGE_TOKEN_LENGTH),
        z.meta({ description: 'The `nextToken` of the previous page of the same list, as it was given.' }),
      ),
  ),
});
export type PageQuery = z.infer<typeof pageQuery>;

const body = expected('a JSON object');

export const createRepositoryBody = z.strictObject(
  {
    name: nameSchema,
    description: z._default(text().check(...maxChars(MAX_DESCRIPTION_LENGTH), z.meta({ description: 'Free text; may be empty.' })), ''),
  },
  body,
);

export const createFolderBody = z.strictObject(
  {
    parentId: idSchema,
    name: nameSchema,
  },
  body,
);

export const createDocumentBody = z.strictObject(
  {
    folderId: idSchema,
    name: nameSchema,
    content: z._default(contentSchema, ''),
    contentType: z._default(contentTypeSchema, DEFAULT_CONTENT_TYPE),
    id: z.optional(idSchema),
  },
  body,
);

export const updateDocumentBody = z.strictObject(
  {
    id: idSchema,
    name: z.optional(nameSchema),
    content: z.optional(contentSchema),
    contentType: z.optional(contentTypeSchema),
    folderId: z.optional(idSchema),
    version: z.optional(versionSchema),
  },
  body,
);
