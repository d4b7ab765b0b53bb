/**
 * Optimistic concurrency (docs/api.md): `If-Match` and the body's `version`.
 */
import { invalidField, preconditionFailed } from './errors';

/** What the client requires of the stored version. */
export interface Precondition {
  /** Versions any of which may be stored; undefined means any (`*` or no header). */
  ifMatch?: number[];
  version?: number;
}

/**
 * One element of an RFC 9110 list of entity tags, and what ends it: `[ W/ ] "opaque"` (etagc:
 * any visible ASCII but `"`, or obs-text) or nothing (an empty element), then a comma or the end.
 */
const element = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(,|$)/y;

/**
 * Parses `If-Match` (RFC 9110 §13.1.1): `*`, or a list of entity tags whose empty elements are
 * ignored (`"1", , "2"`). A weak tag never matches (strong comparison), nor does a tag that is no
 * version of ours; a list with no tag at all matches nothing. Malformed is a 400.
 */
export function parseIfMatch(header: string | undefined): number[] | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return undefined;
  const versions: number[] = [];
  element.lastIndex = 0;
  while (element.lastIndex < header.length || element.lastIndex === 0) {
    const match = element.exec(header);
    if (!match) throw invalidField('If-Match', 'must be "*" or a list of entity tags such as "3"');
    const [, weak, tag, end] = match;
    if (tag !== undefined && !weak && /^[1-9][0-9]{0,15}$/.test(tag)) versions.push(Number(tag));
    if (end === '') break;
  }
  return versions;
}

/** Throws 412 unless the stored version satisfies the client's precondition. */
export function checkPrecondition(precondition: Precondition, storedVersion: number): void {
  if (precondition.ifMatch && !precondition.ifMatch.includes(storedVersion)) {
    throw preconditionFailed(`If-Match does not match the stored version ${storedVersion}.`);
  }
  if (precondition.version !== undefined && precondition.version !== storedVersion) {
    throw preconditionFailed(`version ${precondition.version} does not match the stored version ${storedVersion}.`);
  }
}
