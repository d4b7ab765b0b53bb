/**
 * fast-check generators for request values, shared by the schema agreement test and the
 * property test against the running service: for each field, values the service should
 * accept (`likely`) and values on and over the edges of its rules (`edges`).
 */
import fc from 'fast-check';

/** Characters on the edges of the rules: white space, controls, "/", surrogates, NFC, quoting. */
const edgy = fc.constantFrom(
  'a',
  'Z',
  '0',
  '_',
  '-',
  '.',
  ' ',
  '\t',
  '\n',
  '/',
  '\u0000',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u3000',
  '\u00e9',
  'e\u0301',
  '\u{1F600}',
  '\ud800',
  '\udc00',
  '"',
  '\\',
  ';',
  '=',
  ',',
  'W',
  '*',
  '%',
  '?',
  '#',
);
export const text = (maxLength = 12) => fc.oneof(fc.string({ unit: edgy, maxLength }), fc.string({ unit: 'binary', maxLength }));

/** Around a length limit, with padding and astral characters (2 UTF-16 units, 1 code point). */
export const nearLength = (limit: number) =>
  fc
    .tuple(
      fc.constantFrom('', ' ', '\t', ' \u3000'),
      fc.integer({ min: limit - 3, max: limit + 3 }),
      fc.constantFrom('a', '\u{1F600}', 'a b'),
      fc.constantFrom('', ' ', '\n'),
    )
    .map(([before, n, unit, after]) => before + unit.repeat(Math.ceil(n / [...unit].length)).slice(0, n * unit.length) + after);

export const validId = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);
const ids = fc.oneof(validId, text(), fc.constantFrom('', 'x'.repeat(64), 'x'.repeat(65), 'a b', '\u00e4'));
const names = fc.oneof(text(), nearLength(255), fc.constantFrom('', ' ', ' a ', 'a/b', 'a\u0000', '\u00a0x\u00a0'));
const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,8}$/);
const mediaTypes = fc.oneof(
  fc
    .tuple(
      token,
      token,
      fc.array(
        fc.tuple(
          token,
          fc.oneof(
            token,
            text(6).map((t) => `"${t}"`),
          ),
        ),
        { maxLength: 2 },
      ),
    )
    .map(([type, sub, params]) => `${type}/${sub}${params.map(([k, v]) => `; ${k}=${v}`).join('')}`),
  text(),
  nearLength(255).map((s) => `text/${s.replace(/[^a-z]/g, 'x')}`),
);
const versions = fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.constantFrom('1', null, 2 ** 53, 2 ** 53 - 1, 1.5));

/** Short plain text, with an accent and an emoji; names from it clash now and then. */
const plain = fc.string({ unit: fc.constantFrom('a', 'B', '1', ' ', '.', '\u00e9', '\u{1F600}'), minLength: 1, maxLength: 12 });

/** Field kinds: `folderId` and `parentId` are ids. */
export const kindOf = (field: string) => (['folderId', 'parentId', 'documentId'].includes(field) ? 'id' : field);

export const likely: Record<string, fc.Arbitrary<unknown>> = {
  id: validId,
  name: plain,
  description: plain,
  content: plain,
  contentType: fc.constantFrom('text/plain', 'text/markdown; charset=utf-8', 'application/json'),
  version: fc.integer({ min: 1, max: 4 }),
  role: fc.constantFrom('owner', 'editor', 'viewer'),
  size: fc.integer({ min: 0, max: 50_000_000 }),
  sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  numbers: fc.uniqueArray(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 5 }),
  // A share link's: an hour to 300 days ahead; a password of 8 to 20 characters.
  expiresAt: fc.integer({ min: 3_600, max: 300 * 86_400 }).map((seconds) => new Date(Date.now() + seconds * 1000).toISOString()),
  password: fc.string({ unit: fc.constantFrom('a', 'B', '1', ' ', '\u00e9', '\u{1F600}'), minLength: 8, maxLength: 20 }),
};

export const edges: Record<string, fc.Arbitrary<unknown>> = {
  id: ids,
  name: names,
  description: fc.oneof(text(), nearLength(1024)),
  content: fc.oneof(text(40), fc.jsonValue()),
  contentType: mediaTypes,
  version: versions,
  role: fc.oneof(text(8), fc.constantFrom('Owner', 'VIEWER', 'admin', ' editor', 'viewer ', '', null, 1, ['viewer'])),
  size: fc.constantFrom(-1, 1.5, 5 * 1024 ** 4, 5 * 1024 ** 4 + 1, '5', null, Number.MAX_SAFE_INTEGER),
  sha256: fc.oneof(fc.stringMatching(/^[0-9a-fA-F]{63,65}$/), fc.stringMatching(/^[0-9A-F]{64}$/), text(64)),
  numbers: fc.oneof(
    fc.constantFrom([], [0], [1, 1], [10_000], [10_001], ['1'], 1, null),
    fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { minLength: 99, maxLength: 102 }),
  ),
  expiresAt: fc.oneof(
    fc.integer({ min: -86_400 * 400, max: 86_400 * 400 }).map((seconds) => new Date(Date.now() + seconds * 1000).toISOString()),
    fc.constantFrom('2027-01-01', '2027-01-01T00:00:00', 'tomorrow', '', null, 1, '2027-01-01T00:00:00+01:00'),
  ),
  password: fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.string({ minLength: 127, maxLength: 130 }),
    fc.constantFrom('e\u0301'.repeat(8), null, 12345678),
  ),
};

export const anything = fc.oneof(fc.jsonValue(), text());

/**
 * Bodies with these properties: mostly with the required ones, each field mostly likely,
 * sometimes on an edge, sometimes anything; now and then an unknown field, or no object at all.
 */
export function bodies(
  properties: string[],
  required: string[],
  field: (name: string) => fc.Arbitrary<unknown> = fieldValue,
): fc.Arbitrary<unknown> {
  const known = Object.fromEntries(properties.map((p) => [p, field(p)]));
  const withRequired = fc.record(known, { requiredKeys: required });
  return fc.oneof(
    { weight: 6, arbitrary: withRequired },
    { weight: 2, arbitrary: fc.record(known, { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.tuple(withRequired, fc.constantFrom('contnet', 'extra', 'Name')).map(([b, k]) => ({ ...b, [k]: 1 })) },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
}

export function fieldValue(name: string): fc.Arbitrary<unknown> {
  const kind = kindOf(name);
  return fc.oneof({ weight: 6, arbitrary: likely[kind]! }, { weight: 3, arbitrary: edges[kind]! }, { weight: 1, arbitrary: anything });
}

/** `limit` as sent: in range, out of range, not decimal, not a number. */
export const limits = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map(String),
  fc.constantFrom('0', '101', '-1', '1e2', ' 5', '+5', '05', '5.0', '', 'abc', '9'.repeat(30)),
  text(4),
);

/** `If-Match` as sent: lists of tags (empty elements too), weak tags, `*`, odd characters inside quotes, and junk. */
export const ifMatches = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.stringMatching(/^(W\/)?"[0-9a-z]{0,3}"$/), fc.constantFrom('', '"a,b"', '"sp ace"', '"é"', '"\t"')),
        fc.constantFrom('', ' ', '\t'),
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    )
    .map((parts) => parts.map(([t, ws]) => ws + t + ws).join(',')),
  fc.string({ unit: fc.constantFrom('"', 'W', '/', ',', ' ', '1', '*', 'a', '\t'), maxLength: 12 }),
);

/**
 * User ids (a JWT `sub`) for a path: ones identity providers make (`|`, `@`, `:`, spaces,
 * non-ASCII), characters a path reserves (`%`, `+`, `?`, `#`, `/`), and edges (controls,
 * 255 and 256 characters, astral ones that make 1,020 bytes of UTF-8).
 */
export const userIds = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'bob',
      'auth0|5f7c8ec7c33c6c004bbafe82',
      'google-oauth2|1234567890',
      'bob@example.com',
      'urn:example:user:42',
      'Mary Ann',
      ' padded ',
      'Zoë',
      '用户',
      '\u{1F600}',
      '100%',
      '%41',
      'a+b',
      'a?b#c',
      'a/b',
      '~.-_',
    ),
  },
  { weight: 3, arbitrary: plain },
  { weight: 2, arbitrary: fc.oneof(text(), nearLength(255), fc.constantFrom('', 'a\u0000', '\u0085', 'a\u007f', '\u{1F600}'.repeat(255))) },
);

/** A revision's `{version}` as a path has it: small versions mostly, and what is not a positive whole number. */
export const revisionVersions = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 6 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '00',
      '-1',
      '+1',
      '1.5',
      '1e2',
      '007',
      ' 1',
      '1 ',
      'abc',
      '١',
      '\uff11',
      '0x1',
      '9'.repeat(30),
      'latest',
    ),
  },
  { weight: 1, arbitrary: text(6) },
);

/** A change feed's `cursor` as text (the property test also sends cursors the service issued, and altered ones). */
export const cursorTexts = fc.oneof(fc.constantFrom('latest', 'LATEST', 'latest ', ''), text(), nearLength(2048));
