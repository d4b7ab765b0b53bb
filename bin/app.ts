/** The CDK app (`npx cdk synth`, `npx cdk deploy`): see lib/stack/app.ts. */
import { buildApp } from '#lib/stack/app';

buildApp().app.synth();
