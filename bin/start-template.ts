/**
 * `npm run start:template [-- --env dev | --template <file>]`: the service as `sam local start-api`
 * serves it (lib/local/sam/serve.ts), from the template of `npx cdk synth -c env=<env> -c samLocal=true`
 * (synthesized first when missing or older than the code) and its bundles, with the JWT authorizer
 * applied; data, port and tokens as `npm start` (PORT, DATA_DIR, TABLE_NAME, JWT_ISSUER + JWT_AUDIENCE).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDbLocalError } from '#lib/local/dynamodb-local';
import { currentTemplate } from '#lib/local/sam/invoke';
import { templateRouting } from '#lib/local/sam/serve';
import { readTemplate, TemplateError } from '#lib/local/sam/template';
import { StartupError, startLocalService, stopOnSignals } from '#lib/local/service';
import { defaultTableName } from '#lib/table';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

try {
  const { values } = parseArgs({ options: { env: { type: 'string', default: 'dev' }, template: { type: 'string', short: 't' } } });
  const template = values.template ? readTemplate(values.template) : await currentTemplate(values.env, (line) => console.log(line));
  const routing = templateRouting(template);
  const port = Number(process.env.PORT ?? 3000);
  const dataDir = resolve(process.env.DATA_DIR || '.data');
  const tableName = process.env.TABLE_NAME || defaultTableName;
  const service = await startLocalService({ port, dataDir, tableName, issuer: 'environment', routing });
  console.log(`Documents service (from the template) listening on ${service.url}`);
  console.log(`  ${routing.summary}`);
  console.log(`  data: ${dataDir} (table "${tableName}", DynamoDB Local at ${service.dynamodbEndpoint})`);
  console.log('  Ctrl-C stops it.');
  stopOnSignals(service);
} catch (error) {
  if (error instanceof TemplateError || error instanceof StartupError || error instanceof DynamoDbLocalError) {
    console.error(`The documents service could not start from the template. ${error.message}`);
    process.exit(1);
  }
  throw error;
}
