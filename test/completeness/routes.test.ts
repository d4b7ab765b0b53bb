/**
 * Runs after every other test file (vitest.config.ts: its own project, a later group): each
 * route of the route table must have been answered end to end with its success status and with
 * every error status its operation declares, as the contract-checking client saw them. Adding
 * a route without end-to-end tests fails here.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { problems } from '#core/errors';
import { routes } from '#functions/routes';
import { loadOperations } from '#lib/openapi/document';
import { readAnswered } from '#test/support/route-coverage';

const operations = await loadOperations();
const answered = readAnswered();
afterAll(() => rmSync(process.env.ROUTE_COVERAGE_FILE ?? '', { force: true }));

describe('end-to-end coverage of the route table', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s is answered with every status it declares',
    (key, route) => {
      const operation = operations.get(route.name)!;
      const declared = [
        operation.success.status,
        ...('created' in operation.success && operation.success.created ? [201] : []),
        ...Object.keys(operation.errors ?? {}).map((kind) => problems[kind as keyof typeof problems].status),
      ];
      const seen = answered.get(key) ?? new Set<number>();
      expect(
        [...new Set(declared)].filter((status) => !seen.has(status)),
        `${key}: statuses no end-to-end test got`,
      ).toEqual([]);
    },
  );
});
