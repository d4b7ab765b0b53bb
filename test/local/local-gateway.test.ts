/**
 * The local gateway's invocation of a handler (lib/local/gateway.ts), on a loopback server with
 * stub handlers: the timeout answer, handlers that throw before returning a promise, and
 * requests with and without a body reaching the handler alike.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '#lib/local/gateway';
import type { TokenVerifier } from '#lib/local/jwt';
import type { LambdaHandler } from '#lib/local/lambda-event';

describe('the local gateway invoking handlers', () => {
  const lines: string[] = [];
  const errors: string[] = [];
  const bodies: (string | undefined)[] = [];
  let late: () => void = () => {};
  const handlers: Record<string, LambdaHandler> = {
    // Never answers in time; answers once the test lets it, after the 503 went out.
    'repositories/list-repositories': () => new Promise((resolve) => (late = () => resolve({ statusCode: 200, body: '[]' }))),
    // Throws before it has a promise to return.
    'repositories/get-repository': () => {
      throw new Error('synchronous failure');
    },
    'repositories/create-repository': async (event) => {
      bodies.push(event.body);
      return { statusCode: 201, body: '{}' };
    },
  };
  const verifier: TokenVerifier = {
    issuer: 'urn:test',
    audience: 'test',
    verify: async () => ({ ok: true, claims: { sub: 'alice', exp: 2 ** 31 } }),
  };
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const gateway = createGateway({
      verifier,
      loadHandler: async (name) => handlers[name]!,
      log: (line) => lines.push(line),
      logError: (line) => errors.push(line),
      handlerTimeoutMs: 200,
    });
    server = createServer(gateway);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const auth = { authorization: 'Bearer token' };

  it('answers 503 with Retry-After when the handler does not answer in time, and ignores its late answer', async () => {
    const res = await fetch(`${base}/`, { headers: auth });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(errors.at(-1)).toMatch(/did not answer within 200 ms/);
    late();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((line) => line.startsWith('GET / '))).toHaveLength(1);
  });

  it('answers 500 when the handler throws before returning a promise', async () => {
    const res = await fetch(`${base}/repo-1`, { headers: auth });
    expect(res.status).toBe(500);
    expect(await res.text()).not.toMatch(/synchronous failure/);
    expect(errors.at(-1)).toMatch(/threw: Error: synchronous failure/);
  });

  it('passes a body, an empty body and no body at all', async () => {
    bodies.length = 0;
    const post = (init: RequestInit) => fetch(`${base}/`, { method: 'POST', ...init, headers: { ...auth, ...init.headers } });
    expect((await post({ body: '{"a":1}', headers: { 'content-type': 'application/json' } })).status).toBe(201);
    expect((await post({ body: '', headers: { 'content-type': 'application/json' } })).status).toBe(201);
    expect((await post({})).status).toBe(201);
    // Chunked, without Content-Length.
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"b":'));
        controller.enqueue(new TextEncoder().encode('2}'));
        controller.close();
      },
    });
    expect((await post({ body: chunked, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit)).status).toBe(
      201,
    );
    expect(bodies).toEqual(['{"a":1}', undefined, undefined, '{"b":2}']);
  });
});
