/**
 * Which operations the end-to-end suites got answers from, and with which statuses: each test
 * file appends what its client saw to ROUTE_COVERAGE_FILE (set by vitest.config.ts), and
 * test/completeness/ reads it after every other file has run. A route nobody exercised end to end
 * fails the run there, not silently.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export function recordAnswered(answered: ReadonlyMap<string, ReadonlySet<number>>): void {
  const file = process.env.ROUTE_COVERAGE_FILE;
  if (!file || answered.size === 0) return;
  const lines = [...answered].map(([operation, statuses]) => JSON.stringify({ operation, statuses: [...statuses] }));
  appendFileSync(file, `${lines.join('\n')}\n`);
}

/** `GET /{id}` → every status some test file saw it answer. */
export function readAnswered(): Map<string, Set<number>> {
  const file = process.env.ROUTE_COVERAGE_FILE;
  const answered = new Map<string, Set<number>>();
  if (!file || !existsSync(file)) return answered;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const { operation, statuses } = JSON.parse(line) as { operation: string; statuses: number[] };
    const seen = answered.get(operation) ?? new Set<number>();
    for (const status of statuses) seen.add(status);
    answered.set(operation, seen);
  }
  return answered;
}
