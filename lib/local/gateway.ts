/**
 * A small local stand-in for API Gateway HTTP API (payload format 2.0), driven only by
 * functions/routes.ts: the same route table, the same `$default` fallback, a JWT authorizer
 * on every declared route but the public ones, and the same event shape the Lambda handlers
 * get on AWS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayEventRequestContextV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { HttpError, type ProblemKind, problemResponse } from '#core/errors';
import { fallbackRoute, findRoute, type Route } from '#functions/routes';
import { type AuthorizerJwt, type JwtClaims, type TokenVerifier, toAuthorizerJwt } from './jwt';

/** API Gateway's own payload limit; the handlers enforce the service's smaller one. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** A Lambda-like deadline for getRemainingTimeInMillis (API Gateway gives up at 30 s). */
const HANDLER_TIMEOUT_MS = 29_000;
const ACCOUNT_ID = '123456789012';
const API_ID = 'local';

export type LambdaHandler = (event: APIGatewayProxyEventV2WithJWTAuthorizer, context: Context) => Promise<unknown>;

/** An HTTP answer, before it is written to the socket. */
export interface GatewayResponse {
  statusCode: number;
  headers: Record<string, string>;
  cookies: string[];
  body: Buffer;
}

/** Which handler a request goes to. */
export type Resolution =
  | { kind: 'route'; route: Route; routeKey: string; pathParameters: Record<string, string> }
  | { kind: 'fallback'; route: typeof fallbackRoute; routeKey: '$default' };

export function resolveRoute(method: string, path: string): Resolution {
  const match = findRoute(method, path);
  if (!match) return { kind: 'fallback', route: fallbackRoute, routeKey: '$default' };
  return { kind: 'route', route: match.route, routeKey: `${match.route.method} ${match.route.path}`, pathParameters: match.pathParameters };
}

/** The parts of an HTTP request the event is built from (no sockets: unit-testable). */
export interface RawRequest {
  method: string;
  /** The request target as sent: path plus optional `?query`. */
  url: string;
  /** Node's `rawHeaders`: name, value, name, value... in arrival order. */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
  requestId?: string;
  now?: Date;
}

export function buildEvent(request: RawRequest, resolution: Resolution, claims?: JwtClaims): APIGatewayProxyEventV2WithJWTAuthorizer {
  const queryAt = request.url.indexOf('?');
  const rawPath = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? '' : request.url.slice(queryAt + 1);
  const { headers, cookies } = foldHeaders(request.rawHeaders);
  const now = request.now ?? new Date();
  const requestId = request.requestId ?? newApiGatewayRequestId();
  const host = headers.host ?? 'localhost';
  const domainName = host.replace(/:\d+$/, '');

  // Headers API Gateway adds on its way in.
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${request.sourceIp}` : request.sourceIp;
  headers['x-forwarded-proto'] ??= 'http';
  headers['x-forwarded-port'] ??= /:(\d+)$/.exec(host)?.[1] ?? '80';
  headers['x-amzn-trace-id'] ??= `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

  const requestContext: APIGatewayEventRequestContextV2 & { authorizer?: { jwt: AuthorizerJwt } } = {
    accountId: ACCOUNT_ID,
    apiId: API_ID,
    domainName,
    domainPrefix: domainName.split('.')[0] ?? domainName,
    http: {
      method: request.method,
      path: rawPath,
      protocol: 'HTTP/1.1',
      sourceIp: request.sourceIp,
      userAgent: headers['user-agent'] ?? '',
    },
    requestId,
    routeKey: resolution.routeKey,
    stage: '$default',
    time: formatRequestTime(now),
    timeEpoch: now.getTime(),
  };
  // The `$default` route has no authorizer, and then API Gateway sends no `authorizer` at all.
  if (claims) requestContext.authorizer = { jwt: toAuthorizerJwt(claims) };
  const event = {
    version: '2.0',
    routeKey: resolution.routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext,
    isBase64Encoded: false,
  } as APIGatewayProxyEventV2WithJWTAuthorizer;
  if (cookies.length > 0) event.cookies = cookies;
  const query = parseQuery(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (resolution.kind === 'route' && Object.keys(resolution.pathParameters).length > 0) {
    event.pathParameters = { ...resolution.pathParameters };
  }
  if (request.body.length > 0) {
    const text = isTextContentType(headers['content-type']);
    event.body = request.body.toString(text ? 'utf8' : 'base64');
    event.isBase64Encoded = !text;
  }
  return event;
}

/**
 * Payload 2.0 headers: names lower-cased, repeated headers joined with commas. Cookies are
 * taken out of `headers` and passed as the `cookies` array, one entry per cookie.
 */
export function foldHeaders(rawHeaders: readonly string[]): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((c) => c.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return { headers, cookies };
}

/** Decoded query parameters, repeated ones joined with commas; undefined when there are none. */
export function parseQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const result: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    result[name] = name in result ? `${result[name]},${value}` : value;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

/** Bodies of these types reach the handler as text; everything else base64-encoded. */
export function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    (type.startsWith('application/') && type.endsWith('+json')) ||
    type === 'application/xml' ||
    (type.startsWith('application/') && type.endsWith('+xml')) ||
    type === 'application/x-www-form-urlencoded' ||
    type === 'application/javascript'
  );
}

/** `12/Mar/2020:19:03:58 +0000`, as API Gateway writes requestContext.time. */
function formatRequestTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/** API Gateway request ids look like `JKJaXmPLvHcESHA=`. */
function newApiGatewayRequestId(): string {
  return randomBytes(10).toString('base64');
}

export function buildContext(functionName: string, awsRequestId: string = randomUUID(), timeoutMs = HANDLER_TIMEOUT_MS): Context {
  const deadline = Date.now() + timeoutMs;
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const unsupported = () => {
    throw new Error('Callback-style Lambda context methods are not supported; return a Promise.');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]local`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

/** problem+json from the service's own error catalogue (functions/core/errors.ts). */
export function problem(kind: ProblemKind, detail: string, headers: Record<string, string> = {}): GatewayResponse {
  const response = problemResponse(new HttpError(kind, detail, { headers }));
  return { statusCode: response.statusCode, headers: lowerCaseKeys(response.headers), cookies: [], body: Buffer.from(response.body) };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const internalError = () => problem('internal', 'The server failed to answer the request.');

/**
 * Turns a handler's result into an HTTP answer, or undefined when it is not a valid payload
 * 2.0 structured result. (API Gateway would guess a 200 for a result without statusCode;
 * here that is treated as a bug, which it would be in this service.)
 */
export function toGatewayResponse(result: unknown): GatewayResponse | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as APIGatewayProxyStructuredResultV2;
  if (typeof r.statusCode !== 'number' || !Number.isInteger(r.statusCode) || r.statusCode < 100 || r.statusCode > 599) return undefined;
  if (r.body !== undefined && r.body !== null && typeof r.body !== 'string') return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(r.headers ?? {})) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) return undefined;
    headers[name.toLowerCase()] = String(value);
  }
  if (r.cookies !== undefined && (!Array.isArray(r.cookies) || r.cookies.some((c) => typeof c !== 'string'))) return undefined;
  const body = r.body ? Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  // API Gateway answers JSON when the function does not say otherwise.
  if (body.length > 0 && !headers['content-type']) headers['content-type'] = 'application/json';
  return { statusCode: r.statusCode, headers, cookies: r.cookies ?? [], body };
}

/** Loads `functions/<name>.ts` (once) and returns its `handler` export. */
export function moduleHandlerLoader(functionsDir: URL = new URL('../../functions/', import.meta.url)) {
  const cache = new Map<string, Promise<LambdaHandler>>();
  return (name: string): Promise<LambdaHandler> => {
    let loading = cache.get(name);
    if (!loading) {
      loading = import(new URL(`${name}.ts`, functionsDir).href).then((module: { handler?: unknown }) => {
        if (typeof module.handler !== 'function') throw new Error(`functions/${name}.ts does not export a handler function`);
        return module.handler as LambdaHandler;
      });
      // A failed import is not cached, so fixing the file and retrying works.
      loading.catch(() => cache.delete(name));
      cache.set(name, loading);
    }
    return loading;
  };
}

export interface GatewayOptions {
  verifier: TokenVerifier;
  /** Public documents served before routing, e.g. the local issuer's JWKS. Keyed by path. */
  publicDocuments?: (path: string) => unknown;
  loadHandler?: (name: string) => Promise<LambdaHandler>;
  /** One line per request; default stdout. */
  log?: (line: string) => void;
  /** Where handler failures are reported (never to the client); default stderr. */
  logError?: (line: string) => void;
  maxBodyBytes?: number;
  /** Sees every answer as it was written (tests hold them to the contract). */
  onAnswer?: (answer: WrittenAnswer) => void;
  handlerTimeoutMs?: number;
}

/**
 * A node:http request listener. Also register `checkContinue` for the server's
 * 'checkContinue' event: a client sending `Expect: 100-continue` is then told 413 before it
 * uploads an oversized body (without it, node:http always answers 100 Continue).
 */
export interface Gateway {
  (req: IncomingMessage, res: ServerResponse): void;
  checkContinue(req: IncomingMessage, res: ServerResponse): void;
}

export function createGateway(options: GatewayOptions): Gateway {
  const loadHandler = options.loadHandler ?? moduleHandlerLoader();
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const logError = options.logError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const timeoutMs = options.handlerTimeoutMs ?? HANDLER_TIMEOUT_MS;

  const listener = (req: IncomingMessage, res: ServerResponse, awaitingContinue = false) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const requestId = newApiGatewayRequestId();
    const finish = (response: GatewayResponse) => {
      const written = writeResponse(res, response, requestId);
      if (written) options.onAnswer?.({ method, path, ...written });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log(`${method} ${path} ${response.statusCode} ${ms.toFixed(1)}ms`);
    };
    void handle(req, res, awaitingContinue, method, url, path, requestId)
      .then(finish)
      .catch((error: unknown) => {
        logError(`gateway: ${method} ${path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        finish(internalError());
      });
  };

  return Object.assign((req: IncomingMessage, res: ServerResponse) => listener(req, res), {
    checkContinue: (req: IncomingMessage, res: ServerResponse) => listener(req, res, true),
  });

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    awaitingContinue: boolean,
    method: string,
    url: string,
    path: string,
    requestId: string,
  ): Promise<GatewayResponse> {
    if (method === 'GET' && options.publicDocuments) {
      const document = options.publicDocuments(path);
      if (document !== undefined) {
        return {
          statusCode: 200,
          headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' },
          cookies: [],
          body: Buffer.from(JSON.stringify(document)),
        };
      }
    }

    const body = await readBody(req, maxBodyBytes, awaitingContinue ? () => res.writeContinue() : undefined);
    if (body === 'too-large') {
      return problem('payload-too-large', `The request body is larger than ${maxBodyBytes} bytes.`, { connection: 'close' });
    }

    const resolution = resolveRoute(method, path);
    let claims: JwtClaims | undefined;
    // A public route (the API's docs) has no authorizer, like `$default`.
    if (resolution.kind === 'route' && !resolution.route.public) {
      const authorization = headerValue(req, 'authorization');
      const token = bearerToken(authorization);
      if (!token) {
        return problem('unauthorized', 'A bearer token is required: send `Authorization: Bearer <JWT>`.', { 'www-authenticate': 'Bearer' });
      }
      const verified = await options.verifier.verify(token);
      if (!verified.ok) {
        return problem('unauthorized', `The bearer token was rejected: ${verified.reason}.`, {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
      }
      claims = verified.claims;
    }

    const event = buildEvent({ method, url, rawHeaders: req.rawHeaders, body, sourceIp: sourceIp(req), requestId }, resolution, claims);
    const handler = await loadHandler(resolution.route.handler);
    const context = buildContext(resolution.route.name, randomUUID(), timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    try {
      const result = await Promise.race([handler(event, context), timedOut]);
      if (result === 'timeout') {
        logError(`gateway: ${resolution.route.name} did not answer within ${timeoutMs} ms`);
        return problem('unavailable', 'The request timed out; try again.', { 'retry-after': '1' });
      }
      const response = toGatewayResponse(result);
      if (!response) {
        logError(`gateway: ${resolution.route.name} returned an invalid result: ${safeJson(result)}`);
        return internalError();
      }
      return response;
    } catch (error) {
      logError(`gateway: ${resolution.route.name} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return internalError();
    } finally {
      clearTimeout(timer);
    }
  }
}

/** API Gateway takes the token with or without the `Bearer ` prefix. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const token = authorization.replace(/^\s*bearer\s+/i, '').trim();
  return token === '' ? undefined : token;
}

/**
 * Reads the body up to `limit` bytes. Past the limit (or a Content-Length over it) it stops
 * keeping data and reports 'too-large'; the rest is discarded as it arrives. A client waiting
 * for `100 Continue` only gets it (`sendContinue`) when the declared length fits.
 */
function readBody(req: IncomingMessage, limit: number, sendContinue?: () => void): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    if (!sendContinue) req.resume(); // already asked for: discard it
    return Promise.resolve('too-large');
  }
  sendContinue?.();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        chunks.length = 0;
        req.resume(); // keep discarding, without buffering
        resolve('too-large');
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** An answer as it went out on the wire. */
export interface WrittenAnswer {
  method: string;
  path: string;
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function writeResponse(
  res: ServerResponse,
  response: GatewayResponse,
  requestId: string,
): Omit<WrittenAnswer, 'method' | 'path'> | undefined {
  if (res.headersSent) return undefined;
  const headers: Record<string, string | string[]> = { ...response.headers, 'apigw-requestid': requestId };
  if (response.cookies.length > 0) headers['set-cookie'] = response.cookies;
  // 204 and 304 never carry a body.
  const body = response.statusCode === 204 || response.statusCode === 304 ? Buffer.alloc(0) : response.body;
  headers['content-length'] = String(body.length);
  res.writeHead(response.statusCode, headers);
  res.end(body);
  return { statusCode: response.statusCode, headers, body };
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function sourceIp(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 500) ?? String(value);
  } catch {
    return String(value);
  }
}
