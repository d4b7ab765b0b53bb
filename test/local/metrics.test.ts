import { describe, expect, it } from 'vitest';
import { SERVICE_NAME, serviceMetrics } from '#core/metrics';
import { useService } from '#test/support/fixture';
import { Api, newUser, randomId } from '#test/support/http';

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

const ctx = useService({
  log: (line) => lines.push(line),
  printMetrics: true,
  seed: async (svc) => ({ user: await newUser(svc) }),
});

describe('a route’s line', () => {
  it('has its answer’s class, the handler’s duration and the first request’s cold start, by service alone (the route key and the correlation as metadata: no custom metric per route)', async () => {
    const res = await ctx.user.api.request('POST', '/', { json: { name: 'Metrics' } });
    expect(res.status).toBe(201);
    const [line, ...more] = routeLines('POST /');
    expect(more).toEqual([]);
    expect(line!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'DocumentsService',
        Dimensions: [['service']],
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
      caller: ctx.user.sub,
    });
    expect(line![serviceMetrics.handlerDuration.name]).toBeGreaterThan(0);
    // The first invocation of this process: locally every handler shares one module instance.
    expect(definitions(line!)).toMatchObject({ [serviceMetrics.coldStart.name]: 'Count' });
    // Per request: one answer class, the duration, and a cold start once per function instance.
    expect(Object.keys(definitions(line!)).sort()).toEqual(['Answers2xx', 'ColdStart', 'HandlerDuration']);
  });

  it('counts a 4xx as 4xx, with no cold start after the first request', async () => {
    const before = routeLines('GET /{id}').length;
    expect((await ctx.user.api.request('GET', `/${randomId()}`)).status).toBe(404);
    const line = routeLines('GET /{id}')[before]!;
    expect(definitions(line)).toEqual({ Answers4xx: 'Count', HandlerDuration: 'Milliseconds' });
    expect(line).toMatchObject({ route: 'GET /{id}', Answers4xx: 1, caller: ctx.user.sub });
  });

  it('is not written for a request the authorizer refuses: the function never runs (API Gateway’s own 4xx counts it)', async () => {
    const anonymous = new Api(ctx.svc.url);
    expect((await anonymous.request('GET', '/')).status).toBe(401);
    expect(routeLines('GET /').filter((emf) => emf.caller === undefined)).toEqual([]);
  });
});

describe('the business events', () => {
  it('a repository’s creation: counted by its route, on a line of its own by service only', async () => {
    const before = emitted().filter((emf) => serviceMetrics.repositoriesCreated.name in emf).length;
    const res = await ctx.user.api.request('POST', '/', { json: { name: 'Counted' } });
    const [line, ...more] = emitted()
      .filter((emf) => serviceMetrics.repositoriesCreated.name in emf)
      .slice(before);
    expect(more).toEqual([]);
    expect(line!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service']]);
    expect(line).toMatchObject({ RepositoriesCreated: 1, correlation_id: res.headers.get('apigw-requestid'), caller: ctx.user.sub });
    expect(line!.route).toBeUndefined();
  });

  it('folders and documents created, items trashed, and the feed’s lag: counted by the worker from the numbered changes', async () => {
    const repo = (await ctx.user.api.request('POST', '/', { json: { name: 'Events' } })).body as { rootFolderId: string };
    const folder = (await ctx.user.api.request('POST', '/folder', { json: { parentId: repo.rootFolderId, name: 'f' } })).body as {
      id: string;
    };
    const document = (await ctx.user.api.request('POST', '/document', { json: { folderId: folder.id, name: 'd.txt', content: 'x' } }))
      .body as {
      id: string;
    };
    expect((await ctx.user.api.request('DELETE', `/document/${document.id}`)).status).toBe(204);
    await ctx.svc.worker.settled(20_000);
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
