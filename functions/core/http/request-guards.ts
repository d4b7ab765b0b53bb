/**
 * Checks on the raw request before its body is parsed: size (413), media type (415), and the
 * JSON text itself (UTF-8, no key given twice: ./json-text.ts). Runs before the JSON parser,
 * so by the time the parser fails the only explanation left is malformed JSON (400).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from '#core/errors';
import { bodyText, duplicateKey } from './json-text';

/**
 * 2 MiB: `content` may be 256 KiB of UTF-8, and JSON may write one byte as six (`\u0001`), so
 * content within its own limit can take 1.5 MiB of body however it is escaped; the rest is room
 * for the other fields.
 */
export const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;

const jsonMediaType = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;
const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/**
 * `maxBytes`: a raw body's own limit (PUT /document/{id}/content), in place of the JSON one;
 * a `Content-Length` over it is refused before the body is decoded.
 */
export function requestGuards(options: {
  jsonBody: boolean;
  bodyOptional?: boolean;
  maxBytes?: number;
}): MiddlewareObj<APIGatewayProxyEventV2> {
  const limit = options.maxBytes ?? MAX_REQUEST_BODY_BYTES;
  const tooLarge = (bytes: number) => new HttpError('payload-too-large', `The request body is ${bytes} bytes; the limit is ${limit}.`);
  return {
    before: ({ event }) => {
      const declared = Number(event.headers?.['content-length']);
      if (Number.isSafeInteger(declared) && declared > limit) throw tooLarge(declared);
      const body = event.body ?? '';
      // Base64 holds 3 bytes in 4 characters (less its padding): the length, without decoding.
      const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
      const bytes = event.isBase64Encoded ? Math.floor((body.length * 3) / 4) - padding : Buffer.byteLength(body, 'utf8');
      if (bytes > limit) throw tooLarge(bytes);
      if (!options.jsonBody) return;
      // No body at all where the operation allows that: as if `{}` was sent, whatever Content-Type says.
      if (options.bodyOptional && body === '') {
        event.body = '{}';
        event.isBase64Encoded = false;
        return;
      }
      const contentType = event.headers?.['content-type'];
      if (!contentType || !jsonMediaType.test(contentType)) {
        throw new HttpError('unsupported-media-type', 'The request body must be JSON (Content-Type: application/json).');
      }
      const charset = charsetParameter.exec(contentType)?.[1];
      if (charset && charset.toLowerCase() !== 'utf-8') {
        throw new HttpError('unsupported-media-type', 'JSON must be encoded as UTF-8.');
      }
      if (body === '') throw new HttpError('malformed-json', 'The request body is empty; a JSON object is required.');
      const text = bodyText(body, event.isBase64Encoded);
      const twice = duplicateKey(text);
      if (twice !== undefined)
        throw new HttpError('malformed-json', `The request body names the key ${JSON.stringify(twice)} twice in one object.`);
      event.body = text;
      event.isBase64Encoded = false;
    },
  };
}
