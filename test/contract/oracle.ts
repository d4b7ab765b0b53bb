/**
 * The property test's own reading of the HTTP contract (/work/shared/API.md, and the project's
 * docs/api.md and openapi.json where API.md leaves a rule open): which requests are malformed
 * (400), too large (413) or not JSON (415), how names are stored and when two of them clash,
 * and what an `If-Match` asks for.
 *
 * Written from the documents, not from the service: nothing here imports #core or #functions,
 * so a bug in the service's validation, names or preconditions makes the test fail instead of
 * agreeing with it. Where the documents allow two readings, the verdict is `contested`: the
 * test then accepts a 400 as well as what the other reading leads to.
 *
 * Rules, and where they are:
 * - ids: `isId` (API.md 1; docs/api.md "Ids")
 * - names: `trimName`, `storedName`, `nameVerdict`, `nameKey`, `caseFold` (API.md 1, 7)
 * - user ids: `userIdVerdict` (API.md 8)
 * - body fields: `fieldVerdict` (description, content 413, contentType, version, role; API.md
 *   6, 7; docs/api.md "Request bodies" and the endpoint tables; openapi.json for the bounds)
 * - bodies: `BODIES` and `bodyVerdict` (object, unknown fields, required fields, null)
 * - the wire: `readBody` (2 MiB 413, Content-Type 415, UTF-8, JSON syntax and keys named twice)
 * - query: `queryVerdict` (`limit` 1–100 in decimal, `recursive`, `cursor` present; API.md 3, 11)
 * - path: `paramVerdict` (ids, user ids, a revision's `{version}`)
 * - all of a request's input at once, in the documented order: `judge`
 * - `If-Match`: `parseIfMatch`, `ifMatchHolds` (API.md 5, RFC 9110 §13.1.1, §8.8.3, §5.6.1)
 */

// ---------------------------------------------------------------------------------------------
// Text.

/** Length in Unicode code points (an emoji counts once). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Bytes of UTF-8 (a lone surrogate, which has no UTF-8 form, as the 3 bytes of U+FFFD). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

/** No lone UTF-16 surrogate: text that has a UTF-8 form. */
export function wellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return false;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) return false;
  }
  return true;
}

/** Unicode Cc: C0, DEL and C1. */
const isControl = (cp: number) => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
/** API.md 1: LRM, RLM, the embeddings and overrides, the isolates. */
const isBidiControl = (cp: number) => cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
/** White space (any, Zs included) or an invisible format character (Cf). */
const invisible = /^[\p{White_Space}\p{Zs}\p{Cf}]$/u;

// ---------------------------------------------------------------------------------------------
// Names (API.md 1 and 7; docs/api.md "Names").

/**
 * What "trimming" removes at both ends, as docs/api.md spells it out: spaces (Unicode Zs
 * included), tabs, line breaks and U+FEFF. That is ECMAScript's WhiteSpace and LineTerminator
 * set; U+0085 (NEL) is a C1 control character there, not trimmed, so a name ending in it is 400.
 */
const TRIMMED = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);

export function trimName(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && TRIMMED.has(raw.charCodeAt(start))) start++;
  while (end > start && TRIMMED.has(raw.charCodeAt(end - 1))) end--;
  return raw.slice(start, end);
}

/** The name as stored and returned: trimmed, then NFC. */
export function storedName(raw: string): string {
  return trimName(raw).normalize('NFC');
}

export const MAX_NAME_CHARACTERS = 255;

/** Why a name sent is refused (400), or undefined when it is a name. */
export function nameVerdict(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'not a string';
  if (!wellFormed(value)) return 'not valid Unicode';
  const name = storedName(value);
  const length = codePoints(name);
  if (length === 0) return 'empty after trimming';
  if (length > MAX_NAME_CHARACTERS) return 'over 255 characters';
  if (name === '.' || name === '..') return '"." or ".."';
  let visible = false;
  for (const c of name) {
    const cp = c.codePointAt(0)!;
    if (c === '/') return 'holds "/"';
    if (isControl(cp)) return 'holds a control character';
    if (isBidiControl(cp)) return 'holds a bidirectional control';
    if (!invisible.test(c)) visible = true;
  }
  return visible ? undefined : 'only white space and invisible characters';
}

/**
 * Unicode full case folding (CaseFolding.txt, statuses C and F) of one code point, built from
 * the full case mappings the runtime has (String.prototype.toLowerCase/toUpperCase, which apply
 * SpecialCasing without locale): lower, upper, lower again maps every code point to its full
 * folding (`ß` and `ẞ` to `ss`, `ς` and `Σ` to `σ`, `ΐ` to `ΐ`, `İ` to `i̇`) except for two
 * groups, handled here as CaseFolding.txt has them:
 * - U+0131 (dotless ı) has no folding (only the Turkic `T` mapping of `I` would involve it), but
 *   upper-casing makes it `I`, so it would clash with `i`;
 * - Cherokee folds to its capital letters (U+13A0–U+13F5), which lower-casing would not give.
 * Checked against Python's str.casefold (Unicode 14) for every code point it knows.
 */
function foldCodePoint(c: string): string {
  const cp = c.codePointAt(0)!;
  if (cp === 0x131) return c;
  if ((cp >= 0x13a0 && cp <= 0x13f5) || (cp >= 0x13f8 && cp <= 0x13fd) || (cp >= 0xab70 && cp <= 0xabbf)) return c.toUpperCase();
  return c.toLowerCase().toUpperCase().toLowerCase();
}

/** Full case folding of a text, code point by code point (so no context, such as final sigma, applies). */
export function caseFold(s: string): string {
  let folded = '';
  for (const c of s) folded += foldCodePoint(c);
  return folded;
}

/**
 * The key under which two names clash in one folder (API.md 1): Unicode full case folding of
 * the NFC form of the stored name. Folding can decompose (`ΰ`), so the key is put in NFC again:
 * names that fold to canonically equivalent text are the same name.
 */
export function nameKey(raw: string): string {
  return caseFold(storedName(raw)).normalize('NFC');
}

// ---------------------------------------------------------------------------------------------
// Ids, user ids and the other fields.

const ID = /^[A-Za-z0-9_-]{1,64}$/;
/** API.md 1: `^[A-Za-z0-9_-]{1,64}$`. */
export const isId = (value: unknown): value is string => typeof value === 'string' && ID.test(value);

/** API.md 8: a JWT `sub`, 1–255 code points, no control characters (and valid Unicode). */
export function userIdVerdict(value: string): string | undefined {
  if (!wellFormed(value)) return 'not valid Unicode';
  const length = codePoints(value);
  if (length < 1 || length > 255) return 'not 1 to 255 characters';
  for (const c of value) if (isControl(c.codePointAt(0)!)) return 'holds a control character';
  return undefined;
}

/** docs/api.md "Create a repository": any text of at most 1,024 code points. */
export const MAX_DESCRIPTION_CHARACTERS = 1024;
/** API.md 7: `content` 256 KiB of UTF-8; more is 413 (API.md 6). */
export const MAX_CONTENT_BYTES = 256 * 1024;
/** API.md 7: the request body, 2 MiB; more is 413 (API.md 6). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** docs/api.md "Create a document": a media type of at most 255 code points. */
export const MAX_CONTENT_TYPE_CHARACTERS = 255;
/** openapi.json: a `version` is an integer from 1 to 2^53 − 1 (what a JSON number holds exactly). */
const MAX_VERSION = 2 ** 53 - 1;

// RFC 9110 §5.6.2 token, §5.6.4 quoted-string, §8.3.1 media-type. A JSON string is text, not
// bytes: a character outside ASCII is taken as the bytes of its UTF-8 form, each obs-text, so
// it may stand in a quoted-string, after a backslash too (quoted-pair = "\" ( HTAB / SP / VCHAR
// / obs-text )).
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const quotedString = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\u0080-\\u{10ffff}]|\\\\[\\t \\x21-\\x7e\\u0080-\\u{10ffff}])*"';
const parameter = `${token}=(?:${token}|${quotedString})`;
/** docs/api.md: `type/subtype` with optional `; name=value` parameters. */
const mediaTypeStrict = new RegExp(`^${token}/${token}(?:[ \\t]*;[ \\t]*${parameter})*$`, 'u');
/** RFC 9110 §5.6.6 itself: `parameters = *( OWS ";" OWS [ parameter ] )`, so `text/plain;` is one too. */
const mediaTypeRfc = new RegExp(`^${token}/${token}(?:[ \\t]*;[ \\t]*(?:${parameter})?)*$`, 'u');

/** A field's verdict: fine, 400, 413, or fine by one reading of the documents and 400 by another. */
export type FieldVerdict = 'ok' | 'bad' | 'too-large' | 'contested';

export type FieldKind = 'id' | 'name' | 'description' | 'content' | 'contentType' | 'version' | 'role';

/** One body field's rules. `null` is no value for any field (docs/api.md "Request bodies"). */
export function fieldVerdict(kind: FieldKind, value: unknown): FieldVerdict {
  switch (kind) {
    case 'id':
      return isId(value) ? 'ok' : 'bad';
    case 'name':
      return nameVerdict(value) === undefined ? 'ok' : 'bad';
    case 'description':
      return typeof value === 'string' && wellFormed(value) && codePoints(value) <= MAX_DESCRIPTION_CHARACTERS ? 'ok' : 'bad';
    case 'content':
      if (typeof value !== 'string') return 'bad';
      // Over its limit is 413 whatever else is wrong (docs/api.md "Order of checks", step 6).
      if (utf8Bytes(value) > MAX_CONTENT_BYTES) return 'too-large';
      return wellFormed(value) ? 'ok' : 'bad';
    case 'contentType':
      if (typeof value !== 'string' || !wellFormed(value) || codePoints(value) > MAX_CONTENT_TYPE_CHARACTERS) return 'bad';
      return mediaTypeStrict.test(value) ? 'ok' : mediaTypeRfc.test(value) ? 'contested' : 'bad';
    case 'version':
      return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_VERSION ? 'ok' : 'bad';
    case 'role':
      return value === 'owner' || value === 'editor' || value === 'viewer' ? 'ok' : 'bad';
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies (API.md 2, 8, 9, 10; docs/api.md "Request bodies").

export interface BodySpec {
  fields: Record<string, FieldKind>;
  required: string[];
}

export const BODIES = {
  createRepository: { fields: { name: 'name', description: 'description' }, required: ['name'] },
  updateRepository: { fields: { name: 'name', description: 'description', version: 'version' }, required: [] },
  createFolder: { fields: { parentId: 'id', name: 'name' }, required: ['parentId', 'name'] },
  updateFolder: { fields: { id: 'id', name: 'name', parentId: 'id', version: 'version' }, required: ['id'] },
  createDocument: {
    fields: { folderId: 'id', name: 'name', content: 'content', contentType: 'contentType', id: 'id' },
    required: ['folderId', 'name'],
  },
  updateDocument: {
    fields: { id: 'id', name: 'name', content: 'content', contentType: 'contentType', folderId: 'id', version: 'version' },
    required: ['id'],
  },
  putMember: { fields: { role: 'role' }, required: ['role'] },
  restore: { fields: { folderId: 'id', name: 'name' }, required: [] },
} satisfies Record<string, BodySpec>;

/** A JSON value as a body: an object, with only the fields it may have, each by its rules. */
export function bodyVerdict(spec: BodySpec, value: unknown): FieldVerdict[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['bad'];
  const body = value as Record<string, unknown>;
  const verdicts: FieldVerdict[] = [];
  for (const key of Object.keys(body)) {
    const kind = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    verdicts.push(kind === undefined ? 'bad' : fieldVerdict(kind, body[key]));
  }
  for (const key of spec.required) if (!Object.hasOwn(body, key)) verdicts.push('bad');
  return verdicts;
}

// ---------------------------------------------------------------------------------------------
// The wire: size, media type, UTF-8, JSON (API.md 6, 7; docs/api.md "Request bodies").

/** A request body as sent: its bytes (a string is sent as UTF-8) and its Content-Type. */
export interface Wire {
  body: string | Uint8Array;
  contentType: string | undefined;
}

/**
 * JSON, as docs/api.md has it: `application/json` or any `application/<something>+json`, in any
 * case; a `charset` parameter, when there is one, `utf-8` (any case, quoted or not).
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [essence = '', ...parameters] = contentType.split(';');
  if (!/^application\/(?:[!#$%&'*.^_`|~0-9a-z-]+\+)?json$/i.test(essence.trim())) return false;
  for (const p of parameters) {
    const eq = p.indexOf('=');
    if (eq < 0 || p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (charset.toLowerCase() !== 'utf-8') return false;
  }
  return true;
}

/**
 * Strict JSON (RFC 8259), with a key named twice in one object refused (API.md 6); undefined
 * when the text is not JSON. A recursive descent of its own, so the test does not share
 * JSON.parse's leniency about keys.
 */
export function parseJson(text: string): { value: unknown } | undefined {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`not JSON at ${i}`);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string, value: unknown) => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail();
  };
  const string = (): string => {
    const start = i;
    if (text[i] !== '"') fail();
    i++;
    while (i < text.length && text[i] !== '"') {
      const unit = text.charCodeAt(i);
      if (unit < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if (text[i] !== undefined && '"\\/bfnrt'.includes(text[i]!)) i++;
        else fail();
      } else i++;
    }
    if (text[i] !== '"') fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const number = () => {
    const match = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i));
    if (!match) return fail();
    i += match[0].length;
    return Number(match[0]);
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      const object: Record<string, unknown> = {};
      space();
      if (text[i] === '}') {
        i++;
        return object;
      }
      for (;;) {
        space();
        const key = string();
        if (Object.hasOwn(object, key)) fail();
        space();
        if (text[i] !== ':') fail();
        i++;
        // A key such as `__proto__` is an own field, as JSON.parse makes it.
        Object.defineProperty(object, key, { value: value(), enumerable: true, writable: true, configurable: true });
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return object;
        } else fail();
      }
    }
    if (c === '[') {
      i++;
      const array: unknown[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return array;
      }
      for (;;) {
        array.push(value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return array;
        } else fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    return number();
  };
  try {
    const parsed = value();
    space();
    return i === text.length ? { value: parsed } : undefined;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/**
 * Steps 3 to 5 of the order of checks (docs/api.md): body over 2 MiB 413, not JSON 415, bytes
 * that are not UTF-8 or text that is not JSON 400. `optional`: the endpoint's body may be left
 * out (API.md 10, restore), and no bytes at all are then no body, whatever Content-Type says.
 */
export function readBody(wire: Wire | undefined, optional = false): { status: number } | { value: unknown } {
  const bytes = wire === undefined ? new Uint8Array() : typeof wire.body === 'string' ? new TextEncoder().encode(wire.body) : wire.body;
  if (bytes.length > MAX_BODY_BYTES) return { status: 413 };
  if (optional && bytes.length === 0) return { value: undefined };
  if (!isJsonMediaType(wire?.contentType)) return { status: 415 };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { status: 400 };
  }
  const parsed = parseJson(text);
  return parsed ?? { status: 400 };
}

// ---------------------------------------------------------------------------------------------
// Path and query parameters.

export type ParamKind = 'id' | 'userId' | 'revision';

/** A path parameter, as the service receives it (decoded). */
export function paramVerdict(kind: ParamKind, value: string): FieldVerdict {
  switch (kind) {
    case 'id':
      return isId(value) ? 'ok' : 'bad';
    case 'userId':
      return userIdVerdict(value) === undefined ? 'ok' : 'bad';
    case 'revision':
      // docs/api.md "Get a revision": a positive whole number in decimal; leading zeros are ignored.
      return /^[0-9]+$/.test(value) && /[1-9]/.test(value) ? 'ok' : 'bad';
  }
}

export type QueryKind = 'limit' | 'recursive' | 'cursor';

/** A query parameter as the service receives it (decoded), or undefined when it is absent. */
export function queryVerdict(kind: QueryKind, value: string | undefined): FieldVerdict {
  switch (kind) {
    case 'limit':
      // API.md 3: 1–100, default 50; docs/api.md "Paging": plain decimal digits, never clamped.
      return value === undefined || (/^[0-9]+$/.test(value) && Number(value) >= 1 && Number(value) <= 100) ? 'ok' : 'bad';
    case 'recursive':
      // openapi.json: a boolean, so `true` or `false`.
      return value === undefined || value === 'true' || value === 'false' ? 'ok' : 'bad';
    case 'cursor':
      // API.md 11: required. Which cursors are good (`latest`, or one issued for this feed) the test's model knows.
      return value === undefined || value === '' ? 'bad' : 'ok';
  }
}

// ---------------------------------------------------------------------------------------------
// A request's input, all at once.

export interface Input {
  params?: [ParamKind, string][];
  query?: [QueryKind, string | undefined][];
  /** The body's rules and what was sent; `optional` when the endpoint's body may be left out. */
  body?: { spec: BodySpec; wire: Wire | undefined; optional?: boolean };
}

export interface Verdict {
  /** The status the input gets, or undefined when nothing is wrong with it. */
  status?: number;
  /** Fine by one reading of the documents and 400 by another: a 400 is accepted too. */
  contested?: boolean;
  /** The body as the service parsed it, when it got that far (undefined: no body). */
  body?: Record<string, any>;
}

/**
 * The order of checks of docs/api.md for what the oracle can judge alone: the body's size
 * (413), media type (415) and JSON (400) first; then path, query and body fields all at once,
 * 400 for any problem, except that `content` over its limit is 413 whatever else is wrong.
 */
export function judge(input: Input): Verdict {
  let body: Record<string, any> | undefined;
  const verdicts: FieldVerdict[] = [];
  if (input.body) {
    const read = readBody(input.body.wire, input.body.optional);
    if ('status' in read) return { status: read.status };
    if (read.value !== undefined) {
      verdicts.push(...bodyVerdict(input.body.spec, read.value));
      body = read.value as Record<string, any>;
    }
  }
  for (const [kind, value] of input.params ?? []) verdicts.push(paramVerdict(kind, value));
  for (const [kind, value] of input.query ?? []) verdicts.push(queryVerdict(kind, value));
  if (verdicts.includes('too-large')) return { status: 413 };
  if (verdicts.includes('bad')) return { status: 400 };
  return { body, ...(verdicts.includes('contested') ? { contested: true } : {}) };
}

// ---------------------------------------------------------------------------------------------
// If-Match (API.md 5; RFC 9110 §13.1.1 If-Match, §8.8.3 entity tags, §5.6.1 lists).

/** `*`, or the entity tags listed (a list with none matches nothing). */
export type IfMatch = { any: true } | { tags: { weak: boolean; opaque: string }[] };

/**
 * Parses an `If-Match` field value as the service receives it: `If-Match = "*" / #entity-tag`,
 * where a recipient accepts empty list elements (`"1", , "2"`) and ignores them, and OWS may
 * stand around every element. `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, with etagc any
 * visible ASCII but DQUOTE, or obs-text (a header's bytes 0x80–0xFF, received as U+0080–U+00FF).
 * `*` is only ever the whole value. Undefined when there is no header; `malformed` is 400.
 */
export function parseIfMatch(header: string | undefined): IfMatch | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value === '*') return { any: true };
  const tags: { weak: boolean; opaque: string }[] = [];
  let i = 0;
  const ows = () => {
    while (value[i] === ' ' || value[i] === '\t') i++;
  };
  for (;;) {
    ows();
    if (i === value.length) return { tags };
    if (value[i] !== ',') {
      const weak = value.startsWith('W/', i);
      if (weak) i += 2;
      if (value[i] !== '"') return 'malformed';
      const start = ++i;
      for (; i < value.length && value[i] !== '"'; i++) {
        const c = value.charCodeAt(i);
        if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || (c >= 0x80 && c <= 0xff))) return 'malformed';
      }
      if (value[i] !== '"') return 'malformed';
      tags.push({ weak, opaque: value.slice(start, i) });
      i++;
      ows();
      if (i === value.length) return { tags };
      if (value[i] !== ',') return 'malformed';
    }
    i++; // the comma
  }
}

/**
 * Whether a stored version satisfies the condition: no header or `*` always; else one of the
 * tags, compared strongly (RFC 9110 §8.8.3.2: a weak tag never matches) with the ETag the
 * service gives that version, `"<version>"`.
 */
export function ifMatchHolds(ifMatch: IfMatch | undefined, version: number): boolean {
  if (ifMatch === undefined || 'any' in ifMatch) return true;
  return ifMatch.tags.some((tag) => !tag.weak && tag.opaque === String(version));
}
