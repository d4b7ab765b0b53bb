/**
 * The endpoint of a POST, PUT or DELETE: the shared stack (./endpoint.ts) with Idempotency-Key
 * (./idempotency.ts). Kept apart so that read handlers do not carry the idempotency utility in
 * their bundles; test/unit/write-routes.test.ts checks every write route is built with it.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import { type EndpointRequest, endpoint, type JsonOperation, type SuccessBody } from './endpoint';
import { idempotency } from './idempotency';

/** Marks a handler that takes Idempotency-Key. */
export const TAKES_IDEMPOTENCY_KEY = Symbol.for('documents.takesIdempotencyKey');

export interface WriteOptions {
  /**
   * Fields of the success body that only this answer may carry (a share link's token): the
   * answer an Idempotency-Key keeps, and so every repeat, is the body without them.
   */
  secretFields?: readonly string[];
}

export function writeEndpoint<O extends JsonOperation>(
  operation: O,
  run: (request: EndpointRequest<O>) => ReturnType<Parameters<typeof endpoint<O>>[1]>,
  options: WriteOptions = {},
) {
  const middlewares = idempotency() as MiddlewareObj[];
  const handler = endpoint(operation, run, options.secretFields ? withheld(middlewares, options.secretFields) : middlewares);
  return Object.assign(handler, { [TAKES_IDEMPOTENCY_KEY]: true });
}

/**
 * The idempotency middlewares between two of their own: the inner one (its `after` runs first)
 * hands idempotency the answer without the secret fields, to keep; the outer one (its `after`
 * runs last) puts the whole answer back for this one response. A repeat is answered from what
 * was kept, before the handler and the `after`s run.
 */
function withheld(middlewares: MiddlewareObj[], fields: readonly string[]): MiddlewareObj[] {
  const whole = new WeakMap<object, Result>();
  const strip: MiddlewareObj = {
    after: (request) => {
      const response = request.response as Result | undefined;
      if (typeof response?.body !== 'string' || !response.headers?.['Content-Type']?.toString().startsWith('application/json')) return;
      const body = JSON.parse(response.body) as Record<string, unknown>;
      if (!fields.some((field) => field in body)) return;
      whole.set(request, response);
      for (const field of fields) delete body[field];
      request.response = { ...response, body: JSON.stringify(body) };
    },
  };
  const restore: MiddlewareObj = {
    after: (request) => {
      const response = whole.get(request);
      if (response) request.response = response;
    },
  };
  return [restore, ...middlewares, strip];
}

export type { SuccessBody };
