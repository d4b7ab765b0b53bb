/**
 * Memory and timeout of every Lambda function (the CDK stack reads them; the cost bench prices them).
 *
 * - Memory 512 MB (a third of a vCPU): the cheapest size at which every function's p99 stays
 *   within 100 ms and its cold module load within 1 s (bench/results.md, cost). Less is slower
 *   than it saves; more costs more per call than it saves in time.
 * - 20 s: the DynamoDB client gives up after 3 attempts of at most 4 s each (1 s to connect, 3 s
 *   per request: functions/core/db/client.ts), so the handler answers 503 itself before Lambda
 *   cuts it off (which API Gateway would report as a bare 500), well inside API Gateway's 30 s.
 */
import { routes, sweeperFunction, workerFunction } from '#functions/routes';
import { sweeping } from '#functions/worker/delivery';

export const memorySize = 512;

/**
 * Memory by what a function does: reads, writes, and the rest (the $default fallback and the
 * background worker, which the bench does not price).
 */
export const memorySizes = { read: 512, write: 512, other: memorySize } as const;

/** The memory of the function named `name` (a route of functions/routes.ts, or another function). */
export function memorySizeOf(name: string): number {
  const route = routes.find((r) => r.name === name);
  if (!route) return memorySizes.other;
  return route.method === 'GET' ? memorySizes.read : memorySizes.write;
}
export const timeoutSeconds = 20;

/** The background worker: a task step works for at most 10 s of a record; a batch runs its partition keys side by side. */
export const workerTimeoutSeconds = 120;
/** The sweeper: a sweep starts work for `sweeping.budgetSeconds`; what it started may run a task's 10 s budget more. */
export const sweeperTimeoutSeconds = sweeping.budgetSeconds + 60;

/**
 * The timeout of the function named `name`: the stack deploys it, and the local runtime cuts an
 * invocation off after it (lib/local/invoke.ts). Routes, the fallback and the finaliser: `timeoutSeconds`.
 */
export function timeoutSecondsOf(name: string): number {
  if (name === workerFunction.name) return workerTimeoutSeconds;
  if (name === sweeperFunction.name) return sweeperTimeoutSeconds;
  return timeoutSeconds;
}
