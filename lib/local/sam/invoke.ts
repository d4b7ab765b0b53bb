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
import { projectRoot } from '#lib/bundling';
import { ensureTable, startDynamoDbLocal } from '../dynamodb-local';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, loadLocalIssuer } from '../jwt';
import { lockDataDir, runningEndpoint } from '../service';
import { readOrCreateOnce } from '../write-once';
import { type EnvVars, findFunction, readTemplate, type SamTemplate, samEnvironment, TemplateError } from './template';

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

/** The local database and secrets `npm start` uses on `dataDir`, as values for the functions' variables. */
export async function localDefaults(
  dataDir: string,
  tableName: string,
): Promise<{ defaults: Record<string, string>; stop: () => Promise<void> }> {
  let endpoint = await runningEndpoint(dataDir);
  let stop = async () => {};
  if (!endpoint) {
    // No `npm start` on this folder: a DynamoDB Local of our own on the same files, for this run.
    const unlock = await lockDataDir(dataDir);
    try {
      const dynamodb = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });
      endpoint = dynamodb.endpoint;
      stop = async () => {
        await dynamodb.stop();
        await unlock();
      };
    } catch (error) {
      await unlock();
      throw error;
    }
  }
  try {
    await ensureTable(endpoint, tableName);
    const pagingKey = (await readOrCreateOnce(join(dataDir, 'paging-secret'), () => `${randomBytes(32).toString('base64url')}\n`)).trim();
    const issuer = await loadLocalIssuer(dataDir);
    return {
      defaults: {
        TABLE_NAME: tableName,
        DYNAMODB_ENDPOINT: endpoint,
        PAGING_TOKEN_SECRET: pagingKey,
        JWT_ISSUER: LOCAL_ISSUER,
        JWT_AUDIENCE: LOCAL_AUDIENCE,
        JWT_JWKS: JSON.stringify(issuer.jwks),
      },
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
