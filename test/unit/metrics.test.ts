/**
 * functions/core/metrics.ts without a service: what an invocation's lines hold, that concurrent
 * invocations (the local runtime serves several through one module) keep their metrics apart,
 * that a reused line starts empty, and that a metric recorded outside an invocation is dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmfLine, recordMetric, setMetricsSink, withMetrics } from '#core/metrics';

const lines: EmfLine[] = [];
beforeAll(() => {
  // As the stack gives the functions (without one Powertools warns on every line).
  process.env.POWERTOOLS_METRICS_NAMESPACE = 'DocumentsService';
  setMetricsSink((line) => lines.push(line));
});
afterAll(() => setMetricsSink(undefined));
const take = () => lines.splice(0, lines.length) as unknown as Record<string, any>[];
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('withMetrics', () => {
  it('publishes a route’s metrics on its line and a business event on a line by service alone, with the metadata on both', async () => {
    take();
    await withMetrics('POST /', { correlation_id: 'r1', caller: 'alice', absent: undefined }, async () => {
      recordMetric('answered2xx');
      recordMetric('repositoriesCreated');
    });
    const [route, service, ...more] = take();
    expect(more).toEqual([]);
    // By service alone: a `route` dimension would make each route's metrics custom metrics of their own (bench/cost-model.ts).
    expect(route!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
    expect(route).toMatchObject({ route: 'POST /', Answers2xx: 1, correlation_id: 'r1', caller: 'alice' });
    expect('absent' in route!).toBe(false);
    expect(service!._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
    expect(service).toMatchObject({ RepositoriesCreated: 1, correlation_id: 'r1', caller: 'alice' });
    expect(service!.route).toBeUndefined();
  });

  it('keeps concurrent invocations apart, and a reused line starts empty', async () => {
    take();
    await Promise.all(
      ['a', 'b', 'c'].map((id, i) =>
        withMetrics(`GET /${id}`, { correlation_id: id }, async () => {
          for (let n = 0; n <= i; n++) {
            recordMetric('answered4xx');
            await tick();
          }
        }),
      ),
    );
    const published = take();
    expect(published.map((line) => [line.route, line.correlation_id, [line.Answers4xx].flat().length])).toEqual([
      ['GET /a', 'a', 1],
      ['GET /b', 'b', 2],
      ['GET /c', 'c', 3],
    ]);
    await withMetrics('GET /d', {}, async () => recordMetric('answered2xx'));
    const [reused] = take();
    expect(reused).not.toHaveProperty('Answers4xx');
    expect(reused).not.toHaveProperty('correlation_id');
    expect(reused!._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'Answers2xx', Unit: 'Count' }]);
  });

  it('drops what is recorded outside an invocation, and publishes nothing for an invocation that recorded nothing', async () => {
    take();
    recordMetric('tasksFailed');
    await withMetrics(undefined, {}, async () => {});
    expect(take()).toEqual([]);
  });

  it('publishes what was recorded when the invocation throws', async () => {
    take();
    await expect(
      withMetrics(undefined, {}, async () => {
        recordMetric('tasksFailed');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(take()).toMatchObject([{ TasksFailed: 1 }]);
  });
});

describe('the EMF line', () => {
  it('is the line Powertools Metrics serializes for the same metrics (keys, their order, values), the timestamp aside', async () => {
    const { Metrics } = await import('@aws-lambda-powertools/metrics');
    take();
    await withMetrics('GET /document/{id}', { correlation_id: 'r9', caller: 'bob' }, async () => {
      recordMetric('answered2xx');
      recordMetric('handlerDuration', 3.5);
      recordMetric('handlerDuration', 4.25);
    });
    const [ours] = take();
    const reference = new Metrics({ serviceName: 'documents' });
    reference.addMetadata('correlation_id', 'r9');
    reference.addMetadata('caller', 'bob');
    reference.addMetadata('route', 'GET /document/{id}');
    reference.addMetric('Answers2xx', 'Count', 1);
    reference.addMetric('HandlerDuration', 'Milliseconds', 3.5);
    reference.addMetric('HandlerDuration', 'Milliseconds', 4.25);
    const theirs = reference.serializeMetrics() as unknown as Record<string, any>;
    const withoutTime = (line: Record<string, any>) => ({ ...line, _aws: { ...line._aws, Timestamp: 0 } });
    expect(JSON.stringify(withoutTime(ours!))).toBe(JSON.stringify(withoutTime(theirs)));
  });
});
