/**
 * The local gateway's invocation of a handler (lib/local/gateway.ts), on a loopback server with
 * stub handlers: the timeout answer, handlers that throw before returning a promise, requests
 * with and without a body reaching the handler alike, and Lambda's 6 MB payload limit each way.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '#core/http/request-guards';
import { MAX_CONTENT_BYTES } from '#core/requests';
import { memorySizeOf, timeoutSecondsOf } from '#lib/function-settings';
import { createGateway, LAMBDA_REQUEST_PAYLOAD_BYTES, LAMBDA_RESPONSE_PAYLOAD_BYTES } from '#lib/local/gateway';
import type { TokenVerifier } from '#lib/local/jwt';
import type { LambdaHandler } from '#lib/local/lambda-event';

describe('the local gateway invoking handlers', () => {
  const lines: string[] = [];
  const errors: string[] = [];
  const bodies: (string | undefined)[] = [];
  let late: () => void = () => {};
  /** The size of each event the create handler was invoked with. */
  const eventSizes: number[] = [];
  let answerBytes = 0;
  const handlers: Record<string, LambdaHandler> = {
    // Never answers in time; answers once the test lets it, after the 503 went out.
    'repositories/list-repositories': () => new Promise((resolve) => (late = () => resolve({ statusCode: 200, body: '[]' }))),
    // Throws before it has a promise to return.
    'repositories/get-repository': () => {
      throw new Error('synchronous failure');
    },
    'repositories/create-repository': async (event) => {
      bodies.push(event.body);
      eventSizes.push(Buffer.byteLength(JSON.stringify(event)));
      return { statusCode: 201, body: '{}' };
    },
    // Says how long its context says it has left.
    'repositories/get-root-folder': async (_event, context) => ({
      statusCode: 200,
      body: JSON.stringify({ remainingMs: context.getRemainingTimeInMillis(), memory: context.memoryLimitInMB }),
    }),
    // Answers a JSON body of `answerBytes` characters that escape to six bytes each (`\u0001`).
    'documents/get-document': async () => ({
      statusCode: 200,
      body: JSON.stringify({ content: '\u0001'.repeat(answerBytes) }),
    }),
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

  it('answers 500 as API Gateway does when the function times out, and ignores its late answer', async () => {
    const res = await fetch(`${base}/`, { headers: auth });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'Internal Server Error' });
    expect(errors.at(-1)).toMatch(/did not answer within 200 ms \(ListRepositories: Task timed out after 0.20 seconds\)/);
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

  describe("Lambda's 6 MB payload limit", () => {
    const post = (body: string) => fetch(`${base}/`, { method: 'POST', body, headers: { ...auth, 'content-type': 'application/json' } });
    /** Valid JSON of `bytes` bytes whose string is all `\\` escapes: each of its bytes is two in the event. */
    const escapedJson = (bytes: number) => `{"content":"${'\\\\'.repeat((bytes - 14) / 2)}"}`;

    it("keeps every request within the service's own limits under it: the worst escaping doubles the body", async () => {
      // Content at its limit (256 KiB) of characters JSON writes as \u0001: 1.5 MiB of body.
      const content = JSON.stringify({ content: '\u0001'.repeat(MAX_CONTENT_BYTES) });
      expect(Buffer.byteLength(content)).toBeLessThan(MAX_REQUEST_BODY_BYTES);
      // A body at the service's limit (2 MiB) whose every byte is escaped again in the event.
      const widest = escapedJson(MAX_REQUEST_BODY_BYTES);
      expect(Buffer.byteLength(widest)).toBe(MAX_REQUEST_BODY_BYTES);
      eventSizes.length = 0;
      for (const body of [content, widest]) expect((await post(body)).status).toBe(201);
      expect(eventSizes[0]).toBeGreaterThan(6 * MAX_CONTENT_BYTES);
      expect(eventSizes[1]).toBeGreaterThan(2 * MAX_REQUEST_BODY_BYTES);
      for (const size of eventSizes) expect(size).toBeLessThan(LAMBDA_REQUEST_PAYLOAD_BYTES);
    });

    it('answers 500 as API Gateway does, without invoking the function, when the event is over it', async () => {
      // 3.5 MiB: under API Gateway's 10 MB, 7 MiB once escaped in the event.
      const body = escapedJson(3.5 * 1024 * 1024);
      eventSizes.length = 0;
      const res = await post(body);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ message: 'Internal Server Error' });
      expect(eventSizes).toEqual([]);
      expect(errors.at(-1)).toMatch(/CreateRepository not invoked: its event is \d+ bytes, over Lambda's 6291456/);
    });

    it('answers 500 as API Gateway does when the result is over it, and passes one under it', async () => {
      answerBytes = 1_000_000; // 6 MB of \u0001, escaped again in the result: over
      const over = await fetch(`${base}/document/doc-1`, { headers: auth });
      expect(over.status).toBe(500);
      expect(await over.json()).toEqual({ message: 'Internal Server Error' });
      expect(errors.at(-1)).toMatch(/answered \d+ bytes, over Lambda's 6291556/);
      answerBytes = 800_000; // 4.8 MB of body, 5.6 MB as a result: under
      const under = await fetch(`${base}/document/doc-1`, { headers: auth });
      expect(under.status).toBe(200);
      expect((await under.arrayBuffer()).byteLength).toBe(6 * 800_000 + 14);
      expect(LAMBDA_RESPONSE_PAYLOAD_BYTES).toBeGreaterThan(LAMBDA_REQUEST_PAYLOAD_BYTES);
    });
  });

  it("gives a handler its function's deployed timeout and memory (lib/function-settings.ts), not API Gateway's 30 s", async () => {
    const deployed = createServer(
      createGateway({ verifier, loadHandler: async (name) => handlers[name]!, log: () => {}, logError: () => {} }),
    );
    await new Promise<void>((resolve) => deployed.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(deployed.address() as AddressInfo).port}/repo-1/folder`, { headers: auth });
      const { remainingMs, memory } = (await res.json()) as { remainingMs: number; memory: string };
      expect(remainingMs).toBeLessThanOrEqual(timeoutSecondsOf('GetRootFolder') * 1_000);
      expect(remainingMs).toBeGreaterThan(timeoutSecondsOf('GetRootFolder') * 1_000 - 5_000);
      expect(timeoutSecondsOf('GetRootFolder')).toBe(20);
      expect(memory).toBe(String(memorySizeOf('GetRootFolder')));
    } finally {
      await new Promise<void>((resolve) => deployed.close(() => resolve()));
    }
  });
});
