/**
 * Every POST, PUT and DELETE takes Idempotency-Key (its handler is built with writeEndpoint),
 * and no GET does (read handlers stay free of the idempotency utility): a route added without
 * it fails here, not silently.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '#functions/routes';
import { loadOperations } from '#lib/openapi/document';

const operations = await loadOperations();

describe('Idempotency-Key on the route table', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_, route) => {
    expect(operations.get(route.name)!.takesIdempotencyKey).toBe(route.method !== 'GET');
  });
});
