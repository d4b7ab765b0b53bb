/**
 * `npm run invoke -- <FunctionLogicalId | "METHOD /path"> --event <file.json> [--env-vars env.json] [--env dev | --template <file>]`:
 * runs one function as `sam local invoke -t cdk.out/<Stack>.template.json` does (lib/local/sam/):
 * the template of `-c env=<env> -c samLocal=true` (synthesized first when missing or older than
 * the code; or the template given, as it is), the function's bundle in a process of its own with the environment SAM would give it
 * and env.json applied as SAM applies it, against the DynamoDB Local and S3 emulator of `npm start` on DATA_DIR
 * (default .data) or its own there. The function's logs go to stderr, its result to stdout.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDbLocalError } from '#lib/local/dynamodb-local';
import { currentTemplate, invokeFunction, localDefaults } from '#lib/local/sam/invoke';
import { type EnvVars, findFunction, readEnvVars, readTemplate, TemplateError } from '#lib/local/sam/template';
import { StartupError } from '#lib/local/service';
import { defaultTableName } from '#lib/table';

const USAGE =
  'Usage: npm run invoke -- <FunctionLogicalId | "METHOD /path"> --event <file.json> [--env-vars env.json] [--env dev | --template <file>]';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
let stop = async () => {};
try {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      event: { type: 'string', short: 'e' },
      'env-vars': { type: 'string', short: 'n' },
      env: { type: 'string', default: 'dev' },
      template: { type: 'string', short: 't' },
    },
  });
  if (positionals.length !== 1 || !values.event) throw new TemplateError(USAGE);
  let eventText: string;
  try {
    eventText = values.event === '-' ? readFileSync(0, 'utf8') : readFileSync(values.event, 'utf8');
  } catch {
    throw new TemplateError(`--event ${values.event}: no such file.`);
  }
  try {
    JSON.parse(eventText);
  } catch (error) {
    throw new TemplateError(`--event ${values.event} is not JSON: ${(error as Error).message}`);
  }
  const envVars: EnvVars = values['env-vars'] ? readEnvVars(values['env-vars']) : {};
  const template = values.template ? readTemplate(values.template) : await currentTemplate(values.env, (line) => console.error(line));
  const fn = findFunction(template, positionals[0]!); // an unknown name is reported before any database starts
  const local = await localDefaults(resolve(process.env.DATA_DIR || '.data'), process.env.TABLE_NAME || defaultTableName);
  stop = local.stop;
  const { stdout } = await invokeFunction({
    template,
    name: positionals[0]!,
    eventText,
    envVars,
    defaults: local.defaults,
    credentials: await local.credentialsOf(fn.logicalId),
    shell: process.env,
  });
  process.stdout.write(`${stdout}\n`);
  await stop();
} catch (error) {
  await stop().catch(() => {});
  if (error instanceof TemplateError || error instanceof StartupError || error instanceof DynamoDbLocalError) {
    console.error(`npm run invoke: ${error.message}`);
    process.exit(2);
  }
  if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`npm run invoke: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  throw error;
}
