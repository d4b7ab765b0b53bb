/**
 * `npm run invoke` (lib/local/sam/invoke.ts, bin/invoke.ts): deployed bundles run one at a time,
 * each in a process of its own with the environment SAM would give it, against this file's
 * DynamoDB Local: a repository made by one invocation is read by the next; under `sam local` a
 * function checks the bearer token itself; the command's mistakes are one line each.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler, projectRoot } from '#lib/bundling';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer, loadLocalIssuer } from '#lib/local/jwt';
import { buildHttpApiEvent } from '#lib/local/sam/event';
import { invokeFunction } from '#lib/local/sam/invoke';
import { readTemplate, type SamTemplate } from '#lib/local/sam/template';
import { createTestTable } from '#test/support/dynamodb';
import { useTempDir } from '#test/support/temp-dir';

const dir = useTempDir('sam-invoke-');
let template: SamTemplate;
let templateFile: string;
let issuer: LocalIssuer;
let defaults: Record<string, string>;

/** A function as CDK writes it for sam local (lib/stack/sam-local.ts: the local-only variables declared empty). */
const fn = (asset: string) => ({
  Type: 'AWS::Lambda::Function',
  Metadata: { 'aws:asset:path': asset, 'aws:asset:property': 'Code' },
  Properties: {
    Handler: 'index.handler',
    Runtime: 'nodejs22.x',
    MemorySize: 512,
    Timeout: 20,
    Environment: {
      Variables: {
        LOG_LEVEL: 'INFO',
        TABLE_NAME: { Ref: 'TableCD117FA1' },
        ...Object.fromEntries(
          ['DYNAMODB_ENDPOINT', 'PAGING_TOKEN_SECRET', 'JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_JWKS', 'JWT_JWKS_URL'].map((n) => [n, '']),
        ),
      },
    },
  },
});

beforeAll(async () => {
  await Promise.all([
    bundleHandler('repositories/create-repository', join(dir, 'asset.create')),
    bundleHandler('repositories/get-repository', join(dir, 'asset.get')),
  ]);
  templateFile = join(dir, 'Stack.template.json');
  writeFileSync(
    templateFile,
    JSON.stringify({
      Resources: {
        CreateRepositoryFunction27C4382C: fn('asset.create'),
        GetRepositoryFunctionCB909F5E: fn('asset.get'),
        CreateIntegration: {
          Type: 'AWS::ApiGatewayV2::Integration',
          Properties: { IntegrationUri: { 'Fn::GetAtt': ['CreateRepositoryFunction27C4382C', 'Arn'] } },
        },
        CreateRoute: {
          Type: 'AWS::ApiGatewayV2::Route',
          Properties: { RouteKey: 'POST /', Target: { 'Fn::Join': ['', ['integrations/', { Ref: 'CreateIntegration' }]] } },
        },
      },
    }),
  );
  template = readTemplate(templateFile);
  issuer = await loadLocalIssuer(dir);
  const { endpoint, tableName } = await createTestTable();
  defaults = {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    PAGING_TOKEN_SECRET: 'invoke-test',
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    JWT_JWKS: JSON.stringify(issuer.jwks),
  };
}, 60_000);

async function invoke(name: string, event: unknown, envVars = {}) {
  let logs = '';
  const { stdout } = await invokeFunction({
    template,
    name,
    eventText: JSON.stringify(event),
    defaults,
    envVars,
    onLog: (text) => (logs += text),
  });
  return { result: JSON.parse(stdout) as { statusCode: number; body?: string; errorType?: string }, logs };
}

describe('invokeFunction', () => {
  it('runs the bundles against the local table: a repository made by one invocation is read by the next', async () => {
    const token = await issuer.issueToken('alice');
    const created = await invoke('POST /', buildHttpApiEvent({ request: 'POST /', body: '{"name":"Handbook"}', token }));
    expect(created.result.statusCode).toBe(201);
    const { id } = JSON.parse(created.result.body!) as { id: string };
    // Logs apart from the result, as SAM prints them: START, the function's own lines, END, REPORT.
    expect(created.logs).toMatch(/^START RequestId: \S+ Version: \$LATEST\n/);
    expect(created.logs).toMatch(/"message":"request".*"status":201/);
    expect(created.logs).toMatch(
      /END RequestId: \S+\nREPORT RequestId: \S+\tDuration: [\d.]+ ms\tBilled Duration: \d+ ms\tMemory Size: 512 MB/,
    );

    const read = await invoke('GetRepository', buildHttpApiEvent({ request: 'GET /{id}', pathParams: { id }, token }));
    expect(read.result.statusCode).toBe(200);
    expect(JSON.parse(read.result.body!)).toMatchObject({ id, name: 'Handbook', role: 'owner' });
  });

  it('checks the bearer token itself when the event has no authorizer claims (sam local start-api), with env.json applied', async () => {
    const event = buildHttpApiEvent({ request: 'GET /{id}', pathParams: { id: 'r1' }, token: await issuer.issueToken('alice') });
    delete (event.requestContext as { authorizer?: unknown }).authorizer;
    expect((await invoke('GetRepository', event)).result.statusCode).toBe(404); // verified: alice, who has no such repository
    event.headers.authorization = `Bearer ${await issuer.issueToken('alice', {}, { aud: 'someone-else' })}`;
    const refused = await invoke('GetRepository', event);
    expect(refused.result.statusCode).toBe(401);
    expect(JSON.parse(refused.result.body!).detail).toMatch(/audience/);
    // env.json's issuer wins over the local default, as SAM would apply it.
    event.headers.authorization = `Bearer ${await issuer.issueToken('alice')}`;
    const otherIssuer = await invoke('GetRepository', event, { Parameters: { JWT_ISSUER: 'https://issuer.invalid' } });
    expect(otherIssuer.result.statusCode).toBe(401);
  });
});

describe('npm run invoke', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', join(projectRoot, 'bin', 'invoke.ts'), ...args], { cwd: projectRoot }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it('reports an unknown function, an event that is not JSON and a missing template in one line, before any database starts', async () => {
    const event = join(dir, 'event.json');
    writeFileSync(event, '{}');
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"version":');
    const answers = await Promise.all([
      run(['Nope', '--event', event, '--template', templateFile]),
      run(['GetRepository', '--event', broken, '--template', templateFile]),
      run(['GetRepository', '--event', event, '--template', join(dir, 'none.json')]),
      run(['GetRepository', '--event', join(dir, 'missing-event.json'), '--template', templateFile]),
    ]);
    const lines = answers.map(({ code, stderr }) => {
      expect(code).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      return stderr.trim();
    });
    expect(lines[0]).toMatch(/^npm run invoke: No function "Nope" in .*Stack\.template\.json/);
    expect(lines[1]).toMatch(/^npm run invoke: --event .*broken\.json is not JSON/);
    expect(lines[2]).toMatch(/^npm run invoke: No template at .*none\.json: synthesize it first/);
    expect(lines[3]).toMatch(/^npm run invoke: --event .*missing-event\.json: no such file/);
  });
});
