/**
 * The README's curl walkthrough, run as written (only the port differs) against a running
 * service, with the README's own token command: the front door must keep working.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenAnswer } from '#lib/local/gateway';
import { type LocalService, startLocalService } from '#lib/local/service';
import { assertKeepsContract, contractStats } from '#test/support/contract';
import { createTestTable } from '#test/support/dynamodb';
import { reportStat } from '#test/support/stats';

let service: LocalService;
let dataDir: string;
/** curl's answers, as the service wrote them: held to openapi.json like the client's. */
const answers: WrittenAnswer[] = [];

beforeAll(async () => {
  const { endpoint, tableName } = await createTestTable();
  dataDir = await mkdtemp(join(tmpdir(), 'documents-readme-'));
  service = await startLocalService({
    port: 0,
    dataDir,
    tableName,
    dynamodbEndpoint: endpoint,
    log: () => {},
    onAnswer: (a) => answers.push(a),
  });
});
afterAll(async () => {
  reportStat('responsesValidated', contractStats.validated);
  await service?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Holds the answers written since `before` to openapi.json; returns how many there were. */
function checkAnswersSince(before: number): number {
  const recent = answers.slice(before);
  for (const { method, path, statusCode, headers, body } of recent) {
    const fetchHeaders = new Headers(Object.entries(headers).map(([name, value]): [string, string] => [name, String(value)]));
    assertKeepsContract({ method, path, status: statusCode, headers: fetchHeaders, body: body.toString('utf8') });
  }
  return recent.length;
}

async function walkthrough(): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('## Walkthrough with curl')[1] ?? '';
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!script) throw new Error('README.md has no walkthrough script');
  expect(script).toContain('API=http://127.0.0.1:3000');
  return script.replace('API=http://127.0.0.1:3000', `API=${service.url}`);
}

describe('README typed client example', () => {
  it('is lib/client/example.ts verbatim (which the typecheck compiles), and runs against the service', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const shown = /```ts\n([\s\S]*?)```/.exec(readme.split('## Typed client')[1] ?? '')?.[1];
    const example = await readFile(new URL('../../lib/client/example.ts', import.meta.url), 'utf8');
    expect(shown).toBe(example);
    const before = answers.length;
    const { stdout } = await promisify(execFile)('node', ['--import', 'tsx', 'lib/client/example.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, API: service.url, TOKEN: await service.issueToken('readme-typed-client') },
      timeout: 60_000,
    });
    expect(stdout).toContain("[ 'Travel.md v1' ]\n2\n412 {");
    expect(stdout).toContain('urn:problem-type:documents:precondition-failed');
    expect(checkAnswersSince(before)).toBe(7);
  });
});

describe('README walkthrough', () => {
  it('runs as written and every step answers as the comments say', async () => {
    const before = answers.length;
    const script = await walkthrough();
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, DATA_DIR: dataDir },
      timeout: 60_000,
    });
    const statuses = [...stdout.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
    // GET with ETag, PUT with If-Match "1", the same again (412), DELETE, GET after delete.
    expect(statuses).toEqual([200, 200, 412, 204, 404]);
    expect(stdout).toMatch(/"name":"Handbook"/);
    const pages = [...stdout.matchAll(/^\{"items":(\[.*?\])(,"nextToken":"[^"]+")?\}$/gm)];
    expect(pages).toHaveLength(2);
    expect(JSON.parse(pages[0]![1]!).map((d: { name: string }) => d.name)).toEqual(['Expenses.md', 'Holidays.md']);
    expect(JSON.parse(pages[1]![1]!).map((d: { name: string }) => d.name)).toEqual(['Travel.md']);
    expect(stdout).toContain('etag: "2"');
    expect(checkAnswersSince(before)).toBe(12);
  });
});
