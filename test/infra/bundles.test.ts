/**
 * The code the stack deploys, proven to work: every route's handler is bundled with the
 * stack's own esbuild settings (lib/bundling.ts; once for the run, test/support/bundles.ts), then each bundle is loaded by a plain Node
 * process, as Lambda loads `index.mjs`, and invoked with an API Gateway v2 event against
 * DynamoDB Local. This catches what source-level tests cannot: an ESM bundle that loads but
 * breaks at its first SDK call, a missing file, a handler export that was tree-shaken away.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allFunctions,
  finaliserFunction,
  migrateFunction,
  reindexFunction,
  routes,
  sweeperFunction,
  workerFunction,
} from '#functions/routes';
import { projectRoot } from '#lib/bundling';
import { type LocalDataApi, startLocalDataApi } from '#lib/local/data-api';
import { localClient } from '#lib/local/dynamodb-local';
import { buildEvent, resolveRoute } from '#lib/local/lambda-event';
import { ensureIndexes } from '#lib/local/layout-version';
import { type LocalS3, startLocalS3 } from '#lib/local/s3';
import { type LocalSearchDatabase, startLocalSearchDatabase } from '#lib/local/search-database';
import { sharedBundles } from '#test/support/bundles';
import { createTestTable } from '#test/support/dynamodb';

const run = promisify(execFile);
const workdir = mkdtempSync(join(tmpdir(), 'bundles-'));
const bundles = new Map<string, string>();
let env: Record<string, string> = {};
/** The file bucket, for the routes that declare S3 actions (each signs with a key of its own, held to its grants). */
let bucket: LocalS3 | undefined;
/** The search database behind the RDS Data API, for the functions the stack gives the search cluster. */
let searchDatabase: LocalSearchDatabase | undefined;
let dataApi: LocalDataApi | undefined;
const SEARCH_CLUSTER = 'arn:aws:rds:us-east-1:123456789012:cluster:bundle-search';
const SEARCH_SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:bundle-search-AbCdEf';

/** Loads the bundle in a fresh Node process and calls its handler once, like a cold Lambda. */
const INVOKE = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [bundle, eventFile, resultFile] = process.argv.slice(1);
const { handler } = await import(pathToFileURL(bundle).href);
const context = {
  functionName: 'bundle-test', functionVersion: '$LATEST', awsRequestId: 'req-' + Date.now(),
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bundle-test', memoryLimitInMB: '512',
  logGroupName: '/aws/lambda/bundle-test', logStreamName: 'local', callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 10000,
};
const result = await handler(JSON.parse(readFileSync(eventFile, 'utf8')), context);
writeFileSync(resultFile, JSON.stringify(result ?? null));
`;

let invocation = 0;
/** What the last bundle invoked logged (LOG_LEVEL WARN: its warnings and errors), for a failing expectation's message. */
let lastLogs = '';
async function invoke(
  method: string,
  url: string,
  options: { body?: unknown; raw?: Buffer; headers?: Record<string, string>; user?: string } = {},
): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const path = url.split('?')[0]!;
  const resolution = resolveRoute(method, path);
  const rawHeaders = ['host', 'api.example.com'];
  for (const [name, value] of Object.entries(options.headers ?? {})) rawHeaders.push(name, value);
  const body = options.raw ?? (options.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(options.body)));
  if (options.body !== undefined) rawHeaders.push('content-type', 'application/json');
  const isPublic = resolution.kind === 'fallback' || resolution.route.public === true;
  const user = options.user ?? 'bundle-user';
  const event = buildEvent(
    { method, url, rawHeaders, body, sourceIp: '203.0.113.7' },
    resolution,
    isPublic ? undefined : { sub: user, iss: 'https://issuer.example.com', aud: 'documents-api', iat: 1, exp: 4102444800 },
  );
  const result = (await invokeBundle(resolution.route.name, event, `${method} ${url}`)) as APIGatewayProxyStructuredResultV2;
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const text = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64').toString() : (result.body ?? '');
  const json = /json/.test(headers['content-type'] ?? '') && text ? JSON.parse(text) : text;
  return { status: result.statusCode!, headers, body: json };
}
/** A repository's feed partition as stored: pending (`P#`) and numbered (`S#`) changes. */
async function feedOf(repositoryId: string): Promise<Record<string, unknown>[]> {
  const found = await DynamoDBDocumentClient.from(localClient(env.DYNAMODB_ENDPOINT!)).send(
    new QueryCommand({
      TableName: env.TABLE_NAME,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `FEED#${repositoryId}` },
    }),
  );
  return found.Items ?? [];
}

/** The stream records of `items` written, as the worker receives them (sequence numbers from `first`). */
const insertRecords = (items: Record<string, unknown>[], first: number) =>
  items.map((item, i) => ({
    eventID: `e${first + i}`,
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: marshall({ PK: item.PK, SK: item.SK }),
      NewImage: marshall(item),
      SequenceNumber: String(first + i),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  }));

const invoked = new Set<string>();

/** Runs one function's bundle once, in a fresh Node process, with `event`; returns what its handler returned. */
async function invokeBundle(name: string, event: unknown, what = name, moreEnv: Record<string, string> = {}): Promise<unknown> {
  const n = ++invocation;
  const eventFile = join(workdir, `event-${n}.json`);
  const resultFile = join(workdir, `result-${n}.json`);
  writeFileSync(eventFile, JSON.stringify(event));
  const bundle = bundles.get(name)!;
  // As the stack gives it: the bucket's name to a function whose route declares S3 actions. One key signs for both
  // services in a bundle (the environment's), and DynamoDB Local takes only letters and digits: the emulator's own
  // key, not the function's (the local runtime holds functions to their grants: test/local/permissions.test.ts).
  const declaresS3 = ((allFunctions().find((fn) => fn.name === name) as { s3?: readonly string[] } | undefined)?.s3 ?? []).length > 0;
  const s3Env = declaresS3 && bucket ? { BUCKET_NAME: bucket.bucket, S3_ENDPOINT: bucket.endpoint, ...keyEnv(bucket.credentials) } : {};
  // As lib/stack/search-index.ts gives it to a function granted the search cluster; the SDK's own endpoint setting finds the local Data API.
  const usesSearch = (allFunctions().find((fn) => fn.name === name) as { search?: boolean } | undefined)?.search === true;
  const searchEnv =
    usesSearch && dataApi
      ? {
          SEARCH_CLUSTER_ARN: SEARCH_CLUSTER,
          SEARCH_SECRET_ARN: SEARCH_SECRET,
          SEARCH_DATABASE: 'search',
          AWS_ENDPOINT_URL_RDS_DATA: dataApi.endpoint,
        }
      : {};
  try {
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', INVOKE, bundle, eventFile, resultFile], {
      // No DOCS_ASSETS_DIR: a deployed function finds its files beside its bundle.
      env: { ...process.env, DOCS_ASSETS_DIR: undefined, ...env, ...s3Env, ...searchEnv, ...moreEnv },
    });
    lastLogs = `${stdout}${stderr}`;
  } catch (error) {
    // Node prints the failing line of a minified bundle (a whole megabyte): keep the short ones.
    const stderr = String((error as { stderr?: string }).stderr ?? error);
    const lines = stderr.split('\n').filter((line) => line.length < 300 && line.trim());
    throw new Error(`${name} bundle failed on ${what}:\n${lines.slice(-8).join('\n')}`);
  }
  invoked.add(name);
  return JSON.parse(readFileSync(resultFile, 'utf8'));
}

/** A local HTTP endpoint that records each request's JSON body and answers with `answer(body)`. */
async function recordingEndpoint(answer: (body: any) => unknown = () => ({})) {
  const bodies: any[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(answer(body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => server.close() };
}

const keyEnv = (key: { accessKeyId: string; secretAccessKey: string }) => ({
  AWS_ACCESS_KEY_ID: key.accessKeyId,
  AWS_SECRET_ACCESS_KEY: key.secretAccessKey,
});

beforeAll(async () => {
  // The run's bundles, built once for this file and synth.test.ts (test/support/bundles.ts), while the services start.
  const built = sharedBundles();
  built.catch(() => {}); // awaited below
  bucket = await startLocalS3({ dataDir: join(workdir, 's3'), port: 0 });
  // A new database on disk, not the run's migrated snapshot: the bundled migration function makes its schema.
  searchDatabase = await startLocalSearchDatabase(join(workdir, 'search'));
  dataApi = await startLocalDataApi({
    database: searchDatabase,
    // The key of the environment, and the bucket's (a function that also uses S3 signs with it).
    keys: [{ accessKeyId: 'local', secretAccessKey: 'local' }, bucket.credentials],
    clusterArn: SEARCH_CLUSTER,
    secretArn: SEARCH_SECRET,
    databaseName: 'search',
  });
  const table = await createTestTable();
  // As the deployed table and `npm start`'s have it: the sweeper reads its index.
  await ensureIndexes(table.endpoint, table.tableName);
  env = {
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    PAGING_TOKEN_SECRET: 'bundle-test-paging-secret',
    LOG_LEVEL: 'WARN',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  for (const [name, bundle] of Object.entries(await built)) bundles.set(name, bundle);
}, 120_000);

afterAll(async () => {
  await bucket?.stop();
  await dataApi?.close();
  await searchDatabase?.close();
  rmSync(workdir, { recursive: true, force: true });
});

describe('every deployed bundle answers a real request', () => {
  it('walks the whole API through the bundled handlers', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Bundled', description: 'made by a bundle' } });
    expect(repo.status).toBe(201);
    expect(repo.body).toMatchObject({ name: 'Bundled', role: 'owner' });

    expect((await invoke('GET', '/')).body.items.map((r: { id: string }) => r.id)).toEqual([repo.body.id]);
    expect((await invoke('GET', `/${repo.body.id}`)).body).toMatchObject({ id: repo.body.id });
    const root = await invoke('GET', `/${repo.body.id}/folder`);
    expect(root).toMatchObject({ status: 200, body: { id: repo.body.rootFolderId, parentId: null } });

    const folder = await invoke('POST', '/folder', { body: { parentId: root.body.id, name: 'Specs' } });
    expect(folder.status).toBe(201);
    expect((await invoke('GET', `/folder/${folder.body.id}`)).body).toMatchObject({ name: 'Specs' });
    expect((await invoke('GET', `/folder/${root.body.id}/folders`)).body.items).toHaveLength(1);

    const doc = await invoke('POST', '/document', { body: { folderId: folder.body.id, name: 'a.txt', content: 'héllo' } });
    expect(doc).toMatchObject({ status: 201, headers: { etag: '"1"' }, body: { size: 6, version: 1 } });
    expect((await invoke('GET', `/document/${doc.body.id}`)).body).toMatchObject({ content: 'héllo' });
    const path = await invoke('GET', `/document/${doc.body.id}/path`);
    expect(path.body.items.map((f: { id: string }) => f.id)).toEqual([root.body.id, folder.body.id]);

    const listed = await invoke('GET', `/folder/${folder.body.id}/documents?limit=1`);
    expect(listed.body.items).toEqual([expect.not.objectContaining({ content: expect.anything() })]);

    const updated = await invoke('PUT', '/document', { body: { id: doc.body.id, content: 'bye' }, headers: { 'if-match': '"1"' } });
    expect(updated).toMatchObject({ status: 200, headers: { etag: '"2"' }, body: { content: 'bye', version: 2 } });

    const revisions = await invoke('GET', `/document/${doc.body.id}/revisions?limit=10`);
    expect(revisions.body.items.map((r: { version: number }) => r.version)).toEqual([2, 1]);
    expect((await invoke('GET', `/document/${doc.body.id}/revisions/1`)).body).toMatchObject({ version: 1, content: 'héllo' });
    const restored = await invoke('POST', `/document/${doc.body.id}/revisions/1/restore`, { headers: { 'if-match': '"2"' } });
    expect(restored).toMatchObject({ status: 200, headers: { etag: '"3"' }, body: { content: 'héllo', version: 3 } });
    const feed = await invoke('GET', `/${repo.body.id}/changes?cursor=latest&limit=5`);
    expect(feed).toMatchObject({ status: 200, body: { items: [], cursor: expect.any(String) } });

    expect((await invoke('DELETE', `/document/${doc.body.id}`)).status).toBe(204);
    expect((await invoke('GET', `/document/${doc.body.id}`)).status).toBe(404);
  });

  it('answers errors as problem+json from the bundle', async () => {
    const notFound = await invoke('GET', '/nowhere/at/all');
    expect(notFound).toMatchObject({ status: 404, headers: { 'content-type': 'application/problem+json' } });
    const invalid = await invoke('POST', '/', { body: { name: '' } });
    expect(invalid).toMatchObject({ status: 400, headers: { 'content-type': 'application/problem+json' } });
    expect(invalid.body.errors[0]).toMatchObject({ path: 'name' });
  });

  it('serves the API reference from the bundles, with the files copied beside them', async () => {
    const spec = await invoke('GET', '/openapi.json');
    expect(spec).toMatchObject({ status: 200, body: { openapi: expect.stringMatching(/^3\.1\./) } });
    const page = await invoke('GET', '/docs');
    expect(page).toMatchObject({ status: 200, headers: { 'content-type': expect.stringContaining('text/html') } });
    for (const file of routes.flatMap((r) => r.files ?? [])) {
      const asset = await invoke('GET', `/docs/${basename(file)}`);
      expect(asset.status, file).toBe(200);
      expect(asset.body.length).toBe(readFileSync(join(projectRoot, file), 'utf8').length);
    }
    expect((await invoke('GET', '/docs/..%2Fpackage.json')).status).toBe(404);
  });

  it('runs search from its bundles on the Data API: schema migrated, changes indexed by the worker, the table rebuilt into the index', async () => {
    // The migration function answers CloudFormation at the request's presigned URL.
    const cloudFormation = await recordingEndpoint();
    const stackEvent = (RequestType: string) => ({
      RequestType,
      ResponseURL: `${cloudFormation.url}/answer`,
      StackId: 'stack',
      RequestId: `r-${RequestType}`,
      LogicalResourceId: 'SearchMigrations',
    });
    try {
      await invokeBundle(migrateFunction.name, stackEvent('Create'));
      await invokeBundle(migrateFunction.name, stackEvent('Update'));
    } finally {
      cloudFormation.close();
    }
    expect(
      cloudFormation.bodies.map((answer) => [answer.Status, answer.Data?.applied]),
      JSON.stringify(cloudFormation.bodies),
    ).toEqual([
      ['SUCCESS', '1,2,3'],
      ['SUCCESS', ''],
    ]);

    const repo = await invoke('POST', '/', { body: { name: 'Searched' } });
    await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'almanac.txt', content: 'quarterly tides' } });
    // The stream as the worker sees it: the pending changes (numbered into the feed), then the numbered ones (indexed, then
    // published to the event bus: here a stand-in that takes PutEvents).
    const bus = await recordingEndpoint((body) => ({
      FailedEntryCount: 0,
      Entries: body.Entries.map((_: unknown, i: number) => ({ EventId: `e${i}` })),
    }));
    try {
      for (const prefix of ['P#', 'S#']) {
        const records = insertRecords(
          (await feedOf(repo.body.id)).filter((item) => (item.SK as string).startsWith(prefix)),
          500,
        );
        expect(records.length, prefix).toBeGreaterThan(0);
        const result = await invokeBundle(workerFunction.name, { Records: records }, prefix, {
          EVENT_BUS_NAME: 'bundle-bus',
          AWS_ENDPOINT_URL_EVENTBRIDGE: bus.url,
        });
        expect(result, lastLogs).toEqual({ batchItemFailures: [] });
      }
    } finally {
      bus.close();
    }
    expect(bus.bodies.flatMap((body) => body.Entries.map((entry: { DetailType: string }) => entry.DetailType))).toContain('created');
    const found = await invoke('GET', `/search?q=${encodeURIComponent('tide')}&repositoryId=${repo.body.id}`);
    expect(found).toMatchObject({ status: 200, body: { items: [{ name: 'almanac.txt', matched: 'content' }] } });
    expect(found.body.items[0].snippet.text).toBe('quarterly tides');

    // Written to the table, never streamed: only the rebuild brings it into the index.
    await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'unstreamed almanac.txt' } });
    expect(await invokeBundle(reindexFunction.name, { fresh: true })).toMatchObject({ done: true });
    const all = await invoke('GET', `/search?q=almanac&repositoryId=${repo.body.id}`);
    expect(all.body.items.map((hit: { name: string }) => hit.name).sort()).toEqual(['almanac.txt', 'unstreamed almanac.txt']);
    expect((await invoke('GET', '/search?q=almanac', { user: 'stranger' })).body.items).toEqual([]);
  });

  it('runs the background worker from its bundle on stream records: changes are numbered into the feed', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Fed' } });
    await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'one.txt' } });
    await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'two.txt' } });
    const feed = () => feedOf(repo.body.id);
    const pending = (await feed()).filter((item) => (item.SK as string).startsWith('P#'));
    expect(pending).toHaveLength(2);
    const result = await invokeBundle(workerFunction.name, { Records: insertRecords(pending, 100) });
    expect(result).toEqual({ batchItemFailures: [] });
    const numbered = (await feed()).filter((item) => (item.SK as string).startsWith('S#'));
    expect(numbered.map((item) => [item.seq, item.type, item.name])).toEqual([
      [1, 'created', expect.any(String)],
      [2, 'created', expect.any(String)],
    ]);
  });

  it('runs the sweeper from its bundle: a change whose stream record never came is numbered into the feed', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Swept' } });
    await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'unrecorded.txt' } });
    const report = (await invokeBundle(sweeperFunction.name, { graceSeconds: 0 })) as { changes: number };
    expect(report).toMatchObject({ failed: 0, left: 0 });
    expect(report.changes).toBeGreaterThanOrEqual(1);
    const feed = await feedOf(repo.body.id);
    expect(feed.filter((item) => (item.SK as string).startsWith('P#'))).toEqual([]);
    expect(feed.filter((item) => (item.SK as string).startsWith('S#')).map((item) => [item.seq, item.type, item.name])).toEqual([
      [1, 'created', 'unrecorded.txt'],
    ]);
  });

  it('shares a repository through the bundled member handlers: roles given, checked, changed and taken away', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Shared by a bundle' } });
    const bob = 'auth0|bob@example.com'; // percent-encoded in the path, decoded for the handler
    const path = `/${repo.body.id}/members/${encodeURIComponent(bob)}`;
    const added = await invoke('PUT', path, { body: { role: 'viewer' } });
    expect(added).toMatchObject({ status: 201, headers: { location: path }, body: { userId: bob, role: 'viewer' } });
    const listed = await invoke('GET', `/${repo.body.id}/members`, { user: bob });
    expect(listed.body.items.map((m: { userId: string }) => m.userId).sort()).toEqual([bob, 'bundle-user'].sort());
    expect((await invoke('PUT', `/${repo.body.id}/members/carol`, { body: { role: 'viewer' }, user: bob })).status).toBe(403);
    expect((await invoke('PUT', path, { body: { role: 'editor' } })).body).toMatchObject({ role: 'editor' });
    expect((await invoke('DELETE', path, { user: bob })).status).toBe(204);
    expect((await invoke('GET', `/${repo.body.id}`, { user: bob })).status).toBe(404);
    expect((await invoke('DELETE', `/${repo.body.id}/members/bundle-user`)).body.type).toMatch(/last-owner$/);
  });

  it('shares a document by link through the bundled link handlers: made, listed, opened without a token (with its password), revoked', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Linked', description: '' } });
    const doc = await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'l.txt', content: 'shared' } });
    const made = await invoke('POST', `/document/${doc.body.id}/links`, { body: { password: 'bundle pass' } });
    expect(made).toMatchObject({ status: 201, headers: { location: `/links/${made.body.id}` }, body: { hasPassword: true } });
    const { token } = made.body as { token: string };
    expect((await invoke('GET', `/links/${made.body.id}`)).body).not.toHaveProperty('token');
    expect((await invoke('GET', `/document/${doc.body.id}/links`)).body.items).toHaveLength(1);
    expect((await invoke('GET', `/${repo.body.id}/links`)).body.items).toHaveLength(1);
    const password = { 'link-password': 'bundle pass' };
    expect(await invoke('GET', `/s/${token}`, { headers: password })).toMatchObject({
      status: 200,
      headers: { 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer' },
      body: { name: 'l.txt', size: 6 },
    });
    expect((await invoke('GET', `/s/${token}`)).headers['www-authenticate']).toBe('Link-Password');
    expect(await invoke('GET', `/s/${token}/content`, { headers: password })).toMatchObject({ status: 200, body: 'shared' });
    expect((await invoke('DELETE', `/links/${made.body.id}`)).status).toBe(204);
    expect((await invoke('GET', `/s/${token}`, { headers: password })).status).toBe(404);
  });

  it('serves and writes content as bytes through the bundled content handlers, with the bucket', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Content', description: '' } });
    const doc = await invoke('POST', '/document', { body: { folderId: repo.body.rootFolderId, name: 'a.txt', content: 'héllo' } });
    const inline = await invoke('GET', `/document/${doc.body.id}/content`);
    expect(inline).toMatchObject({ status: 200, body: 'héllo', headers: { 'x-content-type-options': 'nosniff' } });
    const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff, 0x00]);
    const put = await invoke('PUT', `/document/${doc.body.id}/content`, { raw: bytes, headers: { 'content-type': 'application/pdf' } });
    expect(put).toMatchObject({ status: 200, body: { storage: 'file', size: bytes.length, version: 2 } });
    const file = await invoke('GET', `/document/${doc.body.id}/content`);
    expect(file.status).toBe(302);
    expect(Buffer.from(await (await fetch(file.headers.location!)).arrayBuffer()).equals(bytes)).toBe(true);
    const revision = await invoke('GET', `/document/${doc.body.id}/revisions/1/content`);
    expect(revision).toMatchObject({ status: 200, body: 'héllo' });
  });

  it('uploads a file through the bundled upload handlers, finished by the bundled finaliser on the Object Created event', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Uploaded', description: '' } });
    const folderId = repo.body.rootFolderId;
    const bytes = Buffer.from('%PDF-1.7 bundled');
    const started = await invoke('POST', '/uploads', {
      body: { folderId, name: 'scan.pdf', size: bytes.length, contentType: 'application/pdf' },
    });
    expect(started).toMatchObject({ status: 201, body: { partCount: 1, status: 'open' } });
    expect((await fetch(started.body.parts[0].url, { method: 'PUT', body: bytes })).status).toBe(200);
    expect((await invoke('GET', `/uploads/${started.body.id}`)).body).toMatchObject({ received: [{ number: 1, size: bytes.length }] });
    expect((await invoke('POST', `/uploads/${started.body.id}/parts`, { body: { numbers: [1] } })).status).toBe(200);
    const key = `files/${repo.body.id}/${started.body.documentId}/${started.body.id}`;
    await invokeBundle(finaliserFunction.name, {
      'detail-type': 'Object Created',
      source: 'aws.s3',
      detail: { bucket: { name: bucket?.bucket }, object: { key, size: bytes.length } },
    });
    expect((await invoke('GET', `/document/${started.body.documentId}`)).body).toMatchObject({
      storage: 'file',
      size: bytes.length,
      version: 1,
    });
    const completed = await invoke('POST', `/uploads/${started.body.id}/complete`);
    expect(completed).toMatchObject({ status: 200, body: { id: started.body.documentId, version: 1 } });
    const other = await invoke('POST', '/uploads', { body: { folderId, name: 'never.bin', size: 3 } });
    expect((await invoke('DELETE', `/uploads/${other.body.id}`)).status).toBe(204);
  });

  it('renames, moves and deletes through the bundled life-cycle handlers, with the trash', async () => {
    const repo = await invoke('POST', '/', { body: { name: 'Lived in by a bundle' } });
    const renamed = await invoke('PUT', `/${repo.body.id}`, { body: { name: 'Renamed by a bundle' }, headers: { 'if-match': '"1"' } });
    expect(renamed).toMatchObject({ status: 200, headers: { etag: '"2"' }, body: { name: 'Renamed by a bundle', version: 2 } });
    const root = repo.body.rootFolderId;
    const a = await invoke('POST', '/folder', { body: { parentId: root, name: 'a' } });
    const b = await invoke('POST', '/folder', { body: { parentId: root, name: 'b' } });
    const moved = await invoke('PUT', '/folder', { body: { id: b.body.id, parentId: a.body.id, name: 'b2' } });
    expect(moved).toMatchObject({ status: 200, body: { parentId: a.body.id, name: 'b2', version: 2 } });
    expect((await invoke('PUT', '/folder', { body: { id: a.body.id, parentId: b.body.id } })).status).toBe(409);

    const doc = await invoke('POST', '/document', { body: { folderId: root, name: 'gone.txt' } });
    expect((await invoke('DELETE', `/folder/${a.body.id}?recursive=true`)).status).toBe(204);
    expect((await invoke('DELETE', `/document/${doc.body.id}`)).status).toBe(204);
    const trash = await invoke('GET', `/${repo.body.id}/trash`);
    expect(trash.body.items.map((item: { id: string }) => item.id).sort()).toEqual([a.body.id, doc.body.id].sort());
    const restored = await invoke('POST', `/${repo.body.id}/trash/${a.body.id}/restore`, { body: { name: 'a again' } });
    expect(restored).toMatchObject({ status: 200, body: { id: a.body.id, name: 'a again' } });
    expect((await invoke('DELETE', `/${repo.body.id}/trash/${doc.body.id}`)).status).toBe(204);
    expect((await invoke('DELETE', `/${repo.body.id}/trash`)).status).toBe(204);
    expect((await invoke('GET', `/${repo.body.id}/trash`)).body.items).toEqual([]);

    expect((await invoke('DELETE', `/${repo.body.id}`)).status).toBe(204);
    expect((await invoke('GET', `/${repo.body.id}`)).status).toBe(404);
  });

  it('has exercised every route of the route table, the worker, the sweeper and the finaliser', () => {
    expect([...invoked].sort()).toEqual(
      allFunctions()
        .map((r) => r.name)
        .sort(),
    );
  });
});
