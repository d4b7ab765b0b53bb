/**
 * `sam local invoke` on this machine: the synthesized template (synthesized again when older than
 * the code), one function's bundle run in a process of its own (./runtime.mjs) with the
 * environment SAM would give it (./template.ts), against the local DynamoDB of `npm start` or one
 * of its own on the same data folder.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { defaultBucketName } from '#lib/bucket';
import { projectRoot } from '#lib/bundling';
import { ensureTable, startDynamoDbLocal } from '../dynamodb-local';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, loadLocalIssuer } from '../jwt';
import { type Credentials, functionCredentials, startLocalS3 } from '../s3';
import { lockDataDir, runningEndpoints } from '../service';
import { readOrCreateOnce } from '../write-once';
import { constructName, type EnvVars, findFunction, readTemplate, type SamTemplate, samEnvironment, TemplateError } from './template';

/** `cdk.out/<stackName>.template.json` of an environment of cdk.json. */
export function templatePath(environment: string, outdir = join(projectRoot, 'cdk.out')): string {
  const context = (
    JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as { context: { environments: Record<string, { stackName: string }> } }
  ).context;
  const entry = context.environments[environment];
  if (!entry)
    throw new TemplateError(`Unknown environment ${JSON.stringify(environment)}: one of ${Object.keys(context.environments).join(', ')}.`);
  return join(outdir, `${entry.stackName}.template.json`);
}

/** What the template is made from: a newer file here makes it stale. */
const SOURCES = ['functions', 'lib/stack', 'lib/bundling.ts', 'lib/function-settings.ts', 'lib/table.ts', 'cdk.json', 'package-lock.json'];

function newestSource(): number {
  let newest = 0;
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const source of SOURCES) visit(join(projectRoot, source));
  return newest;
}

/** Missing, older than the code, or not made for sam local (no `-c samLocal=true`). */
export function isStale(file: string): boolean {
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) return true;
  if (!readFileSync(file, 'utf8').includes('"SamLocalOnly"')) return true;
  return stat.mtimeMs < newestSource();
}

/** `npx cdk synth -c env=<environment> -c samLocal=true`, offline. */
export async function synthesize(environment: string, outdir = join(projectRoot, 'cdk.out')): Promise<void> {
  await promisify(execFile)(
    join(projectRoot, 'node_modules', '.bin', 'cdk'),
    ['synth', '-c', `env=${environment}`, '-c', 'samLocal=true', '--no-notices', '--quiet', '--output', outdir],
    { cwd: projectRoot, env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' }, maxBuffer: 16 * 1024 * 1024 },
  );
}

/** The template, synthesized first when stale. */
export async function currentTemplate(environment: string, log: (line: string) => void): Promise<SamTemplate> {
  const file = templatePath(environment);
  if (isStale(file)) {
    log(`Synthesizing ${file} (npx cdk synth -c env=${environment} -c samLocal=true): it is missing or older than the code...`);
    await synthesize(environment);
  }
  return readTemplate(file);
}

/** What `npm run invoke` gives the functions here: `npm start`'s database, bucket and secrets. */
export interface LocalDefaults {
  /** Values for the functions' declared variables. */
  defaults: Record<string, string>;
  /** The key a function signs its S3 requests with on the emulator (held to its route's grants). */
  credentialsOf(logicalId: string): Promise<Credentials>;
  stop(): Promise<void>;
}

/**
 * The local database, S3 emulator and secrets `npm start` uses on `dataDir`: its running ones,
 * or, with no `npm start` on that folder, a DynamoDB Local and an emulator of our own on the same
 * files, for this run.
 */
export async function localDefaults(dataDir: string, tableName: string): Promise<LocalDefaults> {
  let endpoints = await runningEndpoints(dataDir);
  let stop = async () => {};
  if (!endpoints) {
    const unlock = await lockDataDir(dataDir);
    try {
      const dynamodb = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });
      const s3 = await startLocalS3({ dataDir: join(dataDir, 's3') }).catch(async (error: unknown) => {
        await dynamodb.stop();
        throw error;
      });
      endpoints = { dynamodb: dynamodb.endpoint, s3: s3.endpoint };
      stop = async () => {
        await Promise.all([dynamodb.stop(), s3.stop()]);
        await unlock();
      };
    } catch (error) {
      await unlock();
      throw error;
    }
  }
  try {
    await ensureTable(endpoints.dynamodb, tableName);
    const pagingKey = (await readOrCreateOnce(join(dataDir, 'paging-secret'), () => `${randomBytes(32).toString('base64url')}\n`)).trim();
    const issuer = await loadLocalIssuer(dataDir);
    return {
      defaults: {
        TABLE_NAME: tableName,
        DYNAMODB_ENDPOINT: endpoints.dynamodb,
        BUCKET_NAME: defaultBucketName,
        S3_ENDPOINT: endpoints.s3,
        PAGING_TOKEN_SECRET: pagingKey,
        JWT_ISSUER: LOCAL_ISSUER,
        JWT_AUDIENCE: LOCAL_AUDIENCE,
        JWT_JWKS: JSON.stringify(issuer.jwks),
      },
      credentialsOf: (logicalId) => functionCredentials(join(dataDir, 's3'), constructName(logicalId)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface InvokeResult {
  /** The handler's result (or Lambda's error object) as SAM prints it: one JSON line. */
  stdout: string;
}

/** Runs function `name` (logical id, construct id, or `METHOD /path`) once with `eventText`. */
export async function invokeFunction(opts: {
  template: SamTemplate;
  name: string;
  eventText: string;
  envVars?: EnvVars;
  defaults?: Record<string, string>;
  /**
   * The function's key on the local S3 emulator, used instead of the shell's credentials (which
   * SAM would pass): the emulator knows only its own keys, and holds this one to the function's
   * grants, as its role would be on AWS. DynamoDB Local ignores credentials.
   */
  credentials?: Credentials;
  shell?: NodeJS.ProcessEnv;
  /** The function's own output and START/END/REPORT; default: this process's stderr. */
  onLog?: (text: string) => void;
}): Promise<InvokeResult> {
  const fn = findFunction(opts.template, opts.name);
  try {
    JSON.parse(opts.eventText);
  } catch (error) {
    throw new TemplateError(`The event is not JSON: ${(error as Error).message}`);
  }
  const environment = samEnvironment(fn, opts.envVars, { shell: opts.shell ?? {}, defaults: opts.defaults ?? {} });
  if (opts.credentials) {
    environment.AWS_ACCESS_KEY_ID = opts.credentials.accessKeyId;
    environment.AWS_SECRET_ACCESS_KEY = opts.credentials.secretAccessKey;
    // Temporary, as a Lambda role's are: the emulator refuses a function's key without its token.
    if (opts.credentials.sessionToken) environment.AWS_SESSION_TOKEN = opts.credentials.sessionToken;
    else delete environment.AWS_SESSION_TOKEN;
    // The SDK reads the expiry from here (its env provider): presigned URLs are bounded by it.
    if (opts.credentials.expiration) environment.AWS_CREDENTIAL_EXPIRATION = opts.credentials.expiration.toISOString();
    else delete environment.AWS_CREDENTIAL_EXPIRATION;
  }
  const child = spawn(
    process.execPath,
    [
      join(projectRoot, 'lib', 'local', 'sam', 'runtime.mjs'),
      fn.codeDir,
      fn.handler,
      fn.logicalId,
      String(fn.timeoutSeconds),
      String(fn.memorySize),
    ],
    {
      cwd: fn.codeDir,
      env: {
        ...environment,
        LAMBDA_TASK_ROOT: fn.codeDir,
        AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
        AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${fn.logicalId}`,
        TZ: 'UTC',
        // Lambda runs Node 22; the SDK's notice that this machine's Node 20 will be too old in 2027 is noise here.
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    },
  );
  const onLog = opts.onLog ?? ((text: string) => process.stderr.write(text));
  let stdout = '';
  (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stdout.setEncoding('utf8').on('data', onLog);
  child.stderr.setEncoding('utf8').on('data', onLog);
  child.stdin.end(opts.eventText);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`The function's process exited with ${code}`);
  return { stdout: stdout.trim() };
}
