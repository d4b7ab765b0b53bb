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

const entityTag = /^\s*(W\/)?"([^"]*)"\s*$/;

/**
 * Parses `If-Match`: `*` or a comma-separated list of entity tags. Weak tags are kept
 * as never-matching (strong comparison, RFC 9110 §13.1.1). Malformed is a 400.
 */
export function parseIfMatch(header: string | undefined): number[] | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return undefined;
  const versions: number[] = [];
  for (const part of header.split(',')) {
    const match = entityTag.exec(part);
    if (!match) throw invalidField('If-Match', 'must be "*" or a list of entity tags such as "3"');
    const [, weak, tag] = match;
    if (!weak && /^[1-9][0-9]{0,15}$/.test(tag!)) versions.push(Number(tag));
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
