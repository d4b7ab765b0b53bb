/**
 * Every stack of the app within CloudFormation's quotas, with room to grow: at most 450
 * resources (the quota is 500) and 200 parameters in each template, the parent's and every
 * nested one's (the route groups, lib/stack/route-groups.ts), for each committed environment; and
 * still so with 100 more routes, spread over the groups there are and new ones, as features add
 * them. Synthesizing runs cdk-nag; bundling is skipped.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Route, routes, signInRoutes } from '#functions/routes';
import { buildApp, projectContext } from '#lib/stack/app';
import { routeGroupOf } from '#lib/stack/route-groups';

/** Where a stack must stay: 50 under CloudFormation's 500, so a feature's first resources never hit the wall. */
const MAX_RESOURCES_PER_STACK = 450;
const MAX_PARAMETERS = 200;

interface Counted {
  file: string;
  resources: number;
  parameters: number;
}

/** Every template the app synthesizes for `env` (top-level and nested), with its counts. */
function templatesOf(env: string, context: Record<string, unknown> = {}): Counted[] {
  const { app } = buildApp({ context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env, ...context } });
  const assembly = app.synth();
  return readdirSync(assembly.directory)
    .filter((file) => file.endsWith('.template.json'))
    .map((file) => {
      const template = JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')) as {
        Resources?: Record<string, unknown>;
        Parameters?: Record<string, unknown>;
      };
      return { file, resources: Object.keys(template.Resources ?? {}).length, parameters: Object.keys(template.Parameters ?? {}).length };
    });
}

const expectWithinQuotas = (templates: Counted[]) => {
  expect(templates.length).toBeGreaterThan(1); // the parent and its nested stacks
  for (const { file, resources, parameters } of templates) {
    expect(resources, file).toBeLessThanOrEqual(MAX_RESOURCES_PER_STACK);
    expect(parameters, file).toBeLessThanOrEqual(MAX_PARAMETERS);
  }
};

// Synthesized while the file loads (seconds each, with cdk-nag): a test's timeout is for a hang.
const environments = Object.keys(projectContext().environments as Record<string, unknown>).map((env) => ({
  env,
  templates: templatesOf(env),
}));

describe('stack size', () => {
  for (const { env, templates } of environments) {
    it(`${env}: every stack has at most ${MAX_RESOURCES_PER_STACK} resources`, () => {
      console.info(`${env}: ${templates.map(({ file, resources }) => `${file} ${resources}`).join(', ')}`);
      expectWithinQuotas(templates);
      // Every resource of a route is in its group's stack: the parent grows by one stack per group.
      const parent = templates.find(({ file }) => !file.includes('.nested.'))!;
      // The sign-in routes (/auth/*) are a group of their own: the stacks here make their own user pool.
      const groups = new Set([...routes, ...signInRoutes].map((route) => routeGroupOf(route.path)));
      expect(templates).toHaveLength(1 + groups.size);
      // What is not a route's stays in the parent: the table, the API, the buckets, the search
      // cluster, the worker, the alarms and the web app's distribution (~100 in all).
      expect(parent.resources).toBeLessThan(150);
    });
  }

  it('still so with 100 more routes, 20 each on the largest group, another existing one and three new resources', () => {
    const planted: Route[] = ['/{id}/planted', '/document/{id}/planted', '/share', '/search', '/app'].flatMap((base) =>
      Array.from({ length: 20 }, (_, i) => ({
        name: `Planted${routeGroupOf(base)}${base.length}N${i}`,
        method: 'GET' as const,
        path: `${base}/n${i}`,
        handler: 'documents/get-document',
        dynamodb: ['dynamodb:BatchGetItem' as const],
      })),
    );
    (routes as Route[]).push(...planted);
    try {
      const templates = templatesOf('prod');
      console.info(`prod + 100 routes: ${templates.map(({ file, resources }) => `${file} ${resources}`).join(', ')}`);
      expectWithinQuotas(templates);
    } finally {
      (routes as Route[]).splice(routes.length - planted.length, planted.length);
    }
  }, 180_000);
});

describe('route groups', () => {
  it('put a route in the stack of its path’s first literal segment, the repository-id paths together', () => {
    expect(routeGroupOf('/')).toBe('Repositories');
    expect(routeGroupOf('/{id}/members/{userId}')).toBe('Repositories');
    expect(routeGroupOf('/document/{id}/revisions')).toBe('Document');
    expect(routeGroupOf('/openapi.json')).toBe('OpenapiJson');
    expect(routeGroupOf('/share-links/{token}')).toBe('ShareLinks');
  });
});
