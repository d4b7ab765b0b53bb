/**
 * Memory and timeout of every Lambda function (the CDK stack reads them; the cost benchmark
 * prices them).
 *
 * - 512 MB: handlers wait on one or two DynamoDB round trips and parse at most a 512 KiB body;
 *   512 MB buys a third of a vCPU, which keeps cold starts and JSON work short without paying
 *   for CPU the function cannot use while it waits on the network.
 * - 20 s: the DynamoDB client gives up after 3 attempts of at most 6 s each (1 s to connect,
 *   5 s per request: functions/core/store/client.ts), so the handler answers 503 itself before
 *   Lambda cuts it off (which API Gateway would report as a bare 500) and well inside API
 *   Gateway's 30 s integration limit.
 */
import { routes } from '#functions/routes';

export const memorySize = 512;

/**
 * Memory by what a function does (bench/results.md §6 prices every size for every function):
 * reads, writes, and the rest (the $default fallback and the background worker, which the
 * bench does not price).
 */
export const memorySizes = { read: 512, write: 512, other: memorySize } as const;

/** The memory of the function named `name` (a route of functions/routes.ts, or another function). */
export function memorySizeOf(name: string): number {
  const route = routes.find((r) => r.name === name);
  if (!route) return memorySizes.other;
  return route.method === 'GET' ? memorySizes.read : memorySizes.write;
}
export const timeoutSeconds = 20;
