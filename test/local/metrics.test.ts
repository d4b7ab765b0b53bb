/**
 * The embedded-metric (EMF) lines the functions emit, through the local runtime with its switch
 * on (`printMetrics`, PRINT_METRICS=true for `npm start`): names, units, dimensions and the
 * correlation metadata of a route's line, and the worker's business events and feed lag. This
 * is the contract the stack's alarms and dashboard read (lib/stack/monitoring.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAME, serviceMetrics } from '#core/metrics';
import { type LocalService, startLocalService } from '#lib/local/service';
import { createTestTable, dropTestTable } from '#test/support/dynamodb';
import { Api, newUser, randomId, type User } from '#test/support/http';

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [key: string]: unknown;
}

const lines: string[] = [];
const emitted = (): Emf[] => lines.filter((line) => line.startsWith('metrics ')).map((line) => JSON.parse(line.slice('metrics '.length)));
const routeLines = (route: string) => emitted().filter((emf) => emf.route === route);
const definitions = (emf: Emf) => Object.fromEntries(emf._aws.CloudWatchMetrics[0]!.Metrics.map((m) => [m.Name, m.Unit]));

let svc: LocalService;
let table: { endpoint: string; tableName: string };
let dataDir: string;
let user: User;

beforeAll(async () => {
  table = await createTestTable();
  dataDir = await mkdtemp(join(tmpdir(), 'documents-metrics-'));
  svc = await startLocalService({
    port: 0,
    dataDir,
    tableName: table.tableName,
    dynamodbEndpoint: table.endpoint,
    log: (line) => lines.push(line),
    printMetrics: true,
  });
  user = await newUser(svc);
});

afterAll(async () => {
  await svc?.stop();
  await dropTestTable(table.endpoint, table.tableName).catch(() => {});
  await rm(dataDir, { recursive: true, force: true });
});

describe('a route’s line', () => {
  it('has its answer’s class, the handler’s duration and the first request’s cold start, by service and route, with the correlation as metadata', async () => {
    const res = await user.api.request('POST', '/', { json: { name: 'Metrics' } });
    expect(res.status).toBe(201);
    const [line, ...more] = routeLines('POST /');
    expect(more).toEqual([]);
    expect(line!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'DocumentsService',
        Dimensions: [['service', 'route']],
        Metrics: expect.arrayContaining([
          { Name: serviceMetrics.answered2xx.name, Unit: 'Count' },
          { Name: serviceMetrics.handlerDuration.name, Unit: 'Milliseconds' },
        ]),
      },
    ]);
    expect(line).toMatchObject({
      service: SERVICE_NAME,
      route: 'POST /',
      [serviceMetrics.answered2xx.name]: 1,
      correlation_id: res.headers.get('apigw-requestid'),
      caller: user.sub,
    });
    expect(line![serviceMetrics.handlerDuration.name]).toBeGreaterThan(0);
    // The first invocation of this process: locally every handler shares one module instance.
    expect(definitions(line!)).toMatchObject({ [serviceMetrics.coldStart.name]: 'Count' });
    // Per request: one answer class, the duration, and a cold start once per function instance.
    expect(Object.keys(definitions(line!)).sort()).toEqual(['Answers2xx', 'ColdStart', 'HandlerDuration']);
  });

  it('counts a 4xx as 4xx, with no cold start after the first request', async () => {
    const before = routeLines('GET /{id}').length;
    expect((await user.api.request('GET', `/${randomId()}`)).status).toBe(404);
    const line = routeLines('GET /{id}')[before]!;
    expect(definitions(line)).toEqual({ Answers4xx: 'Count', HandlerDuration: 'Milliseconds' });
    expect(line).toMatchObject({ route: 'GET /{id}', Answers4xx: 1, caller: user.sub });
  });

  it('is not written for a request the authorizer refuses: the function never runs (API Gateway’s own 4xx counts it)', async () => {
    const anonymous = new Api(svc.url);
    expect((await anonymous.request('GET', '/')).status).toBe(401);
    expect(routeLines('GET /').filter((emf) => emf.caller === undefined)).toEqual([]);
  });
});

describe('the business events', () => {
  it('a repository’s creation: counted by its route, on a line of its own by service only', async () => {
    const before = emitted().filter((emf) => serviceMetrics.repositoriesCreated.name in emf).length;
    const res = await user.api.request('POST', '/', { json: { name: 'Counted' } });
    const [line, ...more] = emitted()
      .filter((emf) => serviceMetrics.repositoriesCreated.name in emf)
      .slice(before);
    expect(more).toEqual([]);
    expect(line!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
    expect(line).toMatchObject({ RepositoriesCreated: 1, correlation_id: res.headers.get('apigw-requestid'), caller: user.sub });
    expect(line!.route).toBeUndefined();
  });

  it('folders and documents created, items trashed, and the feed’s lag: counted by the worker from the numbered changes', async () => {
    const repo = (await user.api.request('POST', '/', { json: { name: 'Events' } })).body as { rootFolderId: string };
    const folder = (await user.api.request('POST', '/folder', { json: { parentId: repo.rootFolderId, name: 'f' } })).body as { id: string };
    const document = (await user.api.request('POST', '/document', { json: { folderId: folder.id, name: 'd.txt', content: 'x' } })).body as {
      id: string;
    };
    expect((await user.api.request('DELETE', `/document/${document.id}`)).status).toBe(204);
    await svc.worker.settled(20_000);
    const worker = emitted().filter((emf) => emf.route === undefined && serviceMetrics.feedLag.name in emf);
    expect(worker.length).toBeGreaterThan(0);
    const total = (name: string) =>
      worker.reduce((sum, line) => sum + [line[name] ?? []].flat().reduce((a: number, b) => a + Number(b), 0), 0);
    for (const line of worker) {
      expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
      expect(definitions(line)).toMatchObject({ FeedLag: 'Milliseconds' });
    }
    expect({ folders: total('FoldersCreated'), documents: total('DocumentsCreated'), trashed: total('ItemsTrashed') }).toEqual({
      folders: 1,
      documents: 1,
      trashed: 1,
    });
    expect([worker.flatMap((line) => [line.FeedLag]).flat()].flat().every((lag) => typeof lag === 'number' && lag >= 0)).toBe(true);
  });
});
