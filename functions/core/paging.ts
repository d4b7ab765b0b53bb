/**
 * Opaque, tamper-proof paging tokens (docs/api.md). A token names the list it belongs to and
 * where the previous page ended, signed with HMAC-SHA256: an altered token, or one from
 * another list, is rejected rather than yielding a wrong page.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidField } from './errors';

interface TokenPayload {
  /** The list: e.g. `documents:<folderId>`. */
  l: string;
  /** Sort key of the last item returned. */
  k: string;
}

function secret(): string {
  const value = process.env.PAGING_TOKEN_SECRET;
  if (!value) throw new Error('PAGING_TOKEN_SECRET is not set');
  return value;
}

function sign(payload: string): string {
  return createHmac('sha256', secret()).update(payload).digest('base64url');
}

export function encodePageToken(list: string, lastKey: string): string {
  const payload = Buffer.from(JSON.stringify({ l: list, k: lastKey } satisfies TokenPayload)).toString('base64url');
  return `${payload}.${sign(payload)}`;
}

/** The sort key to resume after, or a 400 on `field` (a change feed's `cursor` is such a token too). */
export function decodePageToken(list: string, token: string, field = 'nextToken'): string {
  const invalid = () => invalidField(field, `is not a ${field === 'nextToken' ? 'token' : field} issued for this list`);
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) throw invalid();
  // Compare the text, not decoded bytes: base64 decoding ignores a last character's spare bits.
  const expected = Buffer.from(sign(payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let decoded: Partial<TokenPayload>;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TokenPayload>;
  } catch {
    throw invalid();
  }
  if (decoded.l !== list || typeof decoded.k !== 'string') throw invalid();
  return decoded.k;
}
