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
import { MAX_USER_ID_LENGTH } from './auth';
import { MAX_FILE_BYTES } from './files/parts';
import { ID_PATTERN } from './ids';
import { BIDI_CONTROLS, MAX_NAME_LENGTH, nameProblem, normalizeName } from './names';

export const MAX_CONTENT_BYTES = 256 * 1024;
/** A raw content body (PUT /document/{id}/content): bytes of any type, stored as a file. */
export const MAX_RAW_CONTENT_BYTES = 4 * 1024 * 1024;
/** The media type of a body that says none. */
export const RAW_CONTENT_TYPE = 'application/octet-stream';
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
 * A name as stored: trimmed, NFC, then 1–255 characters; not "." or ".."; no "/", control
 * characters or bidirectional controls; not only white space and invisible characters
 * (names.ts). The pattern says what it can of the text sent and is never stricter than the
 * service: its length is counted after trimming and NFC, which no JSON Schema keyword can do,
 * so the 255 is stated in words only.
 */
const forbidden = `/\\p{Cc}\\p{Cs}${BIDI_CONTROLS}`;
export const nameSchema = z.pipe(text(), z.transform(normalizeName)).check(
  (ctx) => {
    const problem = nameProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  },
  z.meta({
    description:
      `Trimmed and normalised to NFC before it is stored; then 1 to ${MAX_NAME_LENGTH} characters (counted after that, ` +
      'so not in the pattern), not "." or "..", with no "/", control characters or bidirectional controls, and not only ' +
      'white space and invisible characters. Unique within its folder under Unicode full case folding.',
    // White space around the name (control characters such as tabs too) is trimmed, so free.
    pattern: `^(?!\\s*\\.{1,2}\\s*$)\\s*[^${forbidden}]*[^\\s\\p{Zs}\\p{Cf}${forbidden}][^${forbidden}]*\\s*$`,
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

export const contentTypeSchema = text().check(
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

// ---------------------------------------------------------------------------------------------
// Sharing (docs/api.md: Sharing).

/**
 * A member as a path names them: a JWT `sub`, percent-encoded in the path and decoded before
 * this check (API Gateway hands the handler decoded path parameters). Compared exactly: no
 * trimming, no normalisation, case-sensitive, as `sub` is.
 */
export const userIdSchema = text().check(
  z.minLength(1, 'must not be empty'),
  ...maxChars(MAX_USER_ID_LENGTH),
  z.refine((value: string) => !/\p{Cc}/u.test(value), 'must not contain control characters'),
  z.meta({
    description: `A user: the \`sub\` of their token, 1 to ${MAX_USER_ID_LENGTH} characters, no control characters; percent-encoded in the path.`,
    pattern: '^[^\\p{Cc}\\p{Cs}]+$',
    examples: ['bob'],
  }),
);

export const memberParams = z.object({ id: idSchema, userId: userIdSchema });

const roleValues = ['owner', 'editor', 'viewer'] as const;
export const putMemberBody = z.strictObject(
  {
    role: z
      .enum(roleValues, expected('one of "owner", "editor" or "viewer"'))
      .check(z.meta({ description: '`owner` (everything, members included), `editor` (folders and documents) or `viewer` (read only).' })),
  },
  body,
);

// ---------------------------------------------------------------------------------------------
// History: revisions and the change feed (docs/api.md: Revisions, Change feed).

/** A revision's version in a path: a positive whole number in decimal (a version never kept is 404, not 400). */
export const revisionParams = z.object({
  id: idSchema,
  version: z.pipe(
    z
      .string(expected('a string'))
      .check(
        z.regex(/^0*[1-9][0-9]*$/, 'must be a positive whole number'),
        z.meta({ description: 'A version of the document: a positive whole number, in decimal.', examples: ['3'] }),
      ),
    z.transform(Number),
  ),
});

/** `latest`, or the `cursor` of an earlier answer of the same feed. */
export const LATEST_CURSOR = 'latest';
export const changesQuery = z.object({
  cursor: z.string(expected('a string')).check(
    z.minLength(1, 'must not be empty'),
    ...maxChars(MAX_PAGE_TOKEN_LENGTH),
    z.meta({
      description: '`latest` to start from now, or the `cursor` of an earlier answer of the same feed, as it was given.',
      examples: [LATEST_CURSOR],
    }),
  ),
  limit: pageQuery.shape.limit,
});
export type ChangesQuery = z.infer<typeof changesQuery>;

// ---------------------------------------------------------------------------------------------
// Life cycle of repositories and folders, and the trash (docs/api.md: Life cycle, Trash).

export const updateRepositoryBody = z.strictObject(
  {
    name: z.optional(nameSchema),
    description: z.optional(text().check(...maxChars(MAX_DESCRIPTION_LENGTH), z.meta({ description: 'Free text; may be empty.' }))),
    version: z.optional(versionSchema),
  },
  body,
);

export const updateFolderBody = z.strictObject(
  {
    id: idSchema,
    name: z.optional(nameSchema),
    parentId: z.optional(idSchema),
    version: z.optional(versionSchema),
  },
  body,
);

/** `recursive` arrives as text: only `true` and `false`. */
export const deleteFolderQuery = z.object({
  recursive: z
    ._default(
      z.pipe(
        z.pipe(
          z.enum(['true', 'false'], expected('"true" or "false"')),
          z.transform((value) => value === 'true'),
        ),
        z.boolean(),
      ),
      false,
    )
    .check(z.meta({ description: '`true` to delete a folder that is not empty, with everything in it.' })),
});

export const trashItemParams = z.object({
  id: idSchema,
  itemId: idSchema.check(z.meta({ description: 'The id of the document or folder in the trash (the `id` of its TrashItem).' })),
});

export const restoreBody = z.strictObject(
  {
    folderId: z.optional(idSchema.check(z.meta({ description: 'Restore into this folder instead of the one it was in.' }))),
    name: z.optional(nameSchema),
  },
  body,
);

// ---------------------------------------------------------------------------------------------
// Files (docs/api.md: Files).

export const DEFAULT_FILE_CONTENT_TYPE = 'application/octet-stream';
/** Part numbers one `POST /uploads/{id}/parts` may ask for. */
export const MAX_PART_NUMBERS = 100;
/** S3's highest part number. */
const MAX_PART_NUMBER = 10_000;

const sizeSchema = z.int(expected('a whole number of bytes')).check(
  z.gte(0, 'must be at least 0'),
  (ctx) => {
    if (ctx.value > MAX_FILE_BYTES) {
      ctx.issues.push({
        code: 'custom',
        message: `must be at most ${MAX_FILE_BYTES} bytes (5 TiB)`,
        input: ctx.value,
        params: PAYLOAD_TOO_LARGE,
      });
    }
  },
  z.meta({ description: `The file's exact size in bytes, at most ${MAX_FILE_BYTES} (5 TiB; more is 413).`, maximum: MAX_FILE_BYTES }),
);
const sha256Schema = z
  .string(expected('a string'))
  .check(
    z.regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 digest: 64 hexadecimal digits'),
    z.meta({ description: 'The SHA-256 of the bytes (hex; kept in lowercase): checked at completion.' }),
  );

/** A JSON Schema that holds when these fields are there (each named in `properties` too, as strict validators want). */
const present = (...fields: string[]) => ({ properties: Object.fromEntries(fields.map((f) => [f, true])), required: fields });

/**
 * POST /uploads: a new document (`folderId`, `name`, optional `id`) or a new version of one
 * (`documentId`, optional `version`), never both.
 */
export const startUploadBody = z
  .strictObject(
    {
      folderId: z.optional(idSchema),
      name: z.optional(nameSchema),
      id: z.optional(idSchema),
      documentId: z.optional(idSchema),
      version: z.optional(versionSchema),
      size: sizeSchema,
      contentType: z.optional(contentTypeSchema),
      sha256: z.optional(
        z.pipe(
          sha256Schema,
          z.transform((value: string) => value.toLowerCase()),
        ),
      ),
    },
    body,
  )
  .check(
    (ctx) => {
      const { folderId, name, id, documentId, version } = ctx.value;
      const issue = (path: string, message: string) => ctx.issues.push({ code: 'custom', message, input: ctx.value, path: [path] });
      if (folderId !== undefined && documentId !== undefined)
        issue('documentId', 'give either `folderId` (a new document) or `documentId` (a new version), not both');
      else if (folderId === undefined && documentId === undefined)
        issue('folderId', 'is required (or `documentId`, for a new version of a document)');
      else if (folderId !== undefined) {
        if (name === undefined) issue('name', 'is required');
        if (version !== undefined) issue('version', 'applies to a new version of a document (`documentId`) only');
      } else {
        if (name !== undefined) issue('name', "a new version keeps the document's name (rename it with PUT /document)");
        if (id !== undefined) issue('id', 'names a new document: not with `documentId`');
      }
    },
    z.meta({
      // The same rule as JSON Schema: a new document, or a new version, never both.
      oneOf: [
        { ...present('folderId', 'name'), not: { anyOf: [present('documentId'), present('version')] } },
        { ...present('documentId'), not: { anyOf: [present('folderId'), present('name'), present('id')] } },
      ],
    }),
  );

export const partNumbersBody = z.strictObject(
  {
    numbers: z
      .array(
        z
          .int(expected('a whole number'))
          .check(z.gte(1, 'must be at least 1'), z.lte(MAX_PART_NUMBER, `must be at most ${MAX_PART_NUMBER}`)),
        expected('an array of part numbers'),
      )
      .check(
        z.minLength(1, 'must name at least one part'),
        z.maxLength(MAX_PART_NUMBERS, `must name at most ${MAX_PART_NUMBERS} parts`),
        z.refine((numbers: number[]) => new Set(numbers).size === numbers.length, 'must not name a part twice'),
        z.meta({ description: `1 to ${MAX_PART_NUMBERS} part numbers, each once.`, uniqueItems: true }),
      ),
  },
  body,
);

// ---------------------------------------------------------------------------------------------
// Share links (docs/api.md: Share links).

/** How far ahead a link's `expiresAt` may be: one year. */
export const MAX_LINK_LIFETIME_MS = 365 * 24 * 60 * 60 * 1000;
export const MIN_LINK_PASSWORD_LENGTH = 8;
export const MAX_LINK_PASSWORD_LENGTH = 128;

/** A link password: 8–128 characters after NFC (the header is read as UTF-8). */
export const linkPasswordProblem = (password: string): string | undefined => {
  const length = codePoints(password.normalize('NFC'));
  if (length < MIN_LINK_PASSWORD_LENGTH || length > MAX_LINK_PASSWORD_LENGTH)
    return `must be ${MIN_LINK_PASSWORD_LENGTH} to ${MAX_LINK_PASSWORD_LENGTH} characters (after NFC)`;
  if (!password.isWellFormed()) return 'must be valid Unicode text (no lone surrogates)';
  return undefined;
};

const LINK_EXPIRY_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export const createLinkBody = z.strictObject(
  {
    expiresAt: z.optional(
      z.string(expected('a string')).check(
        z.refine((value: string) => {
          const at = Date.parse(value);
          return LINK_EXPIRY_PATTERN.test(value) && Number.isFinite(at);
        }, 'must be an ISO 8601 date-time with a time zone'),
        z.refine((value: string) => Date.parse(value) > Date.now(), 'must be in the future'),
        z.refine((value: string) => Date.parse(value) <= Date.now() + MAX_LINK_LIFETIME_MS, 'must be at most one year ahead'),
        z.meta({
          description: 'When the link stops working: in the future, at most one year ahead. Left out: never.',
          pattern: LINK_EXPIRY_PATTERN.source,
          examples: ['2027-01-31T12:00:00Z'],
        }),
      ),
    ),
    password: z.optional(
      text().check(
        (ctx) => {
          const problem = linkPasswordProblem(ctx.value);
          if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
        },
        z.meta({
          // The length is counted after NFC, which no JSON Schema keyword can do: stated in words only.
          description: `Needed to open the link (header \`Link-Password\`): ${MIN_LINK_PASSWORD_LENGTH}–${MAX_LINK_PASSWORD_LENGTH} characters after NFC. Kept only as a slow, salted hash.`,
        }),
      ),
    ),
  },
  body,
);

export const linkParams = z.object({ linkId: idSchema.check(z.meta({ description: 'A share link id.' })) });

/**
 * A share link's token. Any text: its shape is checked by the link store, and a malformed token
 * is 404 like any unknown one, so the answer never tells a guess that is well formed from one that is not.
 */
export const tokenParams = z.object({
  token: z.string(expected('a string')).check(z.meta({ description: 'The token of a share link, as its `201` gave it.' })),
});
// Search (docs/api.md: Search).

export const MAX_SEARCH_QUERY_CHARS = 256;
export const searchQuery = z.object({
  q: text().check(
    z.refine((value: string) => codePoints(value) >= 1 && codePoints(value) <= MAX_SEARCH_QUERY_CHARS, {
      message: `must be 1 to ${MAX_SEARCH_QUERY_CHARS} characters`,
    }),
    z.meta({
      minLength: 1,
      maxLength: MAX_SEARCH_QUERY_CHARS,
      description:
        'Words (a word of a name that begins with it, or any part of a name of 3 characters or more; a word of the content with the same English stem), `"a phrase"`, `-word` to exclude, `a OR b`. At least one word to find.',
      examples: ['quarterly report -draft'],
    }),
  ),
  repositoryId: z.optional(idSchema.check(z.meta({ description: 'Only this repository.' }))),
  folderId: z.optional(idSchema.check(z.meta({ description: 'Only what is below this folder, at any depth.' }))),
  kind: z.optional(z.enum(['document', 'folder'], expected('"document" or "folder"'))),
  contentType: z.optional(
    z
      .string(expected('a string'))
      .check(
        z.regex(new RegExp(`^${token}/(?:${token})?$`), 'must be a media type without parameters, or a prefix ending in "/"'),
        z.meta({ description: 'A type (`application/pdf`, parameters ignored), or a prefix ending in `/` (`image/`).' }),
      ),
  ),
  ...pageQuery.shape,
});
export type SearchQuery = z.infer<typeof searchQuery>;
