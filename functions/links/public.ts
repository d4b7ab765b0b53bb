/**
 * What both public share-link routes share: the `Link-Password` header, read as UTF-8, and the
 * headers every answer of theirs carries, errors included (docs/api.md: Share links).
 */
import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';

/** Not kept by any cache, and the link's address not passed on to whatever the content links to. */
export const PUBLIC_LINK_HEADERS = { 'Cache-Control': 'private, no-store', 'Referrer-Policy': 'no-referrer' } as const;

/** The errors a token's check answers, the same on both routes (the order: 404, 429, 401). */
export const OPEN_LINK_ERRORS = {
  'not-found': 'No such link: unknown, revoked, expired, or its document is in the trash or gone.',
  'link-password-required': 'The link has a password and `Link-Password` was not sent (`WWW-Authenticate: Link-Password`).',
  'link-password-wrong': 'The `Link-Password` is wrong (`WWW-Authenticate: Link-Password`).',
} as const;

/** A handler whose every answer carries PUBLIC_LINK_HEADERS. */
export const withLinkHeaders =
  <A extends unknown[]>(handler: (...args: A) => Promise<Result>) =>
  async (...args: A): Promise<Result> => {
    const result = await handler(...args);
    return { ...result, headers: { ...result.headers, ...PUBLIC_LINK_HEADERS } };
  };

/**
 * The `Link-Password` header as the text its UTF-8 bytes spell. HTTP carries header bytes, which
 * Node (and so the local gateway) hands over one character per byte (latin1): such a value is
 * decoded as UTF-8 when it is valid UTF-8, and kept as it is otherwise.
 */
export function linkPassword(headers: Record<string, string | undefined>): string | undefined {
  const value = headers['link-password'];
  if (value === undefined) return undefined;
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0xff) return value;
  const bytes = Buffer.from(value, 'latin1');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : value;
}
