/**
 * openapi.json held to the service by a validator nobody here wrote: Stoplight Prism, as a
 * validating proxy in front of the running service. Every exchange goes through it; it reports
 * what it finds wrong with the request or the answer in `sl-violations`. The rules:
 *
 * - no answer may violate the document (a response violation is the document lying about the service);
 * - a request the service accepts (2xx) may not violate it either: that would be a schema
 *   stricter than the service, which client generators and validators would enforce (a name of
 *   200 `é` written decomposed, 400 code points as sent and 200 after NFC, was one);
 * - a request the service refuses may violate it, of course (that is why it was refused).
 *
 * The exchanges: every route's success and its usual refusals, and generated names and bodies on
 * the edges of the rules (fast-check).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '#lib/local/dynamodb-local';
import { useService } from '#test/support/fixture';
import { reportStat } from '#test/support/stats';
import { nearLength, text } from './arbitraries';

const ctx = useService();
let prism: ChildProcess;
let base: string;
let token: string;
const found: string[] = [];
let exchanges = 0;

beforeAll(async () => {
  token = await ctx.svc.issueToken(`prism-${Date.now()}`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  prism = spawn('node_modules/.bin/prism', ['proxy', 'openapi.json', ctx.svc.url, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  prism.stdout?.on('data', (chunk) => (output += chunk));
  prism.stderr?.on('data', (chunk) => (output += chunk));
  for (let waited = 0; !/Prism is listening/.test(output); waited += 100) {
    if (waited > 30_000 || prism.exitCode !== null) throw new Error(`Prism did not start:\n${output.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);
beforeEach(() => {
  found.length = 0;
});
afterAll(async () => {
  prism?.kill();
  if (exchanges > 0) reportStat('prismExchanges', exchanges);
});

interface Violation {
  location: string[];
  severity: string;
  message: string;
}

/** One exchange through Prism; records what breaks the rules above. */
async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  exchanges++;
  const violations = JSON.parse(res.headers.get('sl-violations') ?? '[]') as Violation[];
  for (const v of violations) {
    const side = v.location[0];
    if (side === 'response' || res.status < 300) {
      found.push(
        `${method} ${path} → ${res.status}: ${side} ${v.location.slice(1).join('.')}: ${v.message} (sent ${JSON.stringify(body)?.slice(0, 200)})`,
      );
    }
  }
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

describe('openapi.json, checked by Stoplight Prism in front of the service', () => {
  it('describes every answer of a walk through the API, and is never stricter than the service', async () => {
    const repo = (await send('POST', '/', { name: 'Prism checked', description: 'd' })).body;
    await send('GET', '/');
    await send('GET', `/${repo.id}`);
    await send('GET', `/${repo.id}/folder`);
    const folder = (await send('POST', '/folder', { parentId: repo.rootFolderId, name: 'e\u0301'.repeat(200) })).body;
    await send('GET', `/folder/${folder.id}`);
    await send('GET', `/folder/${repo.rootFolderId}/folders?limit=1`);
    const doc = (await send('POST', '/document', { folderId: folder.id, name: 'a.md', content: 'x', contentType: 'text/markdown' })).body;
    await send('GET', `/document/${doc.id}`);
    await send('GET', `/folder/${folder.id}/documents`);
    await send('PUT', '/document', { id: doc.id, content: 'y' }, { 'If-Match': '"1"' });
    await send('PUT', '/document', { id: doc.id, name: 'b.md' }, { 'If-Match': ' , "2", ' });
    await send('PUT', '/document', { id: doc.id, content: 'z' }, { 'If-Match': '"1"' }); // 412
    await send('POST', '/document', { folderId: folder.id, name: 'B.MD' }); // 409
    await send('POST', '/document', { folderId: folder.id, name: 'k.md' }, { 'Idempotency-Key': 'prism-1' });
    await send('POST', '/document', { folderId: folder.id, name: 'k.md' }, { 'Idempotency-Key': 'prism-1' }); // the first answer again
    await send('GET', `/document/${'x'.repeat(65)}`); // 400
    await send('GET', '/document/nothing-here'); // 404
    await send('DELETE', `/document/${doc.id}`, undefined, { 'If-Match': '"3"' });
    await send('GET', '/openapi.json');
    expect(found).toEqual([]);
  }, 60_000);

  it('accepts every name and body the service accepts (generated on the edges of the rules)', async () => {
    const folder = (
      await send('POST', '/folder', { parentId: (await send('POST', '/', { name: 'Generated' })).body.rootFolderId, name: 'g' })
    ).body;
    const names = fc.oneof(
      text(),
      nearLength(255),
      fc.constantFrom('e\u0301'.repeat(250), '\u00e9'.repeat(255), ' . ', '...', 'a\u202Eb', '\u200Bx', 'ΟΔΟΣ'),
    );
    await fc.assert(
      fc.asyncProperty(names, text(20), async (name, content) => {
        await send('POST', '/document', { folderId: folder.id, name, content });
      }),
      { numRuns: 120 },
    );
    expect(found).toEqual([]);
  }, 120_000);
});
