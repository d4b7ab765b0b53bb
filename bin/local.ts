/**
 * `npm start`: the service on this machine, with its data under DATA_DIR (default .data).
 * PORT (default 3000), S3_PORT (the S3 emulator's; default PORT + 1, or a free port when PORT
 * is 0), TABLE_NAME, and JWT_ISSUER + JWT_AUDIENCE for an external issuer.
 */
import { resolve } from 'node:path';
import { DynamoDbLocalError } from '#lib/local/dynamodb-local';
import { StartupError, startLocalService, stopOnSignals } from '#lib/local/service';
import { ensureWebBuild } from '#lib/local/web-app';
import { defaultTableName } from '#lib/table';

// The SDK's notice that it will need Node 22 in 2027 is noise for local runs.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(process.env.DATA_DIR || '.data');
const tableName = process.env.TABLE_NAME || defaultTableName;
const s3Port = process.env.S3_PORT ? Number(process.env.S3_PORT) : port === 0 ? 0 : port + 1;

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  fail(`PORT must be a port number (0-65535), not "${process.env.PORT}".`);
}
if (!Number.isInteger(s3Port) || s3Port < 0 || s3Port > 65535) {
  fail(`S3_PORT must be a port number (0-65535), not "${process.env.S3_PORT}".`);
}

try {
  // The app at /app/ is built from web/ when its build is missing or stale (lib/local/web-app.ts).
  await ensureWebBuild((line) => console.log(line));
  const service = await startLocalService({
    port,
    s3Port,
    dataDir,
    tableName,
    issuer: 'environment',
    printEvents: process.env.PRINT_EVENTS === 'true',
    printMetrics: process.env.PRINT_METRICS === 'true',
  });
  const external = Boolean(process.env.JWT_ISSUER && process.env.JWT_AUDIENCE);
  console.log(`Documents service listening on ${service.url}`);
  console.log(`  web app: ${service.url}/app/`);
  console.log(`  data: ${dataDir} (table "${tableName}", DynamoDB Local at ${service.dynamodbEndpoint})`);
  console.log(`  files: bucket "${service.s3.bucket}" in the S3 emulator at ${service.s3.endpoint} (path-style; docs/local-s3.md)`);
  if (external) {
    console.log(`  tokens: from ${process.env.JWT_ISSUER} (audience ${process.env.JWT_AUDIENCE})`);
  } else {
    console.log('  get a token:  TOKEN=$(npm run --silent token -- alice)');
    console.log(`  then:         curl -H "Authorization: Bearer $TOKEN" ${service.url}/`);
  }
  console.log('  Ctrl-C stops it.');

  stopOnSignals(service);
} catch (error) {
  // Expected problems get one clear paragraph; anything else keeps its stack for debugging.
  if (error instanceof StartupError || error instanceof DynamoDbLocalError) fail(error.message);
  console.error('The documents service could not start:', error);
  process.exit(1);
}

function fail(message: string): never {
  console.error(`The documents service could not start. ${message}`);
  process.exit(1);
}
