/**
 * Numbers the suite reports about itself (responses checked against the contract, requests
 * the property test sent): printed per test file, and appended as JSON lines to
 * $TEST_STATS_FILE when it is set, so a run can add them up (.ci/run does).
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect } from 'vitest';

export function reportStat(name: string, value: number): void {
  const file = relative(process.cwd(), expect.getState().testPath ?? 'unknown');
  console.log(`[stats] ${file}: ${name}=${value}`);
  const target = process.env.TEST_STATS_FILE;
  if (target) appendFileSync(target, `${JSON.stringify({ file, [name]: value })}\n`);
}
