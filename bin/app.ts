/** The CDK app (`npx cdk synth -c env=<name>`, `npx cdk deploy -c env=<name>`): see lib/stack/app.ts. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WEB_BUILD_DIR } from '#lib/local/web-app';
import { buildApp } from '#lib/stack/app';

// The web app's build goes out with the stack when there is one (`npm start` makes it, or
// docs/operations.md: Deploying); without it the stack deploys the hosting and config.json only.
const webBuilt = existsSync(join(WEB_BUILD_DIR, 'index.html'));
if (!webBuilt) console.error('documents-service: no web app build in web/dist: deploying without the app (docs/operations.md: Deploying).');

let app: ReturnType<typeof buildApp>['app'];
try {
  app = buildApp({}, webBuilt ? { webBuildDir: WEB_BUILD_DIR } : {}).app;
} catch (error) {
  // A configuration mistake (no environment chosen, an unknown one, a bad entry): say what, without a stack trace.
  console.error(`documents-service: ${(error as Error).message}`);
  process.exit(1);
}
app.synth();
