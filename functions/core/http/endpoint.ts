/**
 * The one middleware stack every endpoint shares. A handler module declares its operation
 * (./operation.ts) and a function from validated input to the success body; everything else —
 * logging, metrics and traces (./observability.ts), size and media-type checks, JSON parsing, validation, `If-Match`, the success
 * status and its headers, problem+json errors — is here.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { Context, APIGatewayProxyEventV2WithJWTAuthorizer as Event, APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import type * as z from 'zod/mini';
import { requestCaller } from '../auth';
import { currentMetrics, measured, type StoreMetrics } from '../db/metrics';
import { HttpError, problemResponse, toHttpError } from '../errors';
import { logger } from '../logger';
import { type Precondition, parseIfMatch } from '../preconditions';
import type { Caller, ResourceName, ResourceOf } from '../resources';
import { observed } from './observability';
import type { ContentSuccess, JsonSuccess, Operation } from './operation';
import { requestGuards } from './request-guards';
import { validateInput } from './validation';

type Infer<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

/** An endpoint's operation: its success is a JSON body (or none), or a document's content. */
export type JsonOperation = Operation & { success: JsonSuccess | ContentSuccess };

export interface EndpointRequest<O extends JsonOperation> {
  /** None on a public route: no token is read there, and one that is sent is ignored. */
  caller: O['access'] extends 'public' ? undefined : Caller;
  params: Infer<O['params']>;
  query: Infer<O['query']>;
  body: Infer<O['body']>;
  /** `If-Match` (when the operation takes it) and the body's `version`, if any. */
  precondition: Precondition;
  /** Request headers, lower-cased names. */
  headers: Record<string, string | undefined>;
  /** The body's bytes, as sent (operations that declare `rawBody`). */
  rawBody: Buffer;
}

/** What `run` returns: the success body the operation declares (for a 204, whatever it returns is dropped); for content, the answer itself. */
export type SuccessBody<O extends JsonOperation> = O['success'] extends ContentSuccess
  ? Result
  : O['success'] extends { body: infer N extends ResourceName }
    ? ResourceOf<N>
    : unknown;

const CREATED = Symbol('created');
/** A body to answer with 201 rather than the declared status (operations that declare `created`). */
export interface Created<T> {
  [CREATED]: true;
  body: T;
}
export const created = <T>(body: T): Created<T> => ({ [CREATED]: true, body });
const isCreated = (result: unknown): result is Created<unknown> => typeof result === 'object' && result !== null && CREATED in result;

const ACCEPTED = Symbol('accepted');
/** A body to answer with 202 and `Retry-After` (operations that declare `accepted`): the work goes on; ask again. */
export interface Accepted<T> {
  [ACCEPTED]: true;
  body: T;
  retryAfterSeconds: number;
}
export const accepted = <T>(body: T, retryAfterSeconds: number): Accepted<T> => ({ [ACCEPTED]: true, body, retryAfterSeconds });
const isAccepted = (result: unknown): result is Accepted<unknown> => typeof result === 'object' && result !== null && ACCEPTED in result;

const baseHeaders = { 'Cache-Control': 'no-store' };

/**
 * The success answer: the declared status, `ETag` and `Location` filled from the body; or, for
 * `created(body)`, 201 with `Location` filled from the path parameters (percent-encoded).
 */
function successResult(success: JsonSuccess | ContentSuccess, result: unknown, params: Record<string, string | undefined>): Result {
  if ('redirect' in success) return result as Result; // the content's own answer (../use-cases/content.ts)
  if (isAccepted(result)) {
    if (!success.accepted) throw new Error('accepted() from an operation that declares no `accepted`');
    return {
      statusCode: 202,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...baseHeaders, 'Retry-After': String(result.retryAfterSeconds) },
      body: JSON.stringify(result.body),
    };
  }
  const made = isCreated(result) && success.created !== undefined;
  if (isCreated(result) && !made) throw new Error('created() from an operation that declares no `created`');
  const body = made ? (result as Created<unknown>).body : result;
  const status = made ? 201 : success.status;
  if (success.body === undefined) return { statusCode: status, headers: baseHeaders };
  const fields = body as Record<string, unknown>;
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', ...baseHeaders };
  if (success.etag) headers.ETag = `"${fields.version}"`;
  if (made) {
    headers.Location = success.created!.location.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  } else if (success.location) {
    headers.Location = success.location.replace(/\{(\w+)\}/g, (_, field: string) => String(fields[field]));
  }
  return { statusCode: status, headers, body: JSON.stringify(body) };
}

/** Turns whatever was thrown into problem+json; 5xx are logged with their cause, never returned. */
const problemErrors = (): MiddlewareObj<Event, Result> => ({
  onError: (request) => {
    const { error } = request;
    const mapped =
      (error as { cause?: { package?: string } })?.cause?.package === '@middy/http-json-body-parser'
        ? new HttpError('malformed-json', 'The request body is not valid JSON.')
        : toHttpError(error);
    if (mapped.status >= 500) logger.error('request failed', { error: error as Error, status: mapped.status });
    request.response = problemResponse(mapped);
  },
});

/**
 * One structured line per request: method, path, status, duration, DynamoDB requests and
 * capacity. A public route logs its route key instead of its path: a share link's path holds
 * its token, which no log may record (docs/api.md: Share links).
 */
function logRequest(
  event: Event,
  publicRoute: boolean,
  status: number | undefined,
  started: number,
  dynamodb: StoreMetrics | undefined,
): void {
  logger.info('request', {
    method: event.requestContext.http.method,
    path: publicRoute ? event.requestContext.routeKey : event.rawPath,
    status,
    durationMs: Math.round(performance.now() - started),
    dynamodb,
  });
}

/**
 * requestGuards already checked the media type, case-insensitively as RFC 9110 wants; the
 * parser's own check is case-sensitive. The option exists in middy 6 but not in its types.
 */
const jsonParserOptions: Parameters<typeof httpJsonBodyParser>[0] & { disableContentTypeCheck: boolean } = {
  disableContentTypeCheck: true,
};

/**
 * `middlewares` run after the request guards and before the body is parsed (Idempotency-Key:
 * ./write-endpoint.ts). A 4xx is the handler's own answer (returned, not thrown), so a
 * middleware that keeps answers (idempotency) keeps it too; a 5xx or 429 is thrown.
 */
export function endpoint<O extends JsonOperation>(
  operation: O,
  run: (request: EndpointRequest<O>) => Promise<SuccessBody<O> | Created<SuccessBody<O>> | Accepted<unknown>>,
  middlewares: MiddlewareObj[] = [],
) {
  const publicRoute = operation.access === 'public';
  const stack = middy<Event, Result>()
    .use(problemErrors())
    .use(
      requestGuards({
        jsonBody: operation.body !== undefined,
        bodyOptional: operation.bodyOptional === true,
        ...(operation.rawBody ? { maxBytes: operation.rawBody.maxBytes } : {}),
      }),
    );
  for (const middleware of middlewares) stack.use(middleware as MiddlewareObj<Event, Result>);
  if (operation.body) stack.use(httpJsonBodyParser(jsonParserOptions));
  const handler = stack.handler(async (event) => {
    try {
      return await answer(event);
    } catch (error) {
      if (error instanceof HttpError && error.status < 500 && error.status !== 429) return problemResponse(error);
      throw error;
    }
  });
  async function answer(event: Event): Promise<Result> {
    const caller = (operation.access === 'public' ? undefined : await requestCaller(event)) as EndpointRequest<O>['caller'];
    const input = validateInput(operation, { params: event.pathParameters, query: event.queryStringParameters, body: event.body });
    const headers = event.headers ?? {};
    const version = (input.body as { version?: number } | undefined)?.version;
    const precondition: Precondition = {
      ...(operation.ifMatch ? { ifMatch: parseIfMatch(headers['if-match']) } : {}),
      ...(version === undefined ? {} : { version }),
    };
    const rawBody = operation.rawBody ? Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    const body = await run({
      caller,
      ...(input as Pick<EndpointRequest<O>, 'params' | 'query' | 'body'>),
      precondition,
      headers,
      rawBody,
    });
    return successResult(operation.success, body, event.pathParameters ?? {});
  }
  // Outside middy, so the access log sees every DynamoDB request the invocation made, and the
  // log keys, the metrics and the trace span the whole invocation (./observability.ts).
  return (event: Event, context: Context): Promise<Result> =>
    observed(event, context, async () => {
      const started = performance.now();
      let dynamodb: StoreMetrics | undefined; // the invocation's, filled as it goes: there even if it throws
      try {
        const { result } = await measured(() => {
          dynamodb = currentMetrics();
          return handler(event, context);
        });
        logRequest(event, publicRoute, result.statusCode, started, dynamodb);
        return result;
      } catch (error) {
        logRequest(event, publicRoute, undefined, started, dynamodb);
        throw error;
      }
    });
}
