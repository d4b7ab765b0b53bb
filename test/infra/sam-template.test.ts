/**
 * The template as SAM CLI reads it (lib/local/sam/template.ts): the deployed one never gives a
 * function AWS_SAM_LOCAL (the switch of functions/core/sam-local-auth.ts) nor the local-only
 * variables; the `-c samLocal=true` one declares those, cannot be deployed, and is complete for
 * `sam local`: every function has its code folder and handler, every route an integration with
 * one function, and sam/env.json gives every variable that differs locally. Bundling is skipped
 * (test/infra/synth.test.ts checks the bundles in those folders). Two synths of ~10-17 s: the slow tier.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFunctions, fallbackRoute, finaliserFunction, routes, signInRoutes, sweeperFunction, workerFunction } from '#functions/routes';
import { projectRoot } from '#lib/bundling';
import { type EnvVars, readTemplate, SAM_LOCAL_VARIABLES, type SamTemplate, samEnvironment } from '#lib/local/sam/template';
import { buildApp, projectContext } from '#lib/stack/app';
import { flatTemplate } from '#test/support/stack';
import { useTempDir } from '#test/support/temp-dir';

const scratch = useTempDir('sam-template-');

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, unknown> };

function synth(env: string, samLocal: boolean): { json: { Resources: Record<string, Resource>; Rules?: unknown }; sam: SamTemplate } {
  const context: Record<string, unknown> = {
    ...projectContext(),
    'aws:cdk:bundling-stacks': [],
    'aws:cdk:enable-asset-metadata': true,
    env,
    ...(samLocal ? { samLocal: 'true' } : {}),
  };
  const json = flatTemplate(buildApp({ context }).stack).toJSON() as { Resources: Record<string, Resource> };
  const file = join(scratch, `${env}-${samLocal}.template.json`);
  writeFileSync(file, JSON.stringify(json));
  return { json, sam: readTemplate(file) };
}

// One environment: what a function's environment holds does not depend on the entry's settings (each synth is ~10 s).
const deployed = [{ env: 'dev', ...synth('dev', false) }];
const local = synth('dev', true);
const envJson = JSON.parse(readFileSync(join(projectRoot, 'sam', 'env.json'), 'utf8')) as EnvVars;
/** The service's functions; not CDK's own (a destroyable environment's bucket-emptying function, lib/stack/file-bucket.ts). */
const functionsOf = (json: { Resources: Record<string, Resource> }) =>
  Object.entries(json.Resources).filter(
    ([id, r]) =>
      r.Type === 'AWS::Lambda::Function' && !id.startsWith('CustomS3AutoDeleteObjects') && !id.startsWith('CustomCDKBucketDeployment'),
  );

describe('the deployed template', () => {
  it('gives no function AWS_SAM_LOCAL, nor any variable that exists only locally', () => {
    for (const { env, json } of deployed) {
      const fns = functionsOf(json);
      // And the web app's sign-in routes: both environments make their own user pool.
      expect(fns.length, env).toBe(allFunctions().length + signInRoutes.length);
      for (const [id, fn] of fns) {
        const names = Object.keys(fn.Properties.Environment?.Variables ?? {});
        expect(names, `${env} ${id}`).not.toContain('AWS_SAM_LOCAL');
        for (const name of SAM_LOCAL_VARIABLES) expect(names, `${env} ${id}`).not.toContain(name);
      }
      expect(json).not.toHaveProperty('Rules.SamLocalOnly');
    }
  });

  it('sets AWS_SAM_LOCAL nowhere else either (no other resource, output or parameter)', () => {
    for (const { env, json } of deployed) expect(JSON.stringify(json), env).not.toContain('AWS_SAM_LOCAL');
  });
});

describe('the sam local template (-c samLocal=true)', () => {
  it('declares the local-only variables, empty, on every function, and still not AWS_SAM_LOCAL (SAM sets it)', () => {
    for (const [id, fn] of functionsOf(local.json)) {
      const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
      for (const name of SAM_LOCAL_VARIABLES) expect(variables[name], `${id} ${name}`).toBe('');
      expect(variables, id).not.toHaveProperty('AWS_SAM_LOCAL');
    }
  });

  it('cannot be deployed: a CloudFormation rule fails every create and update', () => {
    expect(local.json).toHaveProperty('Rules.SamLocalOnly', {
      Assertions: [{ Assert: { 'Fn::Equals': ['sam-local', 'deployed'] }, AssertDescription: expect.stringContaining('samLocal') }],
    });
  });

  it('gives every function its code folder (aws:asset:path) and an index.handler on a Node.js runtime', () => {
    // readTemplate leaves out a function without aws:asset:path.
    expect(local.sam.functions.size).toBe(allFunctions().length);
    for (const fn of local.sam.functions.values()) {
      expect(fn.codeDir, fn.logicalId).not.toBe('');
      expect(fn.handler, fn.logicalId).toBe('index.handler');
      expect(fn.runtime, fn.logicalId).toMatch(/^nodejs\d+\.x$/);
    }
    const names = [
      ...routes.map((r) => r.name),
      fallbackRoute.name,
      workerFunction.name,
      `Worker${sweeperFunction.name}`,
      finaliserFunction.name,
    ];
    for (const name of names)
      expect(
        [...local.sam.functions.keys()].filter((id) => id.startsWith(`${name}Function`)),
        name,
      ).toHaveLength(1);
  });

  it('binds every route of the route table to its own function, with the JWT authorizer unless public, and $default to the fallback', () => {
    expect(local.sam.routes).toHaveLength(routes.length + 1);
    for (const route of routes) {
      const bound = local.sam.routes.filter((r) => r.routeKey === `${route.method} ${route.path}`);
      expect(bound, route.name).toHaveLength(1);
      expect(bound[0]!.functionLogicalId, route.name).toMatch(new RegExp(`^${route.name}Function[0-9A-F]{8}$`));
      expect(Boolean(bound[0]!.authorizer), route.name).toBe(!route.public);
    }
    const fallback = local.sam.routes.find((r) => r.routeKey === '$default');
    expect(fallback?.functionLogicalId).toMatch(/^FallbackFunction/);
    expect(fallback?.authorizer).toBeUndefined();
  });

  it('is complete with sam/env.json: every variable a function reads from the deployment, or only locally, gets a value', () => {
    // Left empty on purpose: PAGING_TOKEN_SECRET is used instead of the secret's ARN, and JWT_JWKS_URL instead of JWT_JWKS.
    // The search cluster's ARNs too: nothing serves the Data API under sam local (search answers 5xx there).
    // URL_SIGNING_ROLE_ARN: under sam local a function signs with the credentials it is invoked with.
    const mayStayEmpty = new Set([
      'PAGING_TOKEN_SECRET_ARN',
      'JWT_JWKS',
      'SEARCH_CLUSTER_ARN',
      'SEARCH_SECRET_ARN',
      'URL_SIGNING_ROLE_ARN',
    ]);
    for (const fn of local.sam.functions.values()) {
      const environment = samEnvironment(fn, envJson);
      for (const [name, declared] of Object.entries(fn.variables)) {
        const differsLocally = typeof declared !== 'string' || declared === '';
        if (!differsLocally || mayStayEmpty.has(name)) continue;
        expect(environment[name], `${fn.logicalId} ${name}`).not.toBe('');
      }
      expect(environment.AWS_SAM_LOCAL).toBe('true');
    }
    // And names only what a function declares: SAM would ignore anything else.
    const declared = new Set([...local.sam.functions.values()].flatMap((fn) => Object.keys(fn.variables)));
    for (const [section, values] of Object.entries(envJson)) {
      if (section !== 'Parameters') expect(local.sam.functions.has(section), section).toBe(true);
      for (const name of Object.keys(values)) expect(declared.has(name), `${section}.${name}`).toBe(true);
    }
  });
});
