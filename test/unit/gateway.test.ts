import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedMethods, routes } from '#functions/routes';
import { bearerToken, createGateway } from '#lib/local/gateway';
import type { TokenVerifier } from '#lib/local/jwt';
import {
  buildContext,
  buildEvent,
  foldHeaders,
  isTextContentType,
  type LambdaHandler,
  parseQuery,
  type RawRequest,
  resolveRoute,
  toGatewayResponse,
} from '#lib/local/lambda-event';

const request = (over: Partial<RawRequest> = {}): RawRequest => ({
  method: 'GET',
  url: '/',
  rawHeaders: ['Host', '127.0.0.1:3000', 'User-Agent', 'curl/8'],
  body: Buffer.alloc(0),
  sourceIp: '127.0.0.1',
  ...over,
});

describe('route matching (functions/routes.ts)', () => {
  const routeOf = (method: string, path: string) => {
    const r = resolveRoute(method, path);
    return r.kind === 'route' ? { key: r.routeKey, params: r.pathParameters } : '$default';
  };

  it('matches every declared route with its own path', () => {
    for (const route of routes) {
      const r = resolveRoute(route.method, route.path.replace('{id}', 'abc'));
      expect(r.kind === 'route' && r.route.name).toBe(route.name);
    }
  });

  it('prefers literal segments: /folder/{id} over /{id}/folder, /folder/x never reaches /{id}', () => {
    expect(routeOf('GET', '/folder/folder')).toEqual({ key: 'GET /folder/{id}', params: { id: 'folder' } });
    expect(routeOf('GET', '/abc/folder')).toEqual({ key: 'GET /{id}/folder', params: { id: 'abc' } });
    expect(routeOf('GET', '/folder/x')).toEqual({ key: 'GET /folder/{id}', params: { id: 'x' } });
    expect(routeOf('GET', '/folder/x/folders')).toEqual({ key: 'GET /folder/{id}/folders', params: { id: 'x' } });
    expect(routeOf('GET', '/folder/x/documents')).toEqual({ key: 'GET /folder/{id}/documents', params: { id: 'x' } });
    expect(routeOf('GET', '/document/d1')).toEqual({ key: 'GET /document/{id}', params: { id: 'd1' } });
    expect(routeOf('GET', '/')).toEqual({ key: 'GET /', params: {} });
  });

  it('matches GET /folder and GET /document as GET /{id}, as API Gateway does', () => {
    expect(routeOf('GET', '/folder')).toEqual({ key: 'GET /{id}', params: { id: 'folder' } });
    expect(routeOf('GET', '/document')).toEqual({ key: 'GET /{id}', params: { id: 'document' } });
  });

  it('sends unmatched requests to $default: 404 (unknown path) vs 405 (known path)', () => {
    // $default, and the fallback decides with allowedMethods: empty is 404, else 405 + Allow.
    expect(routeOf('POST', '/folder/x')).toBe('$default');
    expect(allowedMethods('/folder/x')).toEqual(['DELETE', 'GET']);
    expect(routeOf('PATCH', '/document')).toBe('$default');
    expect(allowedMethods('/document')).toEqual(['DELETE', 'GET', 'POST', 'PUT']); // GET, PUT, DELETE via /{id}
    expect(routeOf('DELETE', '/')).toBe('$default');
    expect(allowedMethods('/')).toEqual(['GET', 'POST']);
    expect(routeOf('GET', '/a/b/c/d')).toBe('$default');
    expect(allowedMethods('/a/b/c/d')).toEqual([]);
    expect(routeOf('GET', '/folder/x/')).toBe('$default'); // trailing slash: another path
    expect(routeOf('GET', '//')).toBe('$default');
    const fallback = resolveRoute('OPTIONS', '/');
    expect(fallback).toMatchObject({ kind: 'fallback', routeKey: '$default', route: { handler: 'fallback' } });
  });

  it('decodes path parameters', () => {
    expect(routeOf('GET', '/document/a%20b')).toEqual({ key: 'GET /document/{id}', params: { id: 'a b' } });
  });

  it('routes the decoded path, as API Gateway does: %2F is a `/`, so no parameter holds one', () => {
    const members = 'PUT /{id}/members/{userId}';
    expect(routeOf('PUT', '/r/members/auth0%7Cbob%40x.com%3A%20Zo%C3%AB')).toEqual({
      key: members,
      params: { id: 'r', userId: 'auth0|bob@x.com: Zoë' },
    });
    expect(routeOf('PUT', '/r/members/auth0|bob@x.com:')).toEqual({ key: members, params: { id: 'r', userId: 'auth0|bob@x.com:' } });
    expect(routeOf('PUT', '/r/members/a+b%2Bc%25')).toEqual({ key: members, params: { id: 'r', userId: 'a+b+c%' } });
    expect(routeOf('PUT', '/r/members/a%2Fb')).toBe('$default');
    expect(routeOf('GET', '/r%2Ffolder')).toEqual({ key: 'GET /{id}/folder', params: { id: 'r' } });
    expect(routeOf('GET', '/%66older/x')).toEqual({ key: 'GET /folder/{id}', params: { id: 'x' } });
    // Not valid percent-encoding: the segment as sent.
    expect(routeOf('PUT', '/r/members/%E0%A4%A')).toEqual({ key: members, params: { id: 'r', userId: '%E0%A4%A' } });
  });
});

describe('buildEvent', () => {
  const claims = { sub: 'alice', iss: 'urn:x', aud: 'documents-api', exp: 1787996002, groups: ['a', 'b'] };

  it('builds a payload 2.0 event for a matched route', () => {
    const now = new Date(Date.UTC(2020, 2, 12, 19, 3, 58, 123));
    const resolution = resolveRoute('GET', '/folder/f1/documents');
    const event = buildEvent(request({ url: '/folder/f1/documents?limit=10&nextToken=a%2Bb', requestId: 'rid', now }), resolution, claims);
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /folder/{id}/documents',
      rawPath: '/folder/f1/documents',
      rawQueryString: 'limit=10&nextToken=a%2Bb',
      queryStringParameters: { limit: '10', nextToken: 'a+b' },
      pathParameters: { id: 'f1' },
      isBase64Encoded: false,
      requestContext: {
        accountId: expect.stringMatching(/^\d{12}$/),
        apiId: expect.any(String),
        domainName: '127.0.0.1',
        domainPrefix: '127',
        http: { method: 'GET', path: '/folder/f1/documents', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'curl/8' },
        requestId: 'rid',
        routeKey: 'GET /folder/{id}/documents',
        stage: '$default',
        time: '12/Mar/2020:19:03:58 +0000',
        timeEpoch: now.getTime(),
        authorizer: {
          jwt: {
            claims: { sub: 'alice', iss: 'urn:x', aud: 'documents-api', exp: '1787996002', groups: '[a b]' },
            scopes: null,
          },
        },
      },
    });
    expect(event.body).toBeUndefined();
    expect(event.cookies).toBeUndefined();
    expect(event.headers).toMatchObject({
      host: '127.0.0.1:3000',
      'user-agent': 'curl/8',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-port': '3000',
    });
    expect(event.headers['x-amzn-trace-id']).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/);
  });

  it('leaves out what is absent: query, path parameters, authorizer on $default', () => {
    const event = buildEvent(request({ url: '/a/b/c' }), resolveRoute('GET', '/a/b/c'));
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.routeKey).toBe('$default');
    expect(event.rawQueryString).toBe('');
    expect(event.queryStringParameters).toBeUndefined();
    expect(event.pathParameters).toBeUndefined();
    expect('authorizer' in event.requestContext).toBe(false);
    const root = buildEvent(request({ url: '/?' }), resolveRoute('GET', '/'), claims);
    expect(root.pathParameters).toBeUndefined();
    expect(root.queryStringParameters).toBeUndefined();
  });

  it('gives every request its own id', () => {
    const a = buildEvent(request(), resolveRoute('GET', '/'), claims);
    const b = buildEvent(request(), resolveRoute('GET', '/'), claims);
    expect(a.requestContext.requestId).not.toBe(b.requestContext.requestId);
  });

  it('passes text bodies as text and anything else base64-encoded', () => {
    const json = buildEvent(
      request({ method: 'POST', rawHeaders: ['Content-Type', 'application/json; charset=utf-8'], body: Buffer.from('{"name":"é"}') }),
      resolveRoute('POST', '/'),
      claims,
    );
    expect(json.body).toBe('{"name":"é"}');
    expect(json.isBase64Encoded).toBe(false);

    const bytes = Buffer.from([0, 1, 2, 255]);
    const binary = buildEvent(
      request({ method: 'POST', rawHeaders: ['Content-Type', 'application/octet-stream'], body: bytes }),
      resolveRoute('POST', '/'),
      claims,
    );
    expect(binary.isBase64Encoded).toBe(true);
    expect(Buffer.from(binary.body!, 'base64')).toEqual(bytes);

    const untyped = buildEvent(request({ method: 'POST', rawHeaders: [], body: Buffer.from('x') }), resolveRoute('POST', '/'), claims);
    expect(untyped).toMatchObject({ body: 'eA==', isBase64Encoded: true });
  });

  it('classifies content types like API Gateway', () => {
    for (const type of [
      'text/plain',
      'text/html; charset=utf-8',
      'application/json',
      'APPLICATION/JSON',
      'application/problem+json',
      'application/merge-patch+json',
      'application/xml',
      'application/x-www-form-urlencoded',
    ]) {
      expect(isTextContentType(type), type).toBe(true);
    }
    for (const type of [undefined, '', 'application/octet-stream', 'image/png', 'multipart/form-data; boundary=x', 'application/jsonx']) {
      expect(isTextContentType(type), String(type)).toBe(false);
    }
  });
});

describe('header and query folding', () => {
  it('lower-cases names, joins repeated headers with commas, moves cookies out', () => {
    const { headers, cookies } = foldHeaders([
      'X-Thing',
      'a',
      'x-thing',
      'b',
      'Accept',
      'application/json',
      'Cookie',
      'a=1; b=2',
      'cookie',
      'c=3',
      'If-Match',
      '"1"',
      'IF-MATCH',
      '"2"',
    ]);
    expect(headers).toEqual({ 'x-thing': 'a,b', accept: 'application/json', 'if-match': '"1","2"' });
    expect(cookies).toEqual(['a=1', 'b=2', 'c=3']);
  });

  it('decodes the query and joins repeated parameters with commas', () => {
    expect(parseQuery('')).toBeUndefined();
    expect(parseQuery('a=1&a=2&b=x%20y&c=')).toEqual({ a: '1,2', b: 'x y', c: '' });
    expect(parseQuery('flag')).toEqual({ flag: '' });
  });

  it('puts cookies into the event', () => {
    const event = buildEvent(request({ rawHeaders: ['Cookie', 'session=abc; theme=dark'] }), resolveRoute('GET', '/'));
    expect(event.cookies).toEqual(['session=abc', 'theme=dark']);
    expect(event.headers.cookie).toBeUndefined();
  });
});

describe('the rest of the invocation', () => {
  it('reads the token with or without the Bearer prefix, as API Gateway does', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer  abc')).toBe('abc');
    expect(bearerToken('abc')).toBe('abc');
  });

  it('builds a Lambda context with a deadline', () => {
    const context = buildContext('GetFolder', 'req-1', 10_000);
    expect(context).toMatchObject({ functionName: 'GetFolder', awsRequestId: 'req-1', functionVersion: '$LATEST' });
    expect(context.invokedFunctionArn).toMatch(/^arn:aws:lambda:[a-z0-9-]+:\d{12}:function:GetFolder$/);
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(9_000);
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(10_000);
  });

  it('accepts only structured results', () => {
    expect(toGatewayResponse({ statusCode: 204 })).toEqual({ statusCode: 204, headers: {}, cookies: [], body: Buffer.alloc(0) });
    expect(
      toGatewayResponse({ statusCode: 200, headers: { 'Content-Type': 'text/plain', 'X-N': 1 }, body: 'hi', cookies: ['a=1'] }),
    ).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'text/plain', 'x-n': '1' },
      cookies: ['a=1'],
      body: Buffer.from('hi'),
    });
    expect(
      toGatewayResponse({ statusCode: 200, body: Buffer.from('bin').toString('base64'), isBase64Encoded: true })?.body.toString(),
    ).toBe('bin');
    expect(toGatewayResponse({ statusCode: 200, body: '{}' })?.headers['content-type']).toBe('application/json');
    for (const garbage of [
      undefined,
      null,
      'text',
      42,
      {},
      { statusCode: '200' },
      { statusCode: 99 },
      { statusCode: 200.5 },
      { statusCode: 200, body: {} },
      { statusCode: 200, headers: { a: {} } },
      { statusCode: 200, cookies: 'a=1' },
    ]) {
      expect(toGatewayResponse(garbage), JSON.stringify(garbage)).toBeUndefined();
    }
  });
});

describe('createGateway (stub handlers on a loopback server)', () => {
  const calls: { name: string; event: Parameters<LambdaHandler>[0] }[] = [];
  const lines: string[] = [];
  const errors: string[] = [];
  const handlers: Record<string, LambdaHandler> = {
    fallback: async (event) => ({ statusCode: 404, body: JSON.stringify({ fallback: event.rawPath }) }),
    'repositories/list-repositories': async () => ({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '[]',
      cookies: ['a=1', 'b=2'],
    }),
    'repositories/create-repository': async (event) => ({
      statusCode: 201,
      body: JSON.stringify({ body: event.body, length: event.body?.length }),
    }),
    'repositories/get-repository': async () => {
      throw new Error('secret internals');
    },
    'repositories/get-root-folder': async () => 'not a structured result' as never,
    'documents/delete-document': async () => ({ statusCode: 204, body: 'ignored' }),
  };
  const verifier: TokenVerifier = {
    issuer: 'urn:test',
    audience: 'test',
    verify: async (token) =>
      token === 'good' ? { ok: true, claims: { sub: 'alice', exp: 1 } } : { ok: false, reason: 'the token is malformed' },
  };
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const gateway = createGateway({
      verifier,
      loadHandler: async (name) => {
        const handler = handlers[name];
        if (!handler) throw new Error(`no stub for ${name}`);
        return async (event, context) => {
          calls.push({ name: context.functionName, event });
          return handler(event, context);
        };
      },
      publicDocuments: (path) => (path === '/.well-known/jwks.json' ? { keys: [] } : undefined),
      log: (line) => lines.push(line),
      logError: (line) => errors.push(line),
      maxBodyBytes: 1024,
    });
    server = createServer(gateway);
    server.on('checkContinue', gateway.checkContinue);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

  it('answers 401 problem+json without a token, and never calls the handler', async () => {
    calls.length = 0;
    const res = await get('/');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await res.json()).toMatchObject({
      type: 'urn:problem-type:documents:unauthorized',
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String),
    });
    expect(calls).toHaveLength(0);
  });

  it('answers 401 with error="invalid_token" for a bad token', async () => {
    calls.length = 0;
    const res = await get('/', { authorization: 'Bearer bad' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(((await res.json()) as { detail: string }).detail).toMatch(/malformed/);
    expect(calls).toHaveLength(0);
  });

  it('calls the handler with the claims and writes its answer back, cookies included', async () => {
    calls.length = 0;
    const res = await get('/', { authorization: 'Bearer good' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('[]');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(res.headers.get('apigw-requestid')).toBeTruthy();
    expect(calls[0]!.name).toBe('ListRepositories');
    expect(calls[0]!.event.requestContext.authorizer.jwt.claims).toEqual({ sub: 'alice', exp: '1' });
  });

  it('sends unmatched requests to the fallback without a token', async () => {
    calls.length = 0;
    const res = await get('/a/b/c/d');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ fallback: '/a/b/c/d' });
    expect(calls[0]!.name).toBe('Fallback');
    expect(calls[0]!.event.routeKey).toBe('$default');
  });

  it('serves public documents before routing', async () => {
    const res = await get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ keys: [] });
  });

  it('passes the body through, and answers 413 past the limit without calling the handler', async () => {
    const ok = await fetch(`${base}/`, {
      method: 'POST',
      headers: { authorization: 'Bearer good', 'content-type': 'application/json' },
      body: 'x'.repeat(1024),
    });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { length: number }).length).toBe(1024);

    calls.length = 0;
    const big = await fetch(`${base}/`, {
      method: 'POST',
      headers: { authorization: 'Bearer good', 'content-type': 'application/json' },
      body: 'x'.repeat(1025),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ type: 'urn:problem-type:documents:payload-too-large', status: 413 });
    expect(calls).toHaveLength(0);

    // Without Content-Length (chunked): counted as it arrives.
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(400)));
        controller.close();
      },
    });
    const chunked = await fetch(`${base}/`, {
      method: 'POST',
      headers: { authorization: 'Bearer good' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers an oversized Expect: 100-continue request with 413 before the body is sent', async () => {
    const send = (length: number) =>
      new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
        let continued = false;
        const req = httpRequest(`${base}/`, {
          method: 'POST',
          headers: { authorization: 'Bearer good', 'content-type': 'application/json', 'content-length': length, expect: '100-continue' },
        });
        req.on('continue', () => {
          continued = true;
          req.end('z'.repeat(length));
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, continued }));
        });
        req.on('error', reject);
      });
    expect(await send(2000)).toEqual({ status: 413, continued: false });
    expect(await send(10)).toEqual({ status: 201, continued: true });
  });

  it('answers 500 problem+json without internals when the handler throws or returns garbage', async () => {
    errors.length = 0;
    for (const path of ['/abc', '/abc/folder']) {
      const res = await get(path, { authorization: 'Bearer good' });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ type: 'urn:problem-type:documents:internal', status: 500 });
      expect(text).not.toMatch(/secret|stack|at /);
    }
    expect(errors.join('\n')).toMatch(/secret internals/); // reported on the server side only
  });

  it('sends no body with a 204', async () => {
    const res = await fetch(`${base}/document/d1`, { method: 'DELETE', headers: { authorization: 'Bearer good' } });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('logs one line per request: method, path, status, milliseconds', async () => {
    lines.length = 0;
    await get('/a/b/c?x=1');
    expect(lines).toHaveLength(1);
    // `$default`, like a public route, is logged by its route key (a share link's path holds its token).
    expect(lines[0]).toMatch(/^\$default 404 \d+\.\dms$/);
  });
});
