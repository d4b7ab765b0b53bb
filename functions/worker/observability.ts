/**
 * What the background functions report (../core/metrics.ts, ../core/tracing.ts): one
 * invocation's metrics with `service` alone, its trace, and the invocation's request id as
 * the correlation id on every log line (with the record's key on the lines about a record).
 * The business events are counted here from the numbered changes: each change once, whoever
 * made it (a retried batch may count one again).
 */
import type { Context } from 'aws-lambda';
import { logger } from '#core/logger';
import { recordMetric, type ServiceMetric, withMetrics } from '#core/metrics';
import type { Change } from '#core/resources';
import { traced } from '#core/tracing';

export function observedInvocation<T>(context: Pick<Context, 'awsRequestId'> | undefined, work: () => Promise<T>): Promise<T> {
  const correlation_id = context?.awsRequestId;
  logger.appendKeys({ correlation_id });
  return withMetrics(undefined, { correlation_id }, () => traced({ correlation_id }, work)).finally(() => logger.resetKeys());
}

/** A repository's creation is in no feed: its route counts it (core/http/observability.ts, `routeEvents`). */
const created: Partial<Record<Change['kind'], ServiceMetric>> = { folder: 'foldersCreated', document: 'documentsCreated' };

/** The business events of numbered changes, and how long each took from its write to here (the feed's lag). */
export function countChanges(changes: readonly Change[], now = Date.now()): void {
  for (const change of changes) {
    const event: ServiceMetric | undefined =
      change.type === 'created'
        ? created[change.kind]
        : change.type === 'deleted'
          ? 'itemsTrashed'
          : change.type === 'purged'
            ? 'itemsPurged'
            : undefined;
    if (event) recordMetric(event);
    const at = Date.parse(change.at);
    if (Number.isFinite(at)) recordMetric('feedLag', Math.max(0, now - at));
  }
}
