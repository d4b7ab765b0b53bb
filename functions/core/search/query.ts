/**
 * The query language of GET /search (docs/api.md: Search), parsed here into terms, never handed
 * to the database as syntax: words separated by white space, `"a phrase"`, `-word` (or
 * `-"a phrase"`) to exclude, and `OR` between two terms, which binds tighter than the implied
 * AND (`plan a OR b` is plan AND (a OR b), as Google reads it; PostgreSQL's
 * `websearch_to_tsquery` would read (plan AND a) OR b). Every term is folded (./fold.ts) and cut
 * into words; a term of several words (`"two words"`, `report-2024`) is a phrase.
 */
import { invalidField } from '../errors';
import { searchFold, wordsOf } from './fold';

export const MAX_QUERY_CHARS = 256;

/** One term: its folded words, in order (more than one: a phrase). */
export interface Term {
  words: string[];
}

/** Every group must match (AND); within a group, any term may (OR). No excluded term may match. */
export interface ParsedQuery {
  required: Term[][];
  excluded: Term[];
}

interface Token {
  text: string;
  quoted: boolean;
  negated: boolean;
}

/** Splits the query into raw tokens: quoted phrases, `-` prefixes, bare words. An unclosed quote runs to the end. */
function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < q.length) {
    if (/\s/u.test(q[i]!)) {
      i++;
      continue;
    }
    let negated = false;
    if (q[i] === '-' && i + 1 < q.length && !/\s/u.test(q[i + 1]!)) {
      negated = true;
      i++;
    }
    if (q[i] === '"') {
      const end = q.indexOf('"', i + 1);
      const stop = end === -1 ? q.length : end;
      tokens.push({ text: q.slice(i + 1, stop), quoted: true, negated });
      i = stop + 1;
      continue;
    }
    let j = i;
    while (j < q.length && !/\s/u.test(q[j]!)) j++;
    tokens.push({ text: q.slice(i, j), quoted: false, negated });
    i = j;
  }
  return tokens;
}

const isOr = (token: Token | undefined) => token !== undefined && !token.quoted && !token.negated && token.text === 'OR';
const termOf = (token: Token): Term => ({ words: wordsOf(searchFold(token.text)) });

/** Parses `q`, or throws the 400 that says why it is not a query. */
export function parseQuery(q: string): ParsedQuery {
  const chars = [...q].length;
  if (chars < 1 || chars > MAX_QUERY_CHARS) throw invalidField('q', `must be 1 to ${MAX_QUERY_CHARS} characters`);
  if (wordsOf(searchFold(q)).length === 0) throw invalidField('q', 'must contain at least one word (letters or digits)');
  const tokens = tokenize(q);
  const required: Term[][] = [];
  const excluded: Term[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i]!;
    if (token.negated) {
      const term = termOf(token);
      if (term.words.length > 0) excluded.push(term);
      i++;
      continue;
    }
    // A positive term, and every `OR term` after it: one group.
    const group: Term[] = [termOf(token)];
    i++;
    while (isOr(tokens[i]) && tokens[i + 1] && !tokens[i + 1]!.negated && !isOr(tokens[i + 1])) {
      group.push(termOf(tokens[i + 1]!));
      i += 2;
    }
    const words = group.filter((term) => term.words.length > 0);
    // A group with a term that has no word (`OR !!`) still needs one of its other terms.
    if (words.length > 0) required.push(words);
  }
  if (required.length === 0) throw invalidField('q', 'must have at least one word to find, not only exclusions (-word)');
  return { required, excluded };
}
