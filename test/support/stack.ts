/**
 * The stack as the infra tests read it: the app for the test environment (`-c env=test`) with
 * its functions not bundled (the template is what they examine), a setting changed where a test
 * looks at it.
 */
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

/** The template for the test environment with `settings` changed (and other context, if given). */
export function testTemplate(settings: Record<string, unknown> = {}, context: Record<string, unknown> = {}): Template {
  return Template.fromStack(buildApp({ context: testContext(settings, context) }).stack);
}
