import { describe, expect, it } from 'vitest';
import { HttpError, problemResponse, toHttpError, validationError } from '#core/errors';

describe('problem responses', () => {
  it('renders RFC 9457 problem+json with a stable type', () => {
    const response = problemResponse(validationError([{ path: 'name', message: 'must not be empty' }]));
    expect(response.statusCode).toBe(400);
    expect(response.headers['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(response.body)).toEqual({
      type: 'urn:problem-type:documents:validation-error',
      title: 'Invalid request',
      status: 400,
      detail: 'name: must not be empty',
      errors: [{ path: 'name', message: 'must not be empty' }],
    });
  });

  it('maps DynamoDB throttling to 429 and outages to 503, both with Retry-After', () => {
    const throttled = toHttpError(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));
    expect(throttled.status).toBe(429);
    expect(problemResponse(throttled).headers['Retry-After']).toBe('1');

    const refused = toHttpError(new Error('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }));
    expect(refused.status).toBe(503);
    expect(problemResponse(refused).headers['Retry-After']).toBe('1');
  });

  it('hides unknown errors behind a 500 without internals', () => {
    const secret = new Error('at /var/task/index.js:1 table documents-prod');
    const response = problemResponse(toHttpError(secret));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('/var/task');
    expect(response.body).not.toContain('documents-prod');
  });

  it('passes HttpErrors through unchanged', () => {
    const error = new HttpError('conflict', 'taken');
    expect(toHttpError(error)).toBe(error);
  });
});
