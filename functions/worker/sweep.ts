/**
 * The sweeper's Lambda handler, invoked by an EventBridge schedule (lib/stack/background-worker.ts):
 * one sweep (./sweeper.ts). It fails, after doing everything it could, when some work failed, so
 * the function's Errors metric shows it; the next scheduled sweep tries that work again.
 *
 * Invoked by hand with `{"graceSeconds": 0}` it takes every waiting task and change at once,
 * whatever their age (docs/operations.md: after an outage). The schedule's event has no such
 * field: the grace is then `sweeping.graceSeconds`.
 */
import type { Context } from 'aws-lambda';
import { logger } from '#core/logger';
import { observedInvocation } from './observability';
import { type SweepReport, sweep } from './sweeper';
import { workUntil } from './tasks';

export const handler = (event: { graceSeconds?: unknown } | undefined, context?: Context): Promise<SweepReport> =>
  observedInvocation(context, () => sweepOnce(event, workUntil(context)));

async function sweepOnce(event: { graceSeconds?: unknown } | undefined, until: number | undefined): Promise<SweepReport> {
  const grace = event?.graceSeconds;
  const report = await sweep({
    ...(typeof grace === 'number' && Number.isFinite(grace) && grace >= 0 ? { graceSeconds: grace } : {}),
    ...(until === undefined ? {} : { until }),
  });
  const found = report.tasks + report.changes + report.failed + report.left > 0;
  // Work found here is work the stream did not finish: worth a line whenever there is some.
  if (found) logger.warn('sweep: took over background work the stream did not finish', { ...report });
  if (report.failed > 0) throw new Error(`sweep: ${report.failed} task(s) or feed(s) failed; the next sweep tries them again`);
  return report;
}
