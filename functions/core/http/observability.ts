/**
 * What every request of an endpoint reports besides its answer (./endpoint.ts):
 *
 * - its **correlation**: API Gateway's request id, the caller (the token's `sub`) and the route
 *   key, on every log line of the request, in its metrics' line (metadata, not dimensions) and
 *   as annotations of its trace;
 * - its **metrics** (../metrics.ts): one of Answers2xx/4xx/5xx, HandlerDuration, and ColdStart
 *   on a function instance's first request, by `service` alone (the route key as metadata);
 * - its **trace** (../tracing.ts), where the stack turns tracing on.
 */
import type { Context, APIGatewayProxyEventV2WithJWTAuthorizer as Event, APIGatewayProxyStructuredResultV2 as Result } from 'aws-lambda';
import { logger } from '../logger';
import { recordMetric, type ServiceMetric, withMetrics } from '../metrics';
import { traced } from '../tracing';

export interface Correlation {
  correlation_id: string | undefined;
  caller: string | undefined;
  route: string | undefined;
}

export function correlationOf(event: Event): Correlation {
  const sub = event.requestContext?.authorizer?.jwt?.claims?.sub;
  return {
    correlation_id: event.requestContext?.requestId,
    caller: typeof sub === 'string' ? sub : undefined,
    route: event.requestContext?.routeKey,
  };
}

/**
 * Business events a route's success is (by route key). Only what the change feed cannot count:
 * a repository's creation is in no feed (its feed starts empty); folders, documents, trash and
 * purges are counted by the worker from the numbered changes (functions/worker/observability.ts).
 */
export const routeEvents: Readonly<Record<string, ServiceMetric>> = { 'POST /': 'repositoriesCreated' };

const statusMetric = (status: number) => (status >= 500 ? 'answered5xx' : status >= 400 ? 'answered4xx' : 'answered2xx');

/**
 * Runs the whole invocation (`answer`) measured, with the correlation keys and the Lambda context
 * on each of its log lines and, with tracing on, traced.
 */
export function observed(event: Event, context: Context, answer: () => Promise<Result>): Promise<Result> {
  const correlation = correlationOf(event);
  const work = () =>
    withMetrics(correlation.route, { correlation_id: correlation.correlation_id, caller: correlation.caller }, () =>
      traced({ ...correlation }, async () => {
        const started = performance.now();
        try {
          const result = await answer();
          const status = result.statusCode ?? 200;
          recordMetric(statusMetric(status));
          const event = correlation.route && routeEvents[correlation.route];
          if (event && status >= 200 && status < 300) recordMetric(event);
          return result;
        } catch (error) {
          recordMetric('answered5xx'); // Lambda reports it as an error; API Gateway answers 500
          throw error;
        } finally {
          recordMetric('handlerDuration', performance.now() - started);
        }
      }),
    );
  return logger.withInvocation(context, { ...correlation }, work);
}
