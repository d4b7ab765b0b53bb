/**
 * `npm run invoke` (lib/local/sam/invoke.ts, bin/invoke.ts): deployed bundles run one at a time,
 * each in a process of its own with the environment SAM would give it, against this file's
 * DynamoDB Local and S3 emulator: a repository made by one invocation is read by the next; a file
 * route signs with its own key on the emulator; under `sam local` a function checks the bearer
 * token itself; the command's mistakes are one line each.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleHandler, projectRoot } from '#lib/bundling';
import { LOCAL_AUDIENCE, LOCAL_ISSUER, type LocalIssuer, loadLocalIssuer } from '#lib/local/jwt';
import { functionCredentials, type LocalS3, startLocalS3 } from '#lib/local/s3';
import { buildHttpApiEvent } from '#lib/local/sam/event';
import { invokeFunction, localDefaults } from '#lib/local/sam/invoke';
import { findFunction, readTemplate, type SamTemplate } from '#lib/local/sam/template';
import { startLocalService } from '#lib/local/service';
import { createTestTable } from '#test/support/dynamodb';
import { useTempDir } from '#test/support/temp-dir';

const dir = useTempDir('sam-invoke-');
let template: SamTemplate;
let templateFile: string;
let issuer: LocalIssuer;
let defaults: Record<string, string>;
let s3: LocalS3;

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
        BUCKET_NAME: { Ref: 'FilesBucket' },
        ...Object.fromEntries(
          ['DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'PAGING_TOKEN_SECRET', 'JWT_ISSUER', 'JWT_AUDIENCE', 'JWT_JWKS', 'JWT_JWKS_URL'].map((n) => [
            n,
            '',
          ]),
        ),
      },
    },
  },
});

beforeAll(async () => {
  await Promise.all([
    // Bundled as the sam local template bundles them (with the token check's jose).
    bundleHandler('repositories/create-repository', join(dir, 'asset.create'), { samLocal: true }),
    bundleHandler('repositories/get-repository', join(dir, 'asset.get'), { samLocal: true }),
    bundleHandler('uploads/start-upload', join(dir, 'asset.upload'), { samLocal: true }),
    // As the deployed template bundles it.
    bundleHandler('repositories/get-repository', join(dir, 'asset.deployed')),
  ]);
  templateFile = join(dir, 'Stack.template.json');
  writeFileSync(
    templateFile,
    JSON.stringify({
      Resources: {
        CreateRepositoryFunction27C4382C: fn('asset.create'),
        GetRepositoryFunctionCB909F5E: fn('asset.get'),
        StartUploadFunction5D4B2A1C: fn('asset.upload'),
        DeployedGetRepositoryFunction0B1C2D3E: fn('asset.deployed'),
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
  s3 = await startLocalS3({ dataDir: join(dir, 's3') });
  defaults = {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoint,
    BUCKET_NAME: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    PAGING_TOKEN_SECRET: 'invoke-test',
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    JWT_JWKS: JSON.stringify(issuer.jwks),
  };
}, 60_000);
afterAll(() => s3?.stop());

async function invoke(name: string, event: unknown, envVars = {}, credentials?: { accessKeyId: string; secretAccessKey: string }) {
  let logs = '';
  const { stdout } = await invokeFunction({
    template,
    name,
    eventText: JSON.stringify(event),
    defaults,
    envVars,
    credentials,
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

  it('runs a file route against the S3 emulator with the key of its own function, whose presigned URLs the emulator accepts', async () => {
    const token = await issuer.issueToken('alice');
    const created = await invoke('POST /', buildHttpApiEvent({ request: 'POST /', body: '{"name":"Files"}', token }));
    const { rootFolderId } = JSON.parse(created.result.body!) as { rootFolderId: string };
    const request = JSON.stringify({ folderId: rootFolderId, name: 'big.bin', size: 20 * 1024 * 1024 });
    const event = buildHttpApiEvent({ request: 'POST /uploads', body: request, token });

    // Another function's key: the emulator refuses what that role may not do, as IAM would (a 500: a grant is missing).
    const stranger = await invoke('StartUpload', event, {}, await functionCredentials(join(dir, 's3'), 'GetRepository'));
    expect(stranger.result.statusCode).toBe(500);
    expect(stranger.logs).toMatch(/AccessDenied/);

    const started = await invoke('StartUpload', event, {}, await functionCredentials(join(dir, 's3'), 'StartUpload'));
    expect(started.result.statusCode).toBe(201);
    const upload = JSON.parse(started.result.body!) as { partCount: number; parts: { number: number; url: string }[] };
    expect(upload.partCount).toBe(3);
    expect(upload.parts[0]!.url.startsWith(`${s3.endpoint}/${s3.bucket}/files/`)).toBe(true);
    const sent = await fetch(upload.parts[0]!.url, { method: 'PUT', body: new Uint8Array(8 * 1024 * 1024) });
    expect(sent.status).toBe(200);
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

  it('says which template to use when a bundle made for AWS, which leaves the token check out, runs under sam local', async () => {
    const event = buildHttpApiEvent({ request: 'GET /{id}', pathParams: { id: 'r1' }, token: await issuer.issueToken('alice') });
    delete (event.requestContext as { authorizer?: unknown }).authorizer;
    const { result, logs } = await invoke('DeployedGetRepository', event);
    expect(result.statusCode).toBe(500);
    expect(logs).toMatch(/bundled without the sam local token check: run it from the template of `npx cdk synth -c samLocal=true`/);
    // With the authorizer's claims in the event, as from `npm run event`, it needs no check and answers.
    const withClaims = buildHttpApiEvent({ request: 'GET /{id}', pathParams: { id: 'r1' }, token: await issuer.issueToken('alice') });
    expect((await invoke('DeployedGetRepository', withClaims)).result.statusCode).toBe(404);
  });
});

describe('localDefaults', () => {
  it("uses npm start's table and bucket when it runs on the data folder: an upload started by an invocation is the service's", async () => {
    const dataDir = join(dir, 'npm-start');
    const svc = await startLocalService({ dataDir, log: () => {} });
    try {
      const local = await localDefaults(dataDir, svc.tableName);
      expect(local.defaults).toMatchObject({
        DYNAMODB_ENDPOINT: svc.dynamodbEndpoint,
        S3_ENDPOINT: svc.s3.endpoint,
        BUCKET_NAME: svc.s3.bucket,
      });
      const token = await svc.issueToken('alice');
      const run = async (name: string, event: unknown) => {
        const { stdout } = await invokeFunction({
          template,
          name,
          eventText: JSON.stringify(event),
          defaults: local.defaults,
          credentials: await local.credentialsOf(findFunction(template, name).logicalId),
          onLog: () => {},
        });
        return JSON.parse(stdout) as { statusCode: number; body: string };
      };
      const created = await run('POST /', buildHttpApiEvent({ request: 'POST /', body: '{"name":"Shared"}', token }));
      const { rootFolderId } = JSON.parse(created.body) as { rootFolderId: string };
      const body = JSON.stringify({ folderId: rootFolderId, name: 'big.bin', size: 20 * 1024 * 1024 });
      const started = await run('StartUpload', buildHttpApiEvent({ request: 'POST /uploads', body, token }));
      expect(started.statusCode).toBe(201);
      const { id } = JSON.parse(started.body) as { id: string };
      const seen = await fetch(`${svc.url}/uploads/${id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(seen.status).toBe(200);
      expect(await seen.json()).toMatchObject({ id, name: 'big.bin', status: 'open', received: [] });
      await local.stop();
    } finally {
      await svc.stop();
    }
  }, 60_000);
});

describe('npm run invoke', () => {
  /** Where `npm run invoke` would start its DynamoDB Local and S3 emulator (DATA_DIR): nothing there yet. */
  const dataDir = () => join(dir, 'invoke-data');
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', join(projectRoot, 'bin', 'invoke.ts'), ...args], {
      cwd: projectRoot,
      env: { ...process.env, DATA_DIR: dataDir() },
    }).then(
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
    // No database started: its data directory (lock, DynamoDB Local's and the emulator's files) was never made.
    expect(existsSync(dataDir()), `${dataDir()} was made`).toBe(false);
  });
});
