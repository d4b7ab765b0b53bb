/**
 * How SAM CLI reads a template and builds a function's environment (lib/local/sam/template.ts),
 * on a small hand-written template: only declared variables, intrinsics become "", the shell
 * then env.json's Parameters then the function's own section win in that order, SAM's own
 * variables; functions found by logical id, construct id or route; mistakes in one line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildHttpApiEvent } from '#lib/local/sam/event';
import { findFunction, readEnvVars, readTemplate, samEnvironment, TemplateError } from '#lib/local/sam/template';
import { useTempDir } from '#test/support/temp-dir';

const dir = useTempDir('sam-environment-');
const write = (name: string, content: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
};

const template = {
  Resources: {
    GetDocumentFunction982E3169: {
      Type: 'AWS::Lambda::Function',
      Metadata: { 'aws:asset:path': 'asset.abc', 'aws:asset:property': 'Code' },
      Properties: {
        Handler: 'index.handler',
        Runtime: 'nodejs22.x',
        MemorySize: 512,
        Timeout: 20,
        Environment: { Variables: { LOG_LEVEL: 'INFO', TABLE_NAME: { Ref: 'Table' }, DYNAMODB_ENDPOINT: '', FLAG: true } },
      },
    },
    Inline: { Type: 'AWS::Lambda::Function', Properties: { Handler: 'index.handler', Code: { ZipFile: 'x' } } },
    Jwt: {
      Type: 'AWS::ApiGatewayV2::Authorizer',
      Properties: { AuthorizerType: 'JWT', JwtConfiguration: { Issuer: 'https://issuer.example', Audience: ['api'] } },
    },
    Integration: {
      Type: 'AWS::ApiGatewayV2::Integration',
      Properties: { IntegrationUri: { 'Fn::GetAtt': ['GetDocumentFunction982E3169', 'Arn'] } },
    },
    Route: {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: {
        RouteKey: 'GET /document/{id}',
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: 'Jwt' },
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'Integration' }]] },
      },
    },
  },
};
const sam = readTemplate(write('t.json', template));
const fn = sam.functions.get('GetDocumentFunction982E3169')!;

describe('readTemplate', () => {
  it('reads functions with their code folder beside the template, and routes with their function and authorizer', () => {
    expect([...sam.functions.keys()]).toEqual(['GetDocumentFunction982E3169']); // no asset path: nothing SAM could run
    expect(fn).toMatchObject({
      codeDir: join(dir, 'asset.abc'),
      handler: 'index.handler',
      runtime: 'nodejs22.x',
      memorySize: 512,
      timeoutSeconds: 20,
    });
    expect(sam.routes).toEqual([
      {
        routeKey: 'GET /document/{id}',
        functionLogicalId: 'GetDocumentFunction982E3169',
        authorizer: { logicalId: 'Jwt', issuer: 'https://issuer.example', audience: ['api'] },
      },
    ]);
  });

  it('says in one line what is wrong: no template, not JSON, a route to nothing', () => {
    expect(() => readTemplate(join(dir, 'missing.json'))).toThrow(
      new TemplateError(`No template at ${join(dir, 'missing.json')}: synthesize it first (npx cdk synth -c env=<name> -c samLocal=true).`),
    );
    expect(() => readTemplate(write('bad.json', '{'))).toThrow(/is not a JSON template/);
    const orphan = structuredClone(template) as any;
    orphan.Resources.Integration.Properties.IntegrationUri = 'arn:aws:lambda:elsewhere';
    expect(() => readTemplate(write('orphan.json', orphan))).toThrow(/Route Route \(GET \/document\/\{id\}\) has no integration/);
  });
});

describe('findFunction', () => {
  it('finds a function by logical id, by construct id, or by one of its routes', () => {
    expect(findFunction(sam, 'GetDocumentFunction982E3169')).toBe(fn);
    expect(findFunction(sam, 'GetDocument')).toBe(fn);
    expect(findFunction(sam, 'GET /document/{id}')).toBe(fn);
    expect(() => findFunction(sam, 'GetDoc')).toThrow(/No function "GetDoc" in .*Functions: GetDocumentFunction982E3169/);
    expect(() => findFunction(sam, 'POST /document/{id}')).toThrow(TemplateError);
  });
});

describe('samEnvironment (SAM CLI: env_vars.py)', () => {
  it('gives the declared variables, intrinsics as "", and SAM\'s own', () => {
    expect(samEnvironment(fn)).toEqual({
      AWS_SAM_LOCAL: 'true',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
      AWS_LAMBDA_FUNCTION_TIMEOUT: '20',
      AWS_LAMBDA_FUNCTION_HANDLER: 'index.handler',
      AWS_LAMBDA_FUNCTION_NAME: 'GetDocumentFunction982E3169',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_REGION: 'us-east-1',
      AWS_DEFAULT_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'defaultkey',
      AWS_SECRET_ACCESS_KEY: 'defaultsecret',
      LOG_LEVEL: 'INFO',
      TABLE_NAME: '',
      DYNAMODB_ENDPOINT: '',
      FLAG: 'true',
    });
  });

  it("overrides in SAM's order: template, shell, Parameters, the function's own section; never adds a variable", () => {
    const env = samEnvironment(
      fn,
      {
        Parameters: { TABLE_NAME: 'documents', LOG_LEVEL: 'WARN', NOT_DECLARED: 'x' },
        GetDocumentFunction982E3169: { LOG_LEVEL: 'DEBUG' },
      },
      { shell: { TABLE_NAME: 'from-shell', DYNAMODB_ENDPOINT: 'http://shell:8000', PATH: '/bin', AWS_REGION: 'eu-west-1' } },
    );
    expect(env).toMatchObject({
      TABLE_NAME: 'documents',
      LOG_LEVEL: 'DEBUG',
      DYNAMODB_ENDPOINT: 'http://shell:8000',
      AWS_REGION: 'eu-west-1',
    });
    expect(env).not.toHaveProperty('NOT_DECLARED');
    expect(env).not.toHaveProperty('PATH');
  });

  it('fills the local defaults only where the template has no value of its own', () => {
    const env = samEnvironment(
      fn,
      {},
      { defaults: { TABLE_NAME: 'documents', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', LOG_LEVEL: 'SILENT', OTHER: 'x' } },
    );
    expect(env).toMatchObject({ TABLE_NAME: 'documents', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', LOG_LEVEL: 'INFO' });
    expect(env).not.toHaveProperty('OTHER');
  });

  it("reads env.json in SAM's format only", () => {
    expect(readEnvVars(write('env.json', { Parameters: { A: 'b' } }))).toEqual({ Parameters: { A: 'b' } });
    expect(() => readEnvVars(write('flat.json', { A: 'b' }))).toThrow(/expected \{"Parameters"/);
    expect(() => readEnvVars(write('broken.json', '{'))).toThrow(/--env-vars/);
    expect(() => readEnvVars(join(dir, 'none.json'))).toThrow(/no such file/);
  });
});

describe('buildHttpApiEvent (npm run event)', () => {
  it('fills path parameters, route key and body; refuses a request no route takes', () => {
    const event = buildHttpApiEvent({
      request: 'PUT /{id}/members/{userId}',
      pathParams: { id: 'r1', userId: 'bob@example.com' },
      body: '{"role":"viewer"}',
    });
    expect(event).toMatchObject({
      routeKey: 'PUT /{id}/members/{userId}',
      rawPath: '/r1/members/bob%40example.com',
      pathParameters: { id: 'r1', userId: 'bob@example.com' },
      body: '{"role":"viewer"}',
      isBase64Encoded: false,
    });
    expect(event.requestContext).not.toHaveProperty('authorizer');
    expect(() => buildHttpApiEvent({ request: 'PATCH /document' })).toThrow(/No route matches/);
    expect(() => buildHttpApiEvent({ request: 'GET /document/{id}' })).toThrow(/--path-params id=/);
    expect(() => buildHttpApiEvent({ request: 'document' })).toThrow(/METHOD \/path/);
  });
});
