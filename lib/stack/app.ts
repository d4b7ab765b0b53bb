/**
 * Builds the CDK app: one DocumentsStack configured from context (./config.ts), checked by
 * cdk-nag's AWS Solutions rules, so an unacknowledged finding fails the synth. bin/app.ts runs
 * it; the infra tests build it with their own context.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { projectRoot } from '#lib/bundling';
import { readConfig } from './config';
import { DocumentsStack } from './documents-stack';

export const defaultStackName = 'DocumentsService';

/** The context in cdk.json (feature flags and defaults), which the CLI passes to bin/app.ts. */
export function projectContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

export function buildApp(props: AppProps = {}): { app: App; stack: DocumentsStack } {
  const app = new App(props);
  const stack = new DocumentsStack(app, (app.node.tryGetContext('stackName') as string | undefined) ?? defaultStackName, {
    config: readConfig(app.node),
    // Account and region come from the deploying credentials (environment-agnostic otherwise).
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'Online documents service: HTTP API, one Lambda function per route, one DynamoDB table',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
