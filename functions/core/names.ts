/**
 * Names of repositories, folders and documents (docs/api.md: Names): what is stored, what is
 * refused, and the key under which two names count as the same.
 */
import { caseFold } from 'unicode-case-folding';

export const MAX_NAME_LENGTH = 255;

/** The stored form: trimmed, NFC. */
export function normalizeName(raw: string): string {
  return raw.trim().normalize('NFC');
}

/**
 * Names clash when their keys are equal: Unicode full case folding (CaseFolding.txt, C and F)
 * of the NFC form, so `straße` and `STRASSE` clash, and so do `ΟΔΟΣ` and `οδος`. Folding can
 * decompose (`ΰ` folds to three code points), so the result is put in NFC again: names that
 * fold to canonically equivalent text clash too. Lists are ordered by it.
 */
export function nameKey(name: string): string {
  return caseFold(name.normalize('NFC')).normalize('NFC');
}

/** Length in Unicode code points, so an emoji counts once. */
export function nameLength(name: string): number {
  let n = 0;
  for (const _ of name) n++;
  return n;
}

const controlCharacter = /\p{Cc}/u;
/** Marks that reorder text (LRM, RLM, embeddings, overrides, isolates): a name could look like another. */
export const BIDI_CONTROLS = '\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
const bidiControl = new RegExp(`[${BIDI_CONTROLS}]`, 'u');
/** Something a reader can see: not white space (Zs, or any other) and not an invisible format character (Cf). */
const visibleCharacter = /[^\s\p{Zs}\p{Cf}]/u;

/** Why a (normalized) name is not allowed, or undefined when it is fine. */
export function nameProblem(name: string): string | undefined {
  const length = nameLength(name);
  if (length === 0) return 'must not be empty or only white space';
  if (length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  if (name.includes('/')) return 'must not contain "/"';
  if (controlCharacter.test(name)) return 'must not contain control characters';
  if (bidiControl.test(name)) return 'must not contain bidirectional controls';
  if (!visibleCharacter.test(name)) return 'must not be only white space and invisible characters';
  return undefined;
}
