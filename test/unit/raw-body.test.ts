/**
 * The request guard of a raw content body (PUT /document/{id}/content: functions/core/http/request-guards.ts):
 * its own limit in place of the JSON one, a declared Content-Length over it refused before the body is decoded,
 * and a base64 body measured by its decoded bytes; nothing about JSON is asked of it.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { HttpError } from '#core/errors';
import { MAX_REQUEST_BODY_BYTES, requestGuards } from '#core/http/request-guards';

const guard = requestGuards({ jsonBody: false, maxBytes: 10 });
const check = (body: string, options: { base64?: boolean; headers?: Record<string, string> } = {}) => {
  const event = { body, isBase64Encoded: options.base64 === true, headers: options.headers ?? {} } as unknown as APIGatewayProxyEventV2;
  try {
    guard.before!({ event } as never);
    return 'ok';
  } catch (error) {
    return error instanceof HttpError ? error.status : error;
  }
};
const base64 = (bytes: number) => Buffer.alloc(bytes, 0xff).toString('base64');

describe('the raw body guard', () => {
  it('takes up to its own limit, in bytes as decoded, padded or not', () => {
    expect(check(base64(10), { base64: true, headers: { 'content-type': 'application/pdf' } })).toBe('ok');
    expect(check(base64(11), { base64: true })).toBe(413);
    for (let n = 0; n <= 12; n++)
      expect(check(base64(n).replace(/=+$/, ''), { base64: true }), `${n} bytes unpadded`).toBe(n > 10 ? 413 : 'ok');
    expect(check('é'.repeat(5))).toBe('ok');
    expect(check(`${'é'.repeat(5)}x`)).toBe(413);
  });

  it('refuses a declared Content-Length over the limit before looking at the body', () => {
    expect(check('', { headers: { 'content-length': '11' } })).toBe(413);
    expect(check('', { headers: { 'content-length': '10' } })).toBe('ok');
  });

  it('asks nothing of JSON: any media type, any bytes', () => {
    expect(check('{not json', { headers: { 'content-type': 'text/plain' } })).toBe('ok');
    expect(check('')).toBe('ok');
  });

  it('leaves the JSON routes their own limit', () => {
    const json = requestGuards({ jsonBody: true });
    const event = { body: '', isBase64Encoded: false, headers: { 'content-length': String(MAX_REQUEST_BODY_BYTES + 1) } };
    expect(() => json.before!({ event } as never)).toThrow(HttpError);
  });
});
