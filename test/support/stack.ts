/**
 * The stack as the infra tests read it: the app for the test environment (`-c env=test`) with
 * its functions not bundled (the template is what they examine), a setting changed where a test
 * looks at it.
 */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp, projectContext } from '#lib/stack/app';

/** The environment the tests deploy; a test changes the settings it examines. */
export const testEnvironment = {
  stackName: 'DocumentsService',
  corsOrigins: [],
  throttleRate: 100,
  throttleBurst: 200,
  logRetentionDays: 30,
  destroyable: false,
};

/** The app's context for the test environment with `settings` changed (and other context, if given). */
export const testContext = (settings: Record<string, unknown> = {}, context: Record<string, unknown> = {}) => ({
  ...projectContext(),
  'aws:cdk:bundling-stacks': [],
  env: 'test',
  environments: { test: { ...testEnvironment, ...settings } },
  ...context,
});

/** Templates synthesized so far in this worker: the template tests share modules (vitest.config.ts: TEMPLATES), and a synth costs seconds. */
const synthesized = new Map<string, Template>();

/**
 * The template for the test environment with `settings` changed (and other context, if given),
 * nested stacks merged in. Synthesized once per worker for the same arguments: a Template is only read.
 */
export function testTemplate(settings: Record<string, unknown> = {}, context: Record<string, unknown> = {}): Template {
  const key = JSON.stringify([settings, context]);
  let template = synthesized.get(key);
  if (!template) {
    template = flatTemplate(buildApp({ context: testContext(settings, context) }).stack);
    synthesized.set(key, template);
  }
  return template;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface TemplateJson {
  Resources: Record<string, { Type: string; Properties?: Record<string, Json>; DependsOn?: string | string[] }>;
  Outputs?: Record<string, { Value: Json }>;
}

/** `json` with every `{ Ref: name }` of `values` replaced by its value. */
const substitute = (json: Json, values: Record<string, Json>): Json => {
  if (Array.isArray(json)) return json.map((item) => substitute(item, values));
  if (json === null || typeof json !== 'object') return json;
  const keys = Object.keys(json);
  if (keys.length === 1 && keys[0] === 'Ref' && typeof json.Ref === 'string' && Object.hasOwn(values, json.Ref)) return values[json.Ref]!;
  return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, substitute(value, values)]));
};

/**
 * `stack`'s template as if its nested stacks (the route groups, lib/stack/route-groups.ts) were
 * part of it: their resources merged in, each parameter replaced by what the parent passes (so a
 * route function's TABLE_NAME is `{ Ref: <the table> }` as in the parent), and their stack
 * resources dropped. The tests of one function's settings read this; test/infra/stack-size.test.ts
 * reads each template as it is.
 */
export function flatTemplate(stack: Stack): Template {
  const parent = Template.fromStack(stack).toJSON() as TemplateJson;
  for (const nested of stack.node.children.filter((child): child is NestedStack => NestedStack.isNestedStack(child))) {
    const resourceId = stack.getLogicalId(nested.nestedStackResource!);
    const passed = (parent.Resources[resourceId]!.Properties?.Parameters ?? {}) as Record<string, Json>;
    const inner = substitute(Template.fromStack(nested).toJSON() as Json, passed) as unknown as TemplateJson;
    for (const [id, resource] of Object.entries(inner.Resources)) {
      if (Object.hasOwn(parent.Resources, id)) throw new Error(`${id} is in ${stack.stackName} and in its nested ${nested.node.id}`);
      parent.Resources[id] = resource;
    }
    delete parent.Resources[resourceId];
    // A parent resource that waits for the nested stack (the stage's route settings wait for the
    // routes they name) waits for its resources once merged: the order is the same.
    const inners = Object.keys(inner.Resources);
    for (const resource of Object.values(parent.Resources)) {
      if (resource.DependsOn === undefined) continue;
      const on = [resource.DependsOn].flat().flatMap((id) => (id === resourceId ? inners : [id]));
      resource.DependsOn = on;
    }
    if (JSON.stringify(parent).includes(`"${resourceId}"`))
      throw new Error(`${stack.stackName} refers to its nested ${nested.node.id}: merge its outputs too`);
  }
  return Template.fromJSON(parent as unknown as Record<string, unknown>);
}
