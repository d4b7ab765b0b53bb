/**
 * The request body as JSON text, held to what JSON's own standard leaves open: the bytes must
 * be UTF-8 (a body the gateway could only pass base64-encoded is decoded strictly, never with
 * U+FFFD standing in for bad bytes, which would make two different invalid names one), and no
 * object may name a key twice (JSON.parse would silently keep the last one).
 */
import { HttpError } from '../errors';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body's text; 400 when its bytes are not UTF-8. */
export function bodyText(body: string, isBase64Encoded: boolean | undefined): string {
  if (!isBase64Encoded) return body;
  try {
    return strictUtf8.decode(Buffer.from(body, 'base64'));
  } catch {
    throw new HttpError('malformed-json', 'The request body is not UTF-8.');
  }
}

/**
 * The first key some object of `text` names twice, or undefined. A scan of the text, not a
 * parse: it only has to be right for text JSON.parse accepts (malformed text fails there).
 */
export function duplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far in an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      const keys = open.at(-1);
      if (keys && expectingKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          return undefined;
        }
        if (keys.has(key)) return key;
        keys.add(key);
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      open.push(new Set());
      expectingKey = true;
    } else if (c === 0x5b /* [ */) {
      open.push(null);
      expectingKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      expectingKey = false;
    } else if (c === 0x2c /* , */) {
      expectingKey = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let at = text.indexOf('"', start + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    for (let k = at - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
