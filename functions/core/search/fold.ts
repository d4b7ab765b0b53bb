/**
 * The search fold, on the JavaScript side: what makes case, accents and width not matter
 * (docs/api.md: Search). NFKC (width and compatibility forms: `ＡＢＣ` → `ABC`, `ﬁ` → `fi`), full
 * case folding (`ß` → `ss`, `İ` → `i̇`), then accents stripped (canonical decomposition, marks
 * removed). The SQL side is `search_fold()` in ./schema.ts (NFKC, unaccent, lower); the query's
 * words are folded here, the indexed text there, and test/search/fold.test.ts runs one corpus
 * through both so they agree.
 */
import { caseFold } from 'unicode-case-folding';

const MARKS = /\p{M}/gu;

/**
 * Letters that `unaccent` writes as plain Latin but that have no decomposition to strip (its
 * unaccent.rules): after case folding, so lower case only.
 */
const LETTERS: Record<string, string> = {
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ð: 'd',
  þ: 'th',
  đ: 'd',
  ħ: 'h',
  ı: 'i',
  ł: 'l',
  ŋ: 'n',
  ŧ: 't',
  ĸ: 'q',
};
const PLAIN_LATIN = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'gu');

export function searchFold(text: string): string {
  const folded = caseFold(text.normalize('NFKC')).normalize('NFD').replace(MARKS, '').normalize('NFC');
  return folded.replace(PLAIN_LATIN, (letter) => LETTERS[letter]!);
}

/** A word of folded text: a run of letters and digits (what the query's words are made of). */
export const WORD = /[\p{L}\p{N}]+/gu;

/** The words of folded text, in order. */
export const wordsOf = (folded: string): string[] => folded.match(WORD) ?? [];
