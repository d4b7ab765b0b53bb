/** The CDK app (`npx cdk synth -c env=<name>`, `npx cdk deploy -c env=<name>`): see lib/stack/app.ts. */
import { buildApp } from '#lib/stack/app';

let app: ReturnType<typeof buildApp>['app'];
try {
  app = buildApp().app;
} catch (error) {
  // A configuration mistake (no environment chosen, an unknown one, a bad entry): say what, without a stack trace.
  console.error(`documents-service: ${(error as Error).message}`);
  process.exit(1);
}
app.synth();
