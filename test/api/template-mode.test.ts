/**
 * `npm run start:template` (lib/local/sam/serve.ts): the API served from the template `npx cdk
 * synth -c env=dev -c samLocal=true` writes (the real CLI, offline, bundling every function) and
 * its bundles, as `sam local start-api` serves it, with the template's JWT authorizer applied by
 * the local gateway. The smoke: one route of each resource, the public reference, a 401 and the
 * `$default` fallback, every answer held to openapi.json.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/bundling';
import { templatePath } from '#lib/local/sam/invoke';
import { templateRouting } from '#lib/local/sam/serve';
import { readTemplate } from '#lib/local/sam/template';
import { type LocalService, startLocalService } from '#lib/local/service';
import { createTestTable } from '#test/support/dynamodb';
import { Api, ensure, newDocument, newFolder, newRepository, newUser, setRole } from '#test/support/http';

const outdir = mkdtempSync(join(tmpdir(), 'cdk-out-sam-'));
const dataDir = mkdtempSync(join(tmpdir(), 'template-mode-'));
let service: LocalService;
let summary = '';

beforeAll(async () => {
  await promisify(execFile)(
    join(projectRoot, 'node_modules', '.bin', 'cdk'),
    ['synth', '-c', 'env=dev', '-c', 'samLocal=true', '--no-notices', '--quiet', '--output', outdir],
    {
      cwd: projectRoot,
      env: {
        ...process.env,
        CDK_DISABLE_CLI_TELEMETRY: 'true',
        HTTPS_PROXY: 'http://127.0.0.1:9',
        HTTP_PROXY: 'http://127.0.0.1:9',
        NO_PROXY: '',
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const routing = templateRouting(readTemplate(templatePath('dev', outdir)));
  summary = routing.summary;
  const { endpoint, tableName } = await createTestTable();
  service = await startLocalService({ port: 0, dataDir, tableName, dynamodbEndpoint: endpoint, log: () => {}, routing });
}, 420_000);

afterAll(async () => {
  await service?.stop();
  rmSync(outdir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the API served from the synthesized template', () => {
  it('serves every route of the template, with the local issuer (the dev template names a Cognito pool)', () => {
    expect(summary).toMatch(/^\d+ routes and \$default from .*DocumentsService-dev\.template\.json; tokens from the local issuer/);
  });

  it('answers one route of each resource through the bundles', async () => {
    const alice = await newUser(service);
    const bob = await newUser(service);
    const repo = await newRepository(alice.api, { name: 'Handbook' });
    const folder = await newFolder(alice.api, repo.rootFolderId, 'Guides');
    const document = await newDocument(alice.api, folder.id, { name: 'intro.md', content: 'Hello' });
    expect(ensure(await alice.api.get(`/document/${document.id}`), 200).body).toMatchObject({ name: 'intro.md', content: 'Hello' });
    expect(ensure(await alice.api.get(`/folder/${folder.id}/documents`), 200).body.items).toHaveLength(1);
    await setRole(alice.api, repo.id, bob.sub, 'viewer');
    expect(ensure(await bob.api.get(`/${repo.id}`), 200).body).toMatchObject({ role: 'viewer' });
    expect(ensure(await alice.api.get(`/document/${document.id}/revisions`), 200).body.items).toHaveLength(1);
    ensure(await alice.api.delete(`/document/${document.id}`), 204);
    expect(ensure(await alice.api.get(`/${repo.id}/trash`), 200).body.items).toHaveLength(1);
    ensure(await alice.api.get(`/${repo.id}/changes?cursor=latest`), 200);
  });

  it('applies the authorizer (401 without a token), serves the public reference, and sends the rest to $default', async () => {
    const anonymous = new Api(service.url);
    const refused = await anonymous.get('/');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(ensure(await anonymous.get('/openapi.json'), 200).body).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
    expect((await anonymous.get('/no/such/path/here')).status).toBe(404);
    const alice = await newUser(service);
    const wrongMethod = await alice.api.request('PATCH', '/document');
    expect(wrongMethod.status).toBe(405);
  });
});
