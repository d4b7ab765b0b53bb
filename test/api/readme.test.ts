/**
 * The walkthroughs of docs/walkthrough.md (linked from the README), run as written (only the port
 * differs) against a running service, with their own token command: the front door must keep working.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { WrittenAnswer } from '#lib/local/gateway';
import { assertKeepsContract } from '#test/support/contract';
import { useService } from '#test/support/fixture';

/** curl's answers, as the service wrote them: held to openapi.json like the client's. */
const answers: WrittenAnswer[] = [];
// Counted with the client's (test/support/route-coverage.ts).
const ctx = useService({ onAnswer: (a) => answers.push(a) });

/** Holds the answers written since `before` to openapi.json; returns how many there were. */
function checkAnswersSince(before: number): number {
  const recent = answers.slice(before);
  for (const { method, path, statusCode, headers, body } of recent) {
    const fetchHeaders = new Headers(Object.entries(headers).map(([name, value]): [string, string] => [name, String(value)]));
    assertKeepsContract({ method, path, status: statusCode, headers: fetchHeaders, body: body.toString('utf8') });
  }
  return recent.length;
}

/** The first `sh` script after a heading of the walkthroughs, pointed at the test's service. */
async function walkthrough(heading: string): Promise<string> {
  const readme = await readFile(new URL('../../docs/walkthrough.md', import.meta.url), 'utf8');
  const section = readme.split(`\n${heading}\n`)[1] ?? '';
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!script) throw new Error(`docs/walkthrough.md has no script under "${heading}"`);
  expect(script).toContain('API=http://127.0.0.1:3000');
  return script.replace('API=http://127.0.0.1:3000', `API=${ctx.svc.url}`);
}

/** Runs the script under a heading of the walkthroughs as written (bash, stopping at the first error); its output. */
async function runWalkthrough(heading: string): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', await walkthrough(heading)], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, DATA_DIR: ctx.svc.dataDir },
    timeout: 60_000,
  });
  return stdout;
}

describe('Walkthrough: typed client example', () => {
  it('is lib/client/example.ts verbatim (which the typecheck compiles), and runs against the service', async () => {
    const readme = await readFile(new URL('../../docs/walkthrough.md', import.meta.url), 'utf8');
    const shown = /```ts\n([\s\S]*?)```/.exec(readme.split('## Typed client')[1] ?? '')?.[1];
    const example = await readFile(new URL('../../lib/client/example.ts', import.meta.url), 'utf8');
    expect(shown).toBe(example);
    const before = answers.length;
    const { stdout } = await promisify(execFile)('node', ['--import', 'tsx', 'lib/client/example.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, API: ctx.svc.url, TOKEN: await ctx.svc.issueToken('readme-typed-client') },
      timeout: 60_000,
    });
    expect(stdout).toContain("true\n[ 'Travel.md v1' ]\n2\n412 {");
    expect(stdout).toContain('urn:problem-type:documents:precondition-failed');
    expect(checkAnswersSince(before)).toBe(8);
  });
});

describe('Walkthrough: walkthrough', () => {
  it('runs as written and every step answers as the comments say', async () => {
    const before = answers.length;
    const stdout = await runWalkthrough('## With curl');
    const statuses = [...stdout.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
    // GET with ETag, PUT with If-Match "1", the same again (412), DELETE, GET after delete.
    expect(statuses).toEqual([200, 200, 412, 204, 404]);
    expect(stdout).toMatch(/"name":"Handbook"/);
    const lists = [...stdout.matchAll(/^\{"items":(\[.*?\])(,"nextToken":"[^"]+")?\}$/gm)].map((m) => JSON.parse(m[1]!));
    // The folder's two pages of documents, then the document's revisions.
    expect(lists).toHaveLength(3);
    expect(lists[0].map((d: { name: string }) => d.name)).toEqual(['Expenses.md', 'Holidays.md']);
    expect(lists[1].map((d: { name: string }) => d.name)).toEqual(['Travel.md']);
    expect(lists[2].map((r: { version: number }) => r.version)).toEqual([2, 1]);
    expect(stdout).toContain('etag: "2"');
    // Yesterday's version, for a document made today: its first; restored as version 3.
    const restored = stdout.split('\n').flatMap((line) => (line.includes('"version":3') ? [JSON.parse(line)] : []));
    expect(restored).toEqual([expect.objectContaining({ name: 'Expenses.md', content: '# Expenses.md', version: 3 })]);
    // The feed, followed from before the folder was made: each change once, in order.
    expect([...stdout.matchAll(/^change: (.*)$/gm)].map((m) => m[1])).toEqual([
      'created folder Policies version 1',
      'created document Travel.md version 1',
      'created document Expenses.md version 1',
      'created document Holidays.md version 1',
      'updated document Expenses.md version 2',
      'updated document Expenses.md version 3',
      'deleted document Expenses.md version 3',
    ]);
    expect(checkAnswersSince(before)).toBe(22);
  });
});

describe('Walkthrough: sharing walkthrough', () => {
  it('runs as written: bob lists and reads as a viewer, is refused a write, writes as an editor, then is out', async () => {
    const before = answers.length;
    const stdout = await runWalkthrough('## Sharing a repository');
    const statuses = [...stdout.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
    // bob made viewer (201), reads (200), may not write (403); made editor (200), writes (200);
    // removed (204), then reads nothing (404).
    expect(statuses).toEqual([201, 200, 403, 200, 200, 204, 404]);
    const lists = [...stdout.matchAll(/^\{"items":(\[.*?\])\}$/gm)].map((m) => JSON.parse(m[1]!));
    expect(lists).toHaveLength(2);
    // bob's GET /: the shared repository, with his role.
    expect(lists[0]).toEqual([expect.objectContaining({ name: 'Team plans', role: 'viewer' })]);
    // The members by user id: alice, then bob.
    expect(lists[1].map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
      ['alice', 'owner'],
      ['bob', 'editor'],
    ]);
    const written = stdout.split('\n').flatMap((line) => (line.startsWith('{') && line.includes('"version":2') ? [JSON.parse(line)] : []));
    expect(written).toEqual([expect.objectContaining({ content: '# Q3\n\nShip it.', version: 2, updatedBy: 'bob' })]);
    expect(stdout).toContain('urn:problem-type:documents:forbidden');
    expect(checkAnswersSince(before)).toBe(11);
  });
});

describe('Walkthrough: life-cycle walkthrough', () => {
  it('runs as written: rename, move, a refused cycle, delete to the trash, restore, delete the repository', async () => {
    const before = answers.length;
    const stdout = await runWalkthrough('## Renaming, moving, deleting, the trash');
    const statuses = [...stdout.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 200, 409, 204, 200, 204, 404]);
    expect(stdout).toContain('urn:problem-type:documents:folder-cycle');
    const lists = [...stdout.matchAll(/^\{"items":(\[.*?\])\}$/gm)].map((m) => JSON.parse(m[1]!));
    expect(lists).toHaveLength(2);
    // The trash: the folder, where it was (by then: in 2026).
    expect(lists[0]).toEqual([expect.objectContaining({ kind: 'folder', name: 'Old drafts' })]);
    // Restored with what was in it.
    expect(lists[1].map((d: { name: string }) => d.name)).toEqual(['Plan.md']);
    const folders = stdout.split('\n').filter((line) => line.startsWith('{') && line.includes('"parentId"') && !line.includes('"items"'));
    const renamed = folders.map((line) => JSON.parse(line));
    expect(renamed.map((f: { name: string; version: number }) => [f.name, f.version])).toEqual([
      ['Old drafts', 2],
      ['Old drafts', 3],
      ['Old drafts', 3],
    ]);
    expect(checkAnswersSince(before)).toBe(13);
  });
});
