/**
 * Checks on the raw request before its body is parsed: size (413) and media type (415).
 * Runs before the JSON parser, so by the time the parser fails the only explanation left
 * is malformed JSON (400).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError } from '#core/errors';

export const MAX_REQUEST_BODY_BYTES = 512 * 1024;

const jsonMediaType = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;
const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

export function requestGuards(options: { jsonBody: boolean }): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: ({ event }) => {
      const body = event.body ?? '';
      const bytes = event.isBase64Encoded ? Buffer.from(body, 'base64').length : Buffer.byteLength(body, 'utf8');
      if (bytes > MAX_REQUEST_BODY_BYTES) {
        throw new HttpError('payload-too-large', `The request body is ${bytes} bytes; the limit is ${MAX_REQUEST_BODY_BYTES}.`);
      }
      if (!options.jsonBody) return;
      const contentType = event.headers?.['content-type'];
      if (!contentType || !jsonMediaType.test(contentType)) {
        throw new HttpError('unsupported-media-type', 'The request body must be JSON (Content-Type: application/json).');
      }
      const charset = charsetParameter.exec(contentType)?.[1];
      if (charset && charset.toLowerCase() !== 'utf-8') {
        throw new HttpError('unsupported-media-type', 'JSON must be encoded as UTF-8.');
      }
      if (body === '') throw new HttpError('malformed-json', 'The request body is empty; a JSON object is required.');
    },
  };
}
