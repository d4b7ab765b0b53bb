/**
 * functions/core/logger.ts through an endpoint, without a service: the `request` line of each
 * invocation carries its own Lambda context and correlation keys even when invocations overlap (the
 * local runtime serves concurrent requests through one module instance); the lines keep
 * Powertools' keys and order; errors are written as Powertools writes them; the level filters.
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { endpoint } from '#core/http/endpoint';
import type { Operation } from '#core/http/operation';
import { logger } from '#core/logger';
import { setMetricsSink } from '#core/metrics';

beforeAll(() => {
  process.env.LOG_LEVEL = 'INFO';
  setMetricsSink(() => {});
});
afterEach(() => vi.restoreAllMocks());

/** The lines written to stdout and stderr while `work` runs, parsed. */
async function written(work: () => Promise<unknown>) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  try {
    await work();
  } finally {
    vi.restoreAllMocks();
  }
  const parse = (text: string[]) =>
    text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
  return { stdout: parse(out), stderr: parse(err) };
}

const operation = {
  tag: 'Documents',
  access: 'viewer',
  example: { request: () => ({}) },
  summary: 'A test route',
  success: { status: 204, description: 'Done.' },
} as const satisfies Operation;

const eventOf = (requestId: string, sub: string) =>
  ({
    version: '2.0',
    routeKey: 'GET /test',
    rawPath: '/test',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      requestId,
      routeKey: 'GET /test',
      http: { method: 'GET', path: '/test' },
      authorizer: { jwt: { claims: { sub }, scopes: null } },
    },
  }) as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;

const contextOf = (awsRequestId: string) =>
  ({
    functionName: 'Test',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:Test',
    memoryLimitInMB: '512',
    awsRequestId,
  }) as unknown as Context;

describe('logger', () => {
  it('gives each of overlapping invocations its own context and correlation keys', async () => {
    const ticks = (n: number) => new Promise((resolve) => setTimeout(resolve, n));
    const handler = endpoint(operation, async ({ caller }) => {
      await ticks(caller.userId === 'alice' ? 20 : 1);
      logger.info('inside', { who: caller.userId });
    });
    const { stdout } = await written(() =>
      Promise.all([handler(eventOf('req-a', 'alice'), contextOf('aws-a')), handler(eventOf('req-b', 'bob'), contextOf('aws-b'))]),
    );
    const lines = stdout.map((line) => [line.message, line.who, line.correlation_id, line.caller, line.function_request_id, line.status]);
    expect(lines).toEqual([
      ['inside', 'bob', 'req-b', 'bob', 'aws-b', undefined],
      ['request', undefined, 'req-b', 'bob', 'aws-b', 204],
      ['inside', 'alice', 'req-a', 'alice', 'aws-a', undefined],
      ['request', undefined, 'req-a', 'alice', 'aws-a', 204],
    ]);
    // Outside any invocation, none of theirs.
    const after = await written(async () => logger.info('outside'));
    expect(after.stdout[0]).not.toHaveProperty('correlation_id');
    expect(after.stdout[0]).not.toHaveProperty('function_request_id');
  });

  it("writes Powertools' keys in Powertools' order, then the line's own", async () => {
    const handler = endpoint(operation, async () => {});
    const { stdout } = await written(() => handler(eventOf('req-c', 'carol'), contextOf('aws-c')));
    expect(Object.keys(stdout[0]!)).toEqual([
      'level',
      'message',
      'timestamp',
      'service',
      'cold_start',
      'function_arn',
      'function_memory_size',
      'function_name',
      'function_request_id',
      'sampling_rate',
      'correlation_id',
      'caller',
      'route',
      'method',
      'path',
      'status',
      'durationMs',
      'dynamodb',
    ]);
    expect(stdout[0]).toMatchObject({ level: 'INFO', service: 'documents', function_name: 'Test', function_memory_size: '512' });
  });

  it('writes an error with its name, location, message, stack and cause, to stderr', async () => {
    const cause = new RangeError('deeper');
    const { stdout, stderr } = await written(async () => logger.error('failed', { error: new TypeError('broken', { cause }), empty: '' }));
    expect(stdout).toEqual([]);
    expect(stderr[0]).toMatchObject({
      level: 'ERROR',
      message: 'failed',
      error: { name: 'TypeError', message: 'broken', cause: { name: 'RangeError', message: 'deeper' } },
    });
    expect(stderr[0]!.error.location).toMatch(/logger\.test\.ts:\d+$/);
    expect(stderr[0]!.error.stack).toContain('TypeError: broken');
    expect(stderr[0]).not.toHaveProperty('empty'); // Powertools leaves out a line's empty keys
  });

  it('reads its level when it first writes, not when it is imported (the local runtime sets LOG_LEVEL after importing it)', async () => {
    const level = process.env.LOG_LEVEL;
    try {
      delete process.env.LOG_LEVEL;
      vi.resetModules();
      const fresh = (await import('#core/logger')).logger;
      process.env.LOG_LEVEL = 'WARN'; // as lib/local/service.ts does, once its handlers' modules are loaded
      const { stdout, stderr } = await written(async () => {
        fresh.info('dropped');
        fresh.warn('kept');
      });
      expect(stdout).toEqual([]);
      expect(stderr.map((line) => line.message)).toEqual(['kept']);
    } finally {
      process.env.LOG_LEVEL = level;
    }
  });
});
