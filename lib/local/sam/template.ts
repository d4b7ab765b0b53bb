/**
 * The synthesized CloudFormation template read the way SAM CLI reads it for `sam local invoke`
 * and `sam local start-api`: each AWS::Lambda::Function with its code (the `aws:asset:path`
 * metadata CDK writes: a folder beside the template holding `index.mjs`), handler, runtime,
 * memory, timeout and environment; each HTTP API route with the function its integration
 * targets and its JWT authorizer; and each function's environment as SAM builds it. A nested
 * stack (AWS::CloudFormation::Stack, its template beside this one at `aws:asset:path`: the
 * route groups of lib/stack/route-groups.ts in a deployable template) is read as part of its
 * parent, each of its parameters being what the parent passes, as SAM CLI reads nested stacks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** Variables a function declares only when synthesized for `sam local` (`-c samLocal=true`, lib/stack/sam-local.ts). */
export const SAM_LOCAL_VARIABLES = [
  'DYNAMODB_ENDPOINT',
  'S3_ENDPOINT',
  'PAGING_TOKEN_SECRET',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'JWT_JWKS',
  'JWT_JWKS_URL',
] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Resource {
  Type: string;
  Properties?: Record<string, Json>;
  Metadata?: Record<string, Json>;
}

export interface TemplateFunction {
  logicalId: string;
  /** The bundle's folder (absolute), from `aws:asset:path`. */
  codeDir: string;
  /** `index.handler`: file `index.*` in codeDir, export `handler`. */
  handler: string;
  runtime: string;
  memorySize: number;
  timeoutSeconds: number;
  /** As written in the template: a string, or an intrinsic function SAM cannot resolve. */
  variables: Record<string, Json>;
}

export interface TemplateAuthorizer {
  logicalId: string;
  /** A string when the template gives one; undefined when it is an intrinsic (e.g. the Cognito pool's URL). */
  issuer: string | undefined;
  audience: string[] | undefined;
}

export interface TemplateRoute {
  /** `GET /document/{id}`, or `$default`. */
  routeKey: string;
  functionLogicalId: string;
  authorizer: TemplateAuthorizer | undefined;
}

export interface SamTemplate {
  file: string;
  functions: Map<string, TemplateFunction>;
  routes: TemplateRoute[];
}

/** A mistake of the person running the command: one line, no stack. */
export class TemplateError extends Error {
  override name = 'TemplateError';
}

export function readTemplate(file: string): SamTemplate {
  if (!existsSync(file))
    throw new TemplateError(`No template at ${file}: synthesize it first (npx cdk synth -c env=<name> -c samLocal=true).`);
  let parsed: { Resources?: Record<string, Resource> };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as typeof parsed;
  } catch (error) {
    throw new TemplateError(`${file} is not a JSON template: ${(error as Error).message}`);
  }
  const baseDir = join(file, '..');
  const resources = withNestedStacks(parsed.Resources ?? {}, baseDir);
  const byType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  const functions = new Map<string, TemplateFunction>();
  for (const [logicalId, resource] of byType('AWS::Lambda::Function')) {
    const props = resource.Properties ?? {};
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string') continue; // inline or image code: nothing SAM could run from this folder
    const environment = props.Environment as { Variables?: Record<string, Json> } | undefined;
    functions.set(logicalId, {
      logicalId,
      codeDir: isAbsolute(assetPath) ? assetPath : join(baseDir, assetPath),
      handler: String(props.Handler ?? ''),
      runtime: String(props.Runtime ?? ''),
      // Lambda's and SAM's defaults.
      memorySize: typeof props.MemorySize === 'number' ? props.MemorySize : 128,
      timeoutSeconds: typeof props.Timeout === 'number' ? props.Timeout : 3,
      variables: { ...(environment?.Variables ?? {}) },
    });
  }

  const authorizers = new Map<string, TemplateAuthorizer>();
  for (const [logicalId, resource] of byType('AWS::ApiGatewayV2::Authorizer')) {
    const jwt = (resource.Properties?.JwtConfiguration ?? {}) as { Issuer?: Json; Audience?: Json };
    const audience =
      Array.isArray(jwt.Audience) && jwt.Audience.every((a) => typeof a === 'string') ? (jwt.Audience as string[]) : undefined;
    authorizers.set(logicalId, { logicalId, issuer: typeof jwt.Issuer === 'string' ? jwt.Issuer : undefined, audience });
  }

  const routes: TemplateRoute[] = [];
  for (const [logicalId, resource] of byType('AWS::ApiGatewayV2::Route')) {
    const props = resource.Properties ?? {};
    const integrationId = refIn(props.Target);
    const integration = integrationId ? resources[integrationId] : undefined;
    const functionId = getAttTarget(integration?.Properties?.IntegrationUri);
    if (!functionId || !functions.has(functionId)) {
      throw new TemplateError(`Route ${logicalId} (${String(props.RouteKey)}) has no integration with a function of the template.`);
    }
    const authorizerId = props.AuthorizationType === 'JWT' ? refIn(props.AuthorizerId) : undefined;
    routes.push({
      routeKey: String(props.RouteKey),
      functionLogicalId: functionId,
      authorizer: authorizerId ? authorizers.get(authorizerId) : undefined,
    });
  }
  return { file, functions, routes };
}

/** `resources` with the resources of their nested stacks merged in, their parameters replaced by what the parent passes. */
function withNestedStacks(resources: Record<string, Resource>, baseDir: string): Record<string, Resource> {
  const merged: Record<string, Resource> = {};
  for (const [logicalId, resource] of Object.entries(resources)) {
    const nestedPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::CloudFormation::Stack' || typeof nestedPath !== 'string') {
      merged[logicalId] = resource;
      continue;
    }
    const nestedFile = isAbsolute(nestedPath) ? nestedPath : join(baseDir, nestedPath);
    if (!existsSync(nestedFile)) throw new TemplateError(`Nested stack ${logicalId}: no template at ${nestedFile}.`);
    const nested = JSON.parse(readFileSync(nestedFile, 'utf8')) as { Resources?: Record<string, Resource> };
    const passed = (resource.Properties?.Parameters ?? {}) as Record<string, Json>;
    for (const [id, inner] of Object.entries(withNestedStacks(nested.Resources ?? {}, baseDir))) {
      if (inner.Type === 'AWS::CDK::Metadata') continue; // CDK's version report, in every stack
      if (Object.hasOwn(resources, id) || Object.hasOwn(merged, id)) throw new TemplateError(`${id} is in two stacks of the template.`);
      merged[id] = substituteParameters(inner as unknown as Json, passed) as unknown as Resource;
    }
  }
  return merged;
}

/** `json` with every `{ "Ref": <parameter> }` of `values` replaced by its value. */
function substituteParameters(json: Json, values: Record<string, Json>): Json {
  if (Array.isArray(json)) return json.map((item) => substituteParameters(item, values));
  if (json === null || typeof json !== 'object') return json;
  const keys = Object.keys(json);
  if (keys.length === 1 && typeof json.Ref === 'string' && Object.hasOwn(values, json.Ref)) return values[json.Ref]!;
  return Object.fromEntries(Object.entries(json).map(([key, value]) => [key, substituteParameters(value, values)]));
}

/** The `Ref` inside `integrations/${Ref}` (a Fn::Join) or a bare Ref. */
function refIn(value: Json | undefined): string | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    if (typeof value.Ref === 'string') return value.Ref;
    const join = value['Fn::Join'];
    if (Array.isArray(join) && Array.isArray(join[1])) for (const part of join[1]) if (refIn(part)) return refIn(part);
  }
  return undefined;
}

/** The function of `{"Fn::GetAtt": [id, "Arn"]}`. */
function getAttTarget(value: Json | undefined): string | undefined {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const att = value['Fn::GetAtt'];
    if (Array.isArray(att) && typeof att[0] === 'string') return att[0];
  }
  return undefined;
}

/** The construct (and route table) name of a function: `GetDocument` for `GetDocumentFunction982E3169`. */
export const constructName = (logicalId: string) => logicalId.replace(/Function[0-9A-F]{8}$/, '');

/**
 * The function asked for: a logical id (or the prefix CDK gives it: the construct id, e.g.
 * `GetDocument` for `GetDocumentFunction982E3169`), or `METHOD /path` of one of its routes.
 */
export function findFunction(template: SamTemplate, name: string): TemplateFunction {
  const exact = template.functions.get(name);
  if (exact) return exact;
  const route = /^[A-Z]+ \//.test(name) ? template.routes.find((r) => r.routeKey === name.replace(/\s+/, ' ')) : undefined;
  if (route) return template.functions.get(route.functionLogicalId)!;
  const prefixed = [...template.functions.keys()].filter((id) => new RegExp(`^${escapeRegExp(name)}Function[0-9A-F]{8}$`).test(id));
  if (prefixed.length === 1) return template.functions.get(prefixed[0]!)!;
  const known = [...template.functions.keys()].sort().join(', ');
  throw new TemplateError(
    `No function ${JSON.stringify(name)} in ${template.file}. Functions: ${known}; or a route like "GET /document/{id}".`,
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** env.json: `{"<LogicalId>": {VAR: value}, "Parameters": {VAR: value}}`. */
export type EnvVars = Record<string, Record<string, Json>>;

export function readEnvVars(file: string): EnvVars {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new TemplateError(
      `--env-vars ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  if (!isObject(parsed) || !Object.values(parsed).every(isObject)) {
    // SAM CLI: "Environment variables must be in either CloudFormation parameter file format or in {FunctionName: {key:value}} JSON pairs".
    throw new TemplateError(`--env-vars ${file}: expected {"Parameters": {"VAR": "value"}} and/or {"<LogicalId>": {"VAR": "value"}}.`);
  }
  return parsed as EnvVars;
}

const isObject = (value: unknown): value is Record<string, Json> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A function's environment as SAM CLI builds it: only the variables the template declares, each
 * from the template (an intrinsic it cannot resolve becomes ""), then the shell's value of that
 * name, then env.json (`Parameters`, then the function's own section, by logical id); plus
 * SAM's own: `AWS_SAM_LOCAL=true`, the function's memory, timeout and handler, a region and
 * placeholder credentials unless given. `defaults` are this project's local values, used where
 * neither the shell nor env.json gives one.
 */
export function samEnvironment(
  fn: TemplateFunction,
  envVars: EnvVars = {},
  options: { shell?: NodeJS.ProcessEnv; defaults?: Record<string, string> } = {},
): Record<string, string> {
  const shell = options.shell ?? {};
  const overrides: Record<string, Json> = { ...(envVars.Parameters ?? {}), ...(envVars[fn.logicalId] ?? {}) };
  const result: Record<string, string> = {
    AWS_SAM_LOCAL: 'true',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memorySize),
    AWS_LAMBDA_FUNCTION_TIMEOUT: String(fn.timeoutSeconds),
    AWS_LAMBDA_FUNCTION_HANDLER: fn.handler,
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_REGION: shell.AWS_REGION || shell.AWS_DEFAULT_REGION || 'us-east-1',
    AWS_DEFAULT_REGION: shell.AWS_DEFAULT_REGION || shell.AWS_REGION || 'us-east-1',
    AWS_ACCESS_KEY_ID: shell.AWS_ACCESS_KEY_ID || 'defaultkey',
    AWS_SECRET_ACCESS_KEY: shell.AWS_SECRET_ACCESS_KEY || 'defaultsecret',
    ...(shell.AWS_SESSION_TOKEN ? { AWS_SESSION_TOKEN: shell.AWS_SESSION_TOKEN } : {}),
  };
  for (const [name, declared] of Object.entries(fn.variables)) {
    let value: Json = declared;
    if (options.defaults?.[name] !== undefined && !isString(declared, true)) value = options.defaults[name]!;
    if (shell[name] !== undefined) value = shell[name]!;
    if (name in overrides) value = overrides[name]!;
    result[name] = stringify(value);
  }
  return result;
}

/** A literal value (non-empty when `nonEmpty`). */
const isString = (value: Json, nonEmpty = false): boolean => typeof value === 'string' && (!nonEmpty || value !== '');

/** SAM: a list or an object (an intrinsic it did not resolve) becomes ""; booleans and numbers their text. */
function stringify(value: Json): string {
  if (value === null || typeof value === 'object') return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}
