/**
 * Names of repositories, folders and documents (docs/api.md): what is stored, and the key
 * under which two names count as the same.
 */
export const MAX_NAME_LENGTH = 255;

/** The stored form: trimmed, NFC. */
export function normalizeName(raw: string): string {
  return raw.trim().normalize('NFC');
}

/** Names clash when their keys are equal: NFC, then lower case. */
export function nameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** Length in Unicode code points, so an emoji counts once. */
export function nameLength(name: string): number {
  let n = 0;
  for (const _ of name) n++;
  return n;
}

const controlCharacter = /\p{Cc}/u;

/** Why a (normalized) name is not allowed, or undefined when it is fine. */
export function nameProblem(name: string): string | undefined {
  const length = nameLength(name);
  if (length === 0) return 'must not be empty or only white space';
  if (length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  if (name.includes('/')) return 'must not contain "/"';
  if (controlCharacter.test(name)) return 'must not contain control characters';
  return undefined;
}
