/**
 * Which operations the end-to-end suites got answers from, and with which statuses: each test
 * file appends what its client saw, and what its tests asserted of it (./asserted-statuses.ts),
 * to ROUTE_COVERAGE_FILE (set by ./run-temp.ts), and test/completeness/ reads it after every
 * other file has run. A route nobody exercised end to end fails the run there, not silently.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect } from 'vitest';
import { assertedStatuses } from './asserted-statuses';
import { reportStat } from './stats';

/**
 * How many exchanges this test file checked and found keeping the contract (./contract.ts), and
 * which (`GET /{id}` → statuses received: tolerated and retried ones too).
 */
export const contractStats = { validated: 0, answered: new Map<string, Set<number>>() };

/**
 * After each file (./after-each-file.ts): its count and its answers, recorded and then forgotten,
 * as a later file in the same process (vitest.config.ts: ISOLATED) counts its own.
 */
export function recordFileAnswers(): void {
  if (contractStats.validated > 0) reportStat('responsesValidated', contractStats.validated);
  recordAnswered(contractStats.answered, assertedStatuses);
  contractStats.validated = 0;
  contractStats.answered.clear();
  assertedStatuses.clear();
}

export interface Coverage {
  /** `GET /{id}` → every status some test file received from it (tolerated and retried ones too). */
  seen: Map<string, Set<number>>;
  /** `GET /{id}` → every status some test asserted it answered with. */
  asserted: Map<string, Set<number>>;
  /** `GET /{id} 404` → the files that asserted it. */
  assertedBy: Map<string, Set<string>>;
}

/** This file's lines: one per operation, the statuses it saw and those its tests asserted. */
export function recordAnswered(seen: ReadonlyMap<string, ReadonlySet<number>>, asserted: ReadonlyMap<string, ReadonlySet<number>>): void {
  const file = process.env.ROUTE_COVERAGE_FILE;
  if (!file || seen.size === 0) return;
  const testPath = expect.getState().testPath;
  const by = testPath ? relative(process.cwd(), testPath) : undefined;
  const lines = [...seen].map(([operation, statuses]) =>
    JSON.stringify({ operation, statuses: [...statuses], asserted: [...(asserted.get(operation) ?? [])], by }),
  );
  appendFileSync(file, `${lines.join('\n')}\n`);
}

const add = <K, V>(map: Map<K, Set<V>>, key: K, value: V) => map.set(key, (map.get(key) ?? new Set<V>()).add(value));

/** What every test file of the run recorded. */
export function readAnswered(): Coverage {
  const file = process.env.ROUTE_COVERAGE_FILE;
  const coverage: Coverage = { seen: new Map(), asserted: new Map(), assertedBy: new Map() };
  if (!file || !existsSync(file)) return coverage;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const { operation, statuses, asserted, by } = JSON.parse(line) as {
      operation: string;
      statuses: number[];
      asserted: number[];
      by?: string;
    };
    for (const status of statuses) add(coverage.seen, operation, status);
    for (const status of asserted) {
      add(coverage.asserted, operation, status);
      add(coverage.assertedBy, `${operation} ${status}`, by ?? '?');
    }
  }
  return coverage;
}
