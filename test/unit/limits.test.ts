/**
 * The limits a test may lower (functions/core/limits.ts: DOCUMENTS_TEST_LIMITS) have their
 * production values, the ones docs/api.md states, wherever the override is not set, and the
 * override is honoured only under vitest: a function started with it set elsewhere keeps them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatCount, MAX_FOLDER_DEPTH, MAX_MEMBERS, MAX_REPOSITORIES_PER_USER } from '#core/limits';

/** docs/api.md's Limits table: what → limit, as written. */
function documentedLimits(): Map<string, string> {
  const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('\n### Limits\n'), doc.indexOf('\n## 4. Endpoints'));
  const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| What ') && !line.startsWith('|---'));
  return new Map(rows.map((row) => row.split('|').map((cell) => cell.trim())).map((cells) => [cells[1]!, cells[2]!] as const));
}

/** The three limits as a fresh Node process loads them, with this environment. */
function limitsIn(env: Record<string, string>): number[] {
  const script =
    "const l = await import('#core/limits'); console.log(JSON.stringify([l.MAX_MEMBERS, l.MAX_REPOSITORIES_PER_USER, l.MAX_FOLDER_DEPTH]))";
  const { VITEST: _, DOCUMENTS_TEST_LIMITS: __, ...inherited } = process.env;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../../', import.meta.url),
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as number[];
}

describe('limits', () => {
  it('are the documented ones in production (docs/api.md: Limits)', () => {
    const documented = documentedLimits();
    expect(documented.get('Members of one repository')).toMatch(/^1,000,/);
    expect(documented.get('Repositories one user is a member of')).toMatch(/^1,000,/);
    expect(documented.get('Depth of folders')).toMatch(/^50 levels below the root folder/);
    expect([MAX_MEMBERS, MAX_REPOSITORIES_PER_USER, MAX_FOLDER_DEPTH]).toEqual([1_000, 1_000, 50]);
  });

  it('are lowered only under vitest: the override is ignored by a process vitest did not start', () => {
    const lowered = JSON.stringify({ members: 5, repositoriesPerUser: 6, folderDepth: 7 });
    expect(limitsIn({ DOCUMENTS_TEST_LIMITS: lowered })).toEqual([1_000, 1_000, 50]);
    expect(limitsIn({ DOCUMENTS_TEST_LIMITS: lowered, VITEST: 'true' })).toEqual([5, 6, 7]);
  });

  it('are written in messages as the docs write them, with thousands separators', () => {
    const counts = [0, 7, 50, 999, 1_000, 12_345, 999_999, 1_000_000, 10_737_418_240];
    expect(counts.map(formatCount)).toEqual(counts.map((n) => n.toLocaleString('en-US')));
  });
});
