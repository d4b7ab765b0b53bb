/**
 * API Gateway HTTP API's translation, both ways, as the local runtime does it: an HTTP request
 * into the Lambda event (payload format 2.0) and context a handler gets on AWS, and a handler's
 * result into an HTTP answer. No sockets here (lib/local/gateway.ts is the server).
 */
import { isUtf8 } from 'node:buffer';
import { randomFillSync, randomUUID } from 'node:crypto';
import type {
  APIGatewayEventRequestContextV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { fallbackRoute, findRoute, type Route } from '#functions/routes';
import { timeoutSeconds } from '#lib/function-settings';
import { type AuthorizerJwt, type JwtClaims, toAuthorizerJwt } from './jwt';

/** A route's deployed timeout (lib/function-settings.ts): what getRemainingTimeInMillis counts down from by default. */
export const HANDLER_TIMEOUT_MS = timeoutSeconds * 1_000;
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
  headers['x-amzn-trace-id'] ??= `Root=1-${Math.floor(now.getTime() / 1000).toString(16)}-${randomChunk(12).toString('hex')}`;

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
    // Text only when it is text: bytes that are not UTF-8 go base64-encoded, so the handler can
    // refuse them instead of reading U+FFFD where they were.
    const text = isTextContentType(headers['content-type']) && isUtf8(request.body);
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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
/** The last second formatted, and its text: requestContext.time only changes once a second. */
let formatted = { second: Number.NaN, text: '' };

/** `12/Mar/2020:19:03:58 +0000`, as API Gateway writes requestContext.time. */
function formatRequestTime(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== formatted.second) {
    const text =
      `${pad2(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
      `${pad2(date.getUTCHours())}:${pad2(date.getUTCMinutes())}:${pad2(date.getUTCSeconds())} +0000`;
    formatted = { second, text };
  }
  return formatted.text;
}

/**
 * Random bytes for request and trace ids, taken from a pool filled 4 KB at a time (one call
 * into the crypto library for ~200 requests, instead of two per request). Still
 * crypto.randomFillSync's bytes, each used once.
 */
const randomPool = Buffer.alloc(4096);
let randomUsed = randomPool.length;
function randomChunk(size: number): Buffer {
  if (randomUsed + size > randomPool.length) {
    randomFillSync(randomPool);
    randomUsed = 0;
  }
  randomUsed += size;
  return randomPool.subarray(randomUsed - size, randomUsed);
}

/** API Gateway request ids look like `JKJaXmPLvHcESHA=`. */
export function newApiGatewayRequestId(): string {
  return randomChunk(10).toString('base64');
}

let logStream = { day: Number.NaN, name: '' };
/** `2020/03/12/[$LATEST]local`: today's (UTC) log stream. */
function logStreamName(): string {
  const now = Date.now();
  const day = Math.floor(now / 86_400_000);
  if (day !== logStream.day) logStream = { day, name: `${new Date(now).toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]local` };
  return logStream.name;
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
    logStreamName: logStreamName(),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

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
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
    headers[name.toLowerCase()] = String(value);
  }
  if (r.cookies !== undefined && (!Array.isArray(r.cookies) || r.cookies.some((c) => typeof c !== 'string'))) return undefined;
  const body = r.body ? Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  // API Gateway answers JSON when the function does not say otherwise.
  if (body.length > 0 && !headers['content-type']) headers['content-type'] = 'application/json';
  return { statusCode: r.statusCode, headers, cookies: r.cookies ?? [], body };
}
