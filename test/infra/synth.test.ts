/**
 * `npx cdk synth -c env=dev` as a person runs it: the real CLI, offline (telemetry off, no
 * notices, any network use sent to a dead proxy), bundling every function with the local
 * esbuild; without `-c env` it refuses. Then cdk-nag: every committed environment passes, and
 * an unacknowledged finding fails the synth.
 *
 * The same synth serves `npm run start:template` (lib/local/sam/serve.ts): the API from the
 * template's routes and integrations and its bundles, as `sam local start-api` serves it, with the
 * template's JWT authorizer applied by the local gateway. The smoke: one route of each resource,
 * the public reference, a 401 and the `$default` fallback, every answer held to openapi.json.
 * (One synth for both: each bundles every function, one esbuild build, lib/stack/function-code.ts. The bundles it is
 * compared with are bundles.test.ts's, built once for the run: test/support/bundles.ts.)
 */
import { type ChildProcess, execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFunctions, routes, signInRoutes, sweeperFunction, workerFunction } from '#functions/routes';
import { bundleHandler, projectRoot } from '#lib/bundling';
import { templatePath } from '#lib/local/sam/invoke';
import { templateRouting } from '#lib/local/sam/serve';
import { readTemplate } from '#lib/local/sam/template';
import { type LocalService, startLocalService } from '#lib/local/service';
import { buildApp, projectContext } from '#lib/stack/app';
import { sharedBundles } from '#test/support/bundles';
import { createTestTable } from '#test/support/dynamodb';
import { Api, ensure, newDocument, newFolder, newRepository, newUser, setRole } from '#test/support/http';

const run = promisify(execFile);
const outdir = mkdtempSync(join(tmpdir(), 'cdk-out-'));
let synthOutput = '';
/** The environment synthesized, as the README's first command does. */
const ENVIRONMENT = 'dev';
const environments = projectContext().environments as Record<string, { stackName: string }>;

/** The CLIs still running. */
const running = new Set<ChildProcess>();
/** `pid` and the processes under it (the CLI runs its app in a shell, and the app an esbuild per function). */
function processTree(pid: number): number[] {
  const parents = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...parents.filter(([, ppid]) => ppid === tree[i]).map(([child]) => child));
  return tree;
}

/** The real CLI, offline. */
const cdk = (args: string[], output = outdir) => {
  const started = run(join(projectRoot, 'node_modules', '.bin', 'cdk'), ['synth', '--no-notices', '--quiet', '--output', output, ...args], {
    cwd: projectRoot,
    env: {
      ...process.env,
      CDK_DISABLE_CLI_TELEMETRY: 'true',
      // No network here: anything that tried would fail at once rather than hang.
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  running.add(started.child);
  started.child.on('exit', () => running.delete(started.child));
  return started;
};

/** The same CLI without `-c env`, run beside the synth (its own output directory: the CLI locks one). */
const refusedOutdir = mkdtempSync(join(tmpdir(), 'cdk-out-refused-'));
let withoutEnvironment: Promise<string | undefined>;

beforeAll(async () => {
  withoutEnvironment = cdk([], refusedOutdir).then(
    () => undefined,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
  );
  const result = await cdk(['-c', `env=${ENVIRONMENT}`]);
  synthOutput = result.stdout + result.stderr;
}, 420_000);

afterAll(() => {
  // A synth that timed out would go on bundling, its app orphaned, on a machine loaded enough to time it out.
  for (const pid of [...running].flatMap((child) => processTree(child.pid!))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  rmSync(outdir, { recursive: true, force: true });
  rmSync(refusedOutdir, { recursive: true, force: true });
});

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> };
/** The stack's template and its nested stacks' (the route groups, lib/stack/route-groups.ts), as cdk writes them beside each other. */
const templates = () =>
  readdirSync(outdir)
    .filter((file) => file === `${environments[ENVIRONMENT]!.stackName}.template.json` || file.endsWith('.nested.template.json'))
    .map((file) => JSON.parse(readFileSync(join(outdir, file), 'utf8')) as { Resources: Record<string, Resource> });
/** The service's functions; not CDK's own (the destroyable buckets' emptying function, ../../lib/stack/file-bucket.ts). */
const functions = () =>
  templates()
    .flatMap((template) => Object.entries(template.Resources))
    .filter(
      ([id, r]) =>
        r.Type === 'AWS::Lambda::Function' && !id.startsWith('CustomS3AutoDeleteObjects') && !id.startsWith('CustomCDKBucketDeployment'),
    );

describe('npx cdk synth -c env=dev', () => {
  it('writes the template with no cdk-nag finding left', () => {
    expect(synthOutput).not.toMatch(/AwsSolutions-/);
    // Every route, the $default fallback, the background worker and its sweeper, the upload finaliser.
    // And the web app's sign-in routes (the dev environment makes its own user pool).
    expect(functions()).toHaveLength(allFunctions().length + signInRoutes.length);
  });

  it('bundles every function as an ESM index.mjs beside the template, where SAM finds it', () => {
    for (const [id, fn] of functions()) {
      expect(fn.Metadata?.['aws:asset:property'], id).toBe('Code');
      const assetDir = join(outdir, fn.Metadata!['aws:asset:path']!);
      const bundle = join(assetDir, 'index.mjs');
      expect(existsSync(bundle), `${id}: ${bundle}`).toBe(true);
      expect(statSync(bundle).size).toBeGreaterThan(0);
    }
  });

  it('deploys byte for byte the bundle that lib/bundling.ts makes (what bundles.test.ts runs)', async () => {
    // What bundles.test.ts runs, built once for the run (test/support/bundles.ts): asked for after the synth, not
    // beside it, where it would slow the synth (bundles.test.ts, started at the same time, most often built them already).
    const ours = await sharedBundles();
    for (const fn of [...routes, workerFunction, sweeperFunction]) {
      // The sweeper's construct is inside the worker's: WorkerSweeperFunction….
      const construct = fn === sweeperFunction ? `Worker${fn.name}` : fn.name;
      const [, deployed] = functions().find(([id]) => id.startsWith(`${construct}Function`))!;
      const bytes = readFileSync(join(outdir, deployed.Metadata!['aws:asset:path']!, 'index.mjs'));
      expect(bytes.equals(readFileSync(ours[fn.name]!)), fn.name).toBe(true);
    }
    // Those come from one esbuild build of every handler: each is what the handler's own build
    // writes (bundleHandler, as bench/ and the other tests bundle one handler).
    const scratch = mkdtempSync(join(tmpdir(), 'bundle-compare-'));
    try {
      const [route] = routes;
      expect(readFileSync(await bundleHandler(route!.handler, scratch)).equals(readFileSync(ours[route!.name]!)), route!.name).toBe(true);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 300_000);

  it('puts the Secrets Manager client only in the bundles of the routes that page (the others stay small)', () => {
    for (const route of routes) {
      const [, fn] = functions().find(([id]) => id.startsWith(`${route.name}Function`))!;
      const bundle = readFileSync(join(outdir, fn.Metadata!['aws:asset:path']!, 'index.mjs'), 'utf8');
      expect(bundle.includes('GetSecretValue'), route.name).toBe(route.pages === true);
    }
    for (const name of [workerFunction.name, `Worker${sweeperFunction.name}`]) {
      const [, fn] = functions().find(([id]) => id.startsWith(`${name}Function`))!;
      expect(readFileSync(join(outdir, fn.Metadata!['aws:asset:path']!, 'index.mjs'), 'utf8'), name).not.toContain('GetSecretValue');
    }
  });

  it('refuses to run without -c env, naming the environments there are', async () => {
    const failed = await withoutEnvironment;
    expect(failed, 'cdk synth without -c env succeeded').toBeDefined();
    expect(failed).toContain(`-c env=<name>, one of: ${Object.keys(environments).join(', ')}`);
  }, 120_000);

  it('copies the files a route reads at run time beside its bundle', () => {
    for (const route of routes.filter((r) => r.files?.length)) {
      const [, fn] = functions().find(([id]) => id.startsWith(`${route.name}Function`))!;
      for (const file of route.files!) {
        expect(existsSync(join(outdir, fn.Metadata!['aws:asset:path']!, basename(file))), `${route.name}: ${file}`).toBe(true);
      }
    }
  });
});

describe('cdk-nag', () => {
  it('fails the synth on a finding nobody acknowledged', () => {
    const { app, stack } = buildApp({
      context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env: ENVIRONMENT },
      outdir: mkdtempSync(join(tmpdir(), 'cdk-nag-')),
    });
    // A table without point-in-time recovery: AwsSolutions-DDB3.
    new Table(stack, 'Unprotected', { partitionKey: { name: 'id', type: AttributeType.STRING } });
    expect(() => app.synth()).toThrow(/AwsSolutions-DDB3/);
    const report = readFileSync(join(app.outdir, 'validation-report.json'), 'utf8');
    expect(report).toContain('AwsSolutions-DDB3');
    expect(report).toContain('Unprotected');
  }, 120_000);

  it('passes the app as defined, in every committed environment', () => {
    // The synth above is the CLI's with the same checks: a finding in dev would have failed it (first test).
    expect(Object.keys(environments)).toContain(ENVIRONMENT);
    for (const env of Object.keys(environments).filter((name) => name !== ENVIRONMENT)) {
      const { app } = buildApp({
        context: { ...projectContext(), 'aws:cdk:bundling-stacks': [], env },
        outdir: mkdtempSync(join(tmpdir(), 'cdk-nag-')),
      });
      expect(() => app.synth(), env).not.toThrow();
    }
  }, 240_000);
});

describe('the API served from that template (npm run start:template, as sam local start-api serves it)', () => {
  let service: LocalService;
  let summary = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'template-mode-'));
  beforeAll(async () => {
    const routing = templateRouting(readTemplate(templatePath(ENVIRONMENT, outdir)));
    summary = routing.summary;
    const { endpoint, tableName } = await createTestTable();
    service = await startLocalService({ port: 0, dataDir, tableName, dynamodbEndpoint: endpoint, log: () => {}, routing });
  }, 300_000);
  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

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
