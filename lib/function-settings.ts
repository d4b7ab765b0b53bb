/**
 * Memory and timeout of every Lambda function (the CDK stack reads them; the cost benchmark
 * prices them).
 *
 * - Memory: bench/results.md §6 prices every size for every function from its warm CPU per
 *   call and its module load, and picks, for reads and for writes, the cheapest size at which
 *   every function's own p99 stays within 100 ms and its cold module load within 1 s: 512 MB
 *   for both (a third of a vCPU). Writes: 512 in every run. Reads: two runs of 2026-11-23
 *   disagreed, 256 MB within in the faster (heaviest read 74 ms) and not in the slower (125
 *   ms); 256 would save $0.006 per million GET /document/{id} ($1.491 vs $1.497), so 512 stays
 *   until runs agree. More than 512 costs more per call than it saves in time.
 * - 20 s: the DynamoDB client gives up after 3 attempts of at most 4 s each (1 s to connect,
 *   3 s per request: functions/core/db/client.ts), so the handler answers 503 itself before
 *   Lambda cuts it off (which API Gateway would report as a bare 500) and well inside API
 *   Gateway's 30 s integration limit.
 */
import { routes } from '#functions/routes';

export const memorySize = 512;

/**
 * Memory by what a function does (bench/results.md §6): reads, writes, and the rest (the
 * $default fallback and the background worker, which the bench does not price).
 */
export const memorySizes = { read: 512, write: 512, other: memorySize } as const;

/** The memory of the function named `name` (a route of functions/routes.ts, or another function). */
export function memorySizeOf(name: string): number {
  const route = routes.find((r) => r.name === name);
  if (!route) return memorySizes.other;
  return route.method === 'GET' ? memorySizes.read : memorySizes.write;
}
export const timeoutSeconds = 20;
