/**
 * The endpoint of a POST, PUT or DELETE: the shared stack (./endpoint.ts) with Idempotency-Key
 * (./idempotency.ts). Kept apart so that read handlers do not carry the idempotency utility in
 * their bundles; test/unit/routes.test.ts checks every write route is built with it.
 */
import type { MiddlewareObj } from '@middy/core';
import { type EndpointRequest, endpoint, type JsonOperation, type SuccessBody } from './endpoint';
import { idempotency } from './idempotency';

/** Marks a handler that takes Idempotency-Key. */
export const TAKES_IDEMPOTENCY_KEY = Symbol.for('documents.takesIdempotencyKey');

export function writeEndpoint<O extends JsonOperation>(
  operation: O,
  run: (request: EndpointRequest<O>) => ReturnType<Parameters<typeof endpoint<O>>[1]>,
) {
  const handler = endpoint(operation, run, idempotency() as MiddlewareObj[]);
  return Object.assign(handler, { [TAKES_IDEMPOTENCY_KEY]: true });
}

export type { SuccessBody };
