/**
 * The one middleware stack every endpoint shares. A handler file declares its input
 * schemas and a function from validated input to a response; everything else — logging,
 * size and media-type checks, JSON parsing, validation, problem+json errors — is here.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { Context, APIGatewayProxyEventV2WithJWTAuthorizer as Event, APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import type * as z from 'zod/mini';
import { callerOf } from '#core/auth';
import { HttpError, problemResponse, toHttpError } from '#core/errors';
import { logger } from '#core/logger';
import { currentMetrics, measured } from '#core/store/metrics';
import type { Caller } from '#core/types';
import { requestGuards } from './request-guards';
import type { EndpointResponse } from './responses';
import { type InputSchemas, validateInput } from './validation';

type Infer<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

export interface EndpointRequest<S extends InputSchemas> {
  caller: Caller;
  params: Infer<S['params']>;
  query: Infer<S['query']>;
  body: Infer<S['body']>;
  /** Request headers, lower-cased names. */
  headers: Record<string, string | undefined>;
}

const baseHeaders = { 'Cache-Control': 'no-store' };

function toResult(response: EndpointResponse): Result {
  if (response.body === undefined) {
    return { statusCode: response.status, headers: { ...baseHeaders, ...response.headers } };
  }
  return {
    statusCode: response.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...baseHeaders, ...response.headers },
    body: JSON.stringify(response.body),
  };
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

/** One structured line per request: method, path, status, duration. */
const accessLog = (): MiddlewareObj<Event, Result> => {
  // Keyed by event: the local runtime runs concurrent requests through one handler instance.
  const started = new WeakMap<Event, number>();
  const log = ({ event, response }: { event: Event; response: Result | undefined | null }) => {
    logger.info('request', {
      method: event.requestContext.http.method,
      path: event.rawPath,
      status: response?.statusCode,
      durationMs: Math.round(performance.now() - (started.get(event) ?? performance.now())),
      dynamodb: currentMetrics(),
    });
  };
  return { before: ({ event }) => void started.set(event, performance.now()), after: log, onError: log };
};

/**
 * requestGuards already checked the media type, case-insensitively as RFC 9110 wants; the
 * parser's own check is case-sensitive. The option exists in middy 6 but not in its types.
 */
const jsonParserOptions: Parameters<typeof httpJsonBodyParser>[0] & { disableContentTypeCheck: boolean } = {
  disableContentTypeCheck: true,
};

export function endpoint<S extends InputSchemas>(schemas: S, run: (request: EndpointRequest<S>) => Promise<EndpointResponse>) {
  const stack = middy<Event, Result>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(accessLog())
    .use(problemErrors())
    .use(requestGuards({ jsonBody: schemas.body !== undefined }));
  if (schemas.body) stack.use(httpJsonBodyParser(jsonParserOptions));
  const handler = stack.handler(async (event) => {
    const caller = callerOf(event);
    const input = validateInput(schemas, {
      params: event.pathParameters,
      query: event.queryStringParameters,
      body: event.body,
    });
    const response = await run({ caller, ...(input as Omit<EndpointRequest<S>, 'caller' | 'headers'>), headers: event.headers ?? {} });
    return toResult(response);
  });
  // Outside middy, so the access log sees every DynamoDB request the invocation made.
  return async (event: Event, context: Context): Promise<Result> => (await measured(() => handler(event, context))).result;
}
