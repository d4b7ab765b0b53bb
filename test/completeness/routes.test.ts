/**
 * Runs after every other test file (vitest.config.ts: its own project, a later group): each
 * route of the route table must have been answered end to end with every status openapi.json
 * documents for it, and a test must have asserted that status (test/support/asserted-statuses.ts):
 * one the contract-checking client merely received (a test tolerating `[200, 404]`, a fixture's
 * 503 retried away) does not count. Adding a route, or a status to a route, without an end-to-end
 * test that asserts it fails here.
 *
 * Every documented status is one of:
 * - the route's own: its success (and 201 for a create-or-update), and each error its operation
 *   declares (not found, forbidden, a conflict, a failed precondition…): seen on that route;
 * - 401 (every route that needs a token: test/api/errors.test.ts sends each one without) and
 *   503 (every route that reads the table: test/api/unavailable.test.ts asks each one while the
 *   database is down): seen on that route too;
 * - one answered by code that every route of its kind shares (SHARED below, each with why one
 *   route stands for all): seen on at least one route;
 * - one no test can produce (NEVER below, each with why): never required.
 * A documented status that is none of these fails, until it is given a place and a reason.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { problems } from '#core/errors';
import { type Route, routes } from '#functions/routes';
import { loadOperations } from '#lib/openapi/document';
import openapi from '#openapi.json' with { type: 'json' };
import { readAnswered } from '#test/support/route-coverage';

const operations = await loadOperations();
const { seen, asserted } = readAnswered();
afterAll(() => rmSync(process.env.ROUTE_COVERAGE_FILE ?? '', { force: true }));

/** Statuses no test produces, by design. */
const NEVER: Record<number, string> = {
  500: 'the contract says "a bug": no correct answer is one, so no end-to-end test can ask for it (that its body hides the internals: test/unit/errors.test.ts)',
  429: "throttling: API Gateway's own, or DynamoDB's ProvisionedThroughputExceeded, which DynamoDB Local never answers (the mapping to 429: test/unit/errors.test.ts)",
};

/**
 * Statuses answered by code every route of its kind runs the same way, before or around its
 * handler: one route that gets it stands for all (a status here that no route gets fails).
 */
const SHARED: Record<number, string> = {
  400: 'request validation (functions/core/http/validation.ts) against the schemas each operation declares: the schemas agree with openapi.json (test/contract/schemas.test.ts), and the property test sends invalid requests of every kind (test/contract/service.test.ts)',
  409: 'on a write route that declares no conflict of its own: a request with the Idempotency-Key of one still running (functions/core/http/idempotency.ts; test/api/idempotency.test.ts)',
  413: 'the request guard on the size of a body (functions/core/http/request-guards.ts), the same for every route; on AWS, API Gateway also answers it itself (test/api/errors.test.ts)',
  415: 'the media type of a JSON body, checked by the same guard on every POST and PUT (test/api/errors.test.ts)',
  422: 'an Idempotency-Key reused with another request: the one wrapper of every write route (functions/core/http/write-endpoint.ts; each write route is wrapped: test/unit/write-routes.test.ts; test/api/idempotency.test.ts)',
  503: "on a route that reads no table (the reference pages): API Gateway's or the runtime's own (a cold start, a time-out), the same for every route (test/api/unavailable.test.ts)",
};

type Paths = Record<string, Record<string, { responses?: Record<string, unknown> }>>;
const documentedOf = (route: Route) =>
  Object.keys((openapi.paths as unknown as Paths)[route.path]?.[route.method.toLowerCase()]?.responses ?? {}).map(Number);

/** The statuses a route must itself have been answered with. */
function requiredOf(route: Route): Set<number> {
  const operation = operations.get(route.name)!;
  const required = new Set([
    operation.success.status,
    ...('created' in operation.success && operation.success.created ? [201] : []),
    // An upload's completion while a large file is verified.
    ...('accepted' in operation.success && operation.success.accepted ? [202] : []),
    // A content route's 302 to a file in the bucket.
    ...('redirect' in operation.success ? [302] : []),
    ...Object.keys(operation.errors ?? {}).map((kind) => problems[kind as keyof typeof problems].status),
  ]);
  if (!route.public) required.add(401);
  if (route.dynamodb.length > 0) required.add(503);
  return required;
}

const key = (route: Route) => `${route.method} ${route.path}`;
/** The statuses some test asserted the route answered with. */
const assertedOn = (route: Route) => asserted.get(key(route)) ?? new Set<number>();
/** For a failure's message: statuses the route answered that no test asserted (tolerated, retried). */
const onlyReceived = (route: Route) => [...(seen.get(key(route)) ?? [])].filter((status) => !assertedOn(route).has(status));

describe('end-to-end coverage of the route table', () => {
  it.each(routes.map((route) => [key(route), route] as const))('%s is answered with every status it documents', (name, route) => {
    const documented = documentedOf(route);
    expect(documented.length, `${name}: not in openapi.json`).toBeGreaterThan(0);
    const required = requiredOf(route);
    // Every documented status has its place: the route's own, shared, or never produced.
    expect(
      documented.filter((status) => !required.has(status) && !(status in SHARED) && !(status in NEVER)),
      `${name}: documented statuses that are neither the route's own, nor shared, nor explained in NEVER`,
    ).toEqual([]);
    // What a route declares of its own, and what it answers for itself, no other route can stand for.
    expect(
      [...required].filter((status) => !assertedOn(route).has(status)),
      `${name}: statuses no end-to-end test asserted (received but not asserted: ${onlyReceived(route).join(', ') || 'none'})`,
    ).toEqual([]);
  });

  it.each(Object.entries(SHARED).map(([status, why]) => [Number(status), why] as const))(
    'shared status %i is got on at least one of the routes that document it',
    (status) => {
      // (Statuses are recorded, not their problem types: a route's own 409 counts for the shared one too.)
      const documenting = routes.filter((route) => documentedOf(route).includes(status));
      expect(
        documenting.filter((route) => assertedOn(route).has(status)).map(key),
        `${status}: documented by ${documenting.map(key).join(', ')}, asserted on none of them`,
      ).not.toEqual([]);
    },
  );
});
