/**
 * A small local stand-in for API Gateway HTTP API (payload format 2.0), driven only by
 * functions/routes.ts: the same route table, the same `$default` fallback, a JWT authorizer
 * on every declared route but the public ones, and the same event shape the Lambda handlers
 * get on AWS (the translation is ./lambda-event.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, type ProblemKind, problemResponse } from '#core/errors';
import { bearerToken, type JwtClaims, type TokenVerifier } from '#core/jwt';
import { FunctionTimedOut, functionContext, invokeFunction, timeoutMsOf } from './invoke';
import {
  buildEvent,
  type GatewayResponse,
  type LambdaHandler,
  newApiGatewayRequestId,
  type Resolution,
  resolveRoute,
  toGatewayResponse,
} from './lambda-event';

export { bearerToken } from '#core/jwt';

/** API Gateway's own payload limit (10 MB); the handlers enforce the service's smaller one (MAX_REQUEST_BODY_BYTES). */
export const API_GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
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
 * Lambda's payload limit for a synchronous invocation, each way: 6 MB (Lambda quotas,
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). The event is the
 * request as JSON (the body a JSON string inside it, escaped again, or base64 when it is not
 * text), so a body under API Gateway's 10 MB can make an event Lambda refuses
 * (RequestTooLargeException: "Request must be smaller than 6291456 bytes for the InvokeFunction
 * operation"); a result over it fails the invocation ("Response payload size exceeded maximum
 * allowed payload size (6291556 bytes)", as HTTP APIs log it in `integrationErrorMessage`).
 */
export const LAMBDA_REQUEST_PAYLOAD_BYTES = 6_291_456;
export const LAMBDA_RESPONSE_PAYLOAD_BYTES = 6_291_556;

/**
 * What an HTTP API answers when its Lambda integration fails rather than answers: the function
 * timed out, threw out of the runtime, or Lambda refused the payload either way. API Gateway's
 * own body, not the service's problem+json ("My API with a Lambda integration returns
 * {"message":"Internal Server Error"}", https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html).
 * (An integration that has not answered within API Gateway's 30 s is a 503 "Service
 * Unavailable"; every function here times out at 20 s, lib/function-settings.ts, before that.)
 */
export const integrationFailure = (): GatewayResponse => ({
  statusCode: 500,
  headers: { 'content-type': 'application/json' },
  cookies: [],
  body: Buffer.from('{"message":"Internal Server Error"}'),
});

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
  /** Which route a request takes; default the route table's (`resolveRoute`). The template mode gives the template's. */
  resolve?: (method: string, path: string) => Resolution;
  /** One line per request; default stdout. */
  log?: (line: string) => void;
  /** Where handler failures are reported (never to the client); default stderr. */
  logError?: (line: string) => void;
  maxBodyBytes?: number;
  /** Sees every answer as it was written (tests hold them to the contract). */
  onAnswer?: (answer: WrittenAnswer) => void;
  /** Every function's timeout, in place of its deployed one (lib/function-settings.ts): tests of the cut-off. */
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
  const log = options.log ?? stdoutLines();
  const logError = options.logError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const maxBodyBytes = options.maxBodyBytes ?? API_GATEWAY_MAX_PAYLOAD_BYTES;
  /**
   * Route resolutions by method and path: the route table never changes, and a client reading
   * one resource asks for the same path again and again. Bounded; emptied when full.
   */
  const resolutions = new Map<string, Resolution>();
  const resolve = (method: string, path: string): Resolution => {
    const key = `${method} ${path}`;
    let resolution = resolutions.get(key);
    if (!resolution) {
      if (resolutions.size >= RESOLUTIONS_KEPT) resolutions.clear();
      resolution = (options.resolve ?? resolveRoute)(method, path);
      resolutions.set(key, resolution);
    }
    return resolution;
  };

  /**
   * What the access log names a request by: its method and path, or, for a public route and for
   * `$default`, the route key, as the deployed stage's access log does (lib/stack): the path of a
   * share link holds its token, which no log may record.
   */
  const loggedAs = (method: string, path: string) => {
    const resolution = resolve(method, path);
    return resolution.kind === 'route' && !resolution.route.public ? `${method} ${path}` : resolution.routeKey;
  };

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
      log(`${loggedAs(method, path)} ${response.statusCode} ${ms.toFixed(1)}ms`);
    };
    void handle(req, res, awaitingContinue, method, url, path, requestId)
      .then(finish)
      .catch((error: unknown) => {
        logError(`gateway: ${loggedAs(method, path)} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
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

    const reading = readBody(req, maxBodyBytes, awaitingContinue ? () => res.writeContinue() : undefined);
    const body = reading instanceof Promise ? await reading : reading;
    if (body === 'too-large') {
      return problem('payload-too-large', `The request body is larger than ${maxBodyBytes} bytes.`, { connection: 'close' });
    }

    const resolution = resolve(method, path);
    let claims: JwtClaims | undefined;
    // A public route (the API's docs) has no authorizer, like `$default`.
    if (resolution.kind === 'route' && !resolution.route.public) {
      // Two Authorization headers: which user this is would depend on their order. Refused.
      let authorizations = 0;
      for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'authorization') authorizations++;
      if (authorizations > 1) {
        return problem('unauthorized', 'Send one Authorization header, not several.', {
          'www-authenticate': 'Bearer error="invalid_request"',
        });
      }
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
    return invoke(handler, event, resolution.route);
  }

  /**
   * The handler's answer; API Gateway's 500 when Lambda refuses the event or the result for its
   * size, or the function runs past its timeout (./invoke.ts); the service's 500 when the handler
   * throws or answers garbage.
   */
  async function invoke(handler: LambdaHandler, event: Parameters<LambdaHandler>[0], route: Resolution['route']): Promise<GatewayResponse> {
    const name = route.name;
    const eventBytes = Buffer.byteLength(JSON.stringify(event));
    if (eventBytes > LAMBDA_REQUEST_PAYLOAD_BYTES) {
      logError(`gateway: ${name} not invoked: its event is ${eventBytes} bytes, over Lambda's ${LAMBDA_REQUEST_PAYLOAD_BYTES}`);
      return integrationFailure();
    }
    const timeoutMs = options.handlerTimeoutMs ?? timeoutMsOf(name);
    let result: unknown;
    try {
      result = await invokeFunction(route, handler, event, { timeoutMs, context: functionContext(route, timeoutMs) });
    } catch (error) {
      if (error instanceof FunctionTimedOut) {
        logError(`gateway: ${name} did not answer within ${timeoutMs} ms (${error.message})`);
        return integrationFailure();
      }
      logError(`gateway: ${name} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return internalError();
    }
    let resultBytes: number;
    let response: GatewayResponse | undefined;
    try {
      resultBytes = Buffer.byteLength(JSON.stringify(result) ?? '');
      response = toGatewayResponse(result);
    } catch (error) {
      logError(`gateway: ${name} returned a result that is no payload: ${error instanceof Error ? error.message : String(error)}`);
      return internalError();
    }
    if (resultBytes > LAMBDA_RESPONSE_PAYLOAD_BYTES) {
      logError(`gateway: ${name} answered ${resultBytes} bytes, over Lambda's ${LAMBDA_RESPONSE_PAYLOAD_BYTES}: the invocation fails`);
      return integrationFailure();
    }
    if (!response) {
      logError(`gateway: ${name} returned an invalid result: ${safeJson(result)}`);
      return internalError();
    }
    return response;
  }
}

/** Entries of a gateway's route cache. */
const RESOLUTIONS_KEPT = 10_000;

/**
 * Lines to stdout, written together once per turn of the event loop: one write call for all the
 * requests answered in that turn instead of one each (a write to a terminal or pipe is a
 * synchronous system call). Whatever is still waiting is written when the process exits.
 * One for the process (the access log and the worker's lines share it, so they keep their order).
 */
export function stdoutLines(): (line: string) => void {
  stdoutLog ??= lineBuffer((text) => process.stdout.write(text));
  return stdoutLog;
}
let stdoutLog: ((line: string) => void) | undefined;

function lineBuffer(write: (text: string) => void): (line: string) => void {
  let pending = '';
  const flush = () => {
    const text = pending;
    pending = '';
    if (text !== '') write(text);
  };
  process.on('exit', flush);
  return (line) => {
    if (pending === '') setImmediate(flush);
    pending += `${line}\n`;
  };
}

/**
 * Reads the body up to `limit` bytes. Past the limit (or a Content-Length over it) it stops
 * keeping data and reports 'too-large'; the rest is discarded as it arrives. A client waiting
 * for `100 Continue` only gets it (`sendContinue`) when the declared length fits.
 */
function readBody(req: IncomingMessage, limit: number, sendContinue?: () => void): Buffer | 'too-large' | Promise<Buffer | 'too-large'> {
  const length = req.headers['content-length'];
  const declared = Number(length);
  if (Number.isFinite(declared) && declared > limit) {
    if (!sendContinue) req.resume(); // already asked for: discard it
    return 'too-large';
  }
  sendContinue?.();
  // Neither Content-Length nor Transfer-Encoding, or a length of 0: HTTP/1.1 says there is no
  // body (node:http's parser agrees), so there is nothing to wait for. node:http drains the
  // request itself once the answer is written.
  if ((length === undefined && req.headers['transfer-encoding'] === undefined) || declared === 0) return EMPTY;
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

const EMPTY = Buffer.alloc(0);

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
