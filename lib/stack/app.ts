/**
 * Builds the CDK app: one DocumentsStack for the environment chosen with `-c env=<name>` from
 * the committed entries in cdk.json (./config.ts), checked by cdk-nag's AWS Solutions rules, so
 * an unacknowledged finding fails the synth. bin/app.ts runs it; the infra tests build it with
 * their own context.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { projectRoot } from '#lib/bundling';
import { readConfig } from './config';
import { DocumentsStack } from './documents-stack';
import { prepareForSamLocal, samLocalRequested } from './sam-local';

/** The context in cdk.json (feature flags and the environments), which the CLI passes to bin/app.ts. */
export function projectContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

/** `webBuildDir`: the web app's build to deploy (bin/app.ts makes it); the tests leave it out. */
export function buildApp(props: AppProps = {}, { webBuildDir }: { webBuildDir?: string } = {}): { app: App; stack: DocumentsStack } {
  const app = new App(props);
  const config = readConfig((key) => app.node.tryGetContext(key));
  const stack = new DocumentsStack(app, config.stackName, {
    config,
    ...(webBuildDir ? { webBuildDir } : {}),
    // The environment's account and region when it names them (a deploy with credentials for
    // another account then fails); otherwise those of the deploying credentials.
    env: { account: config.account ?? process.env.CDK_DEFAULT_ACCOUNT, region: config.region ?? process.env.CDK_DEFAULT_REGION },
    description: `Online documents service (${config.environment}): HTTP API, one Lambda function per route, one DynamoDB table`,
  });
  // The template for `sam local` only (./sam-local.ts); never deployable.
  if (samLocalRequested(app.node.tryGetContext('samLocal'))) prepareForSamLocal(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
