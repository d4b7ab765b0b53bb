/**
 * Who may call each endpoint, as each handler module declares it (`operation.access`), against the
 * table written apart from the code (test/support/who-may.ts). The OpenAPI document, the role
 * matrix's statuses and the docs all derive from the declaration; this is where a wrong one is
 * caught, in the fast tier. The role matrix then checks the running service against the same table.
 */
import { describe, expect, it } from 'vitest';
import { rolesFor } from '#core/auth';
import { routes } from '#functions/routes';
import { loadOperations } from '#lib/openapi/document';
import { WHO_MAY, whoMay } from '#test/support/who-may';

const operations = await loadOperations();

describe('who may call each endpoint', () => {
  it.each(routes.map((route) => [`${route.name} (${route.method} ${route.path})`, route] as const))(
    '%s: its declared access is the table’s',
    (_, route) => {
      const declared = operations.get(route.name)?.access;
      expect(declared, `functions/${route.handler}.ts declares \`access: '${declared}'\`; test/support/who-may.ts says`).toBe(
        whoMay(route),
      );
    },
  );

  it('has no row for an endpoint that does not exist', () => {
    const keys = new Set(routes.map((route) => `${route.method} ${route.path}`));
    expect(Object.keys(WHO_MAY).filter((key) => !keys.has(key))).toEqual([]);
  });

  it('names a route without a row, and what to do', () => {
    expect(() => whoMay({ name: 'Invented', method: 'GET', path: '/invented' })).toThrow(
      /^Invented \(GET \/invented\) has no row in test\/support\/who-may\.ts/,
    );
  });

  it('gives each role what the table’s words mean (core/auth.ts: rolesFor)', () => {
    expect(rolesFor).toEqual({ read: ['owner', 'editor', 'viewer'], write: ['owner', 'editor'], manage: ['owner'] });
  });
});
