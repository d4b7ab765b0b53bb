/**
 * Faults between the service and its database (test/support/fault-proxy.ts): latency,
 * connections reset before or after the database answered, and a black hole. Every answer is
 * a success or a 503 with Retry-After — never a 500, never a hang past the function's timeout —
 * and once the faults stop and the worker has caught up, the table's invariants hold.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutSeconds } from '#lib/function-settings';
import { type LocalService, startLocalService } from '#lib/local/service';
import { createTestTable } from '#test/support/dynamodb';
import { type FaultProxy, startFaultProxy } from '#test/support/fault-proxy';
import { withOwner } from '#test/support/fixture';
import { type HttpResponse, newFolder, type Repository, type User } from '#test/support/http';
import { expectInvariants } from '#test/support/invariants';

let proxy: FaultProxy;
let service: LocalService;
let dataDir: string;
let user: User;
let repo: Repository;

beforeAll(async () => {
  const { endpoint, tableName } = await createTestTable();
  proxy = await startFaultProxy(endpoint);
  dataDir = await mkdtemp(join(tmpdir(), 'documents-faults-'));
  service = await startLocalService({ dataDir, tableName, dynamodbEndpoint: proxy.endpoint, log: () => {} });
  ({ user, repo } = await withOwner(service));
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await proxy?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * What a 503 must never show of the database's side: an errno (`ECONNRESET`, `ECONNREFUSED`),
 * the socket, a host address or port (the proxy and DynamoDB Local listen on 127.0.0.1), a
 * source position. (One backslash before each dot: in a regex literal `\\.` would be a backslash
 * and then any character, and an address would never match.)
 */
const LEAKS = /ECONN|EPIPE|ETIMEDOUT|socket|127\.0\.0\.1|localhost:\d+|\b\d{1,3}(\.\d{1,3}){3}\b|\.ts:\d+/i;

/** A success, or a 503 problem with Retry-After and nothing internal. */
function expectSuccessOr503(res: HttpResponse): void {
  if (res.status < 300) return;
  expect(res.status, `${res.request} → ${res.status} ${res.text.slice(0, 300)}`).toBe(503);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.text, `${res.request}: shows internals`).not.toMatch(LEAKS);
}

/** A lane of writes on one document of its own: what a client does, stopping when a step fails. */
async function lane(folderId: string, n: number): Promise<HttpResponse[]> {
  const answers: HttpResponse[] = [];
  const created = await user.api.post('/document', { folderId, name: `lane ${n}.txt`, content: 'one' });
  answers.push(created);
  if (created.status !== 201) return answers;
  const id = created.body.id as string;
  for (const step of [
    () => user.api.put('/document', { id, content: 'two' }),
    () => user.api.put('/document', { id, name: `lane ${n} renamed.txt` }),
    () => user.api.get(`/document/${id}`),
    () => user.api.get(`/folder/${folderId}/documents`),
    () => user.api.delete(`/document/${id}`),
  ]) {
    const res = await step();
    answers.push(res);
    if (res.status >= 300) break;
  }
  return answers;
}

describe('between the service and DynamoDB', () => {
  it('(the leak check itself catches what a database error would show)', () => {
    for (const leak of [
      'connect ECONNREFUSED 127.0.0.1:8000',
      'Error: socket hang up',
      'http://127.0.0.1:45123/',
      'read ECONNRESET at TLSWrap (10.0.3.7)',
      'at send (functions/core/store/client.ts:12:3)',
    ])
      expect(leak).toMatch(LEAKS);
    expect('{"type":"urn:problem-type:documents:unavailable","title":"Service unavailable","status":503}').not.toMatch(LEAKS);
  });

  it('with latency: everything still succeeds', async () => {
    proxy.set({ kind: 'latency', ms: 100 });
    const folder = await newFolder(user.api, repo.rootFolderId);
    const answers = (await Promise.all([0, 1, 2].map((n) => lane(folder.id, n)))).flat();
    proxy.set({ kind: 'none' });
    for (const res of answers) expect(res.status, `${res.request} → ${res.text.slice(0, 200)}`).toBeLessThan(300);
  });

  it('with connections reset before or after the database answered: 2xx or 503, never 500; invariants hold after', async () => {
    const folder = await newFolder(user.api, repo.rootFolderId);
    proxy.set({ kind: 'reset', probability: 0.25 });
    const answers = (await Promise.all(Array.from({ length: 8 }, (_, n) => lane(folder.id, n)))).flat();
    proxy.set({ kind: 'none' });
    expect(proxy.stats.resets).toBeGreaterThan(5);
    for (const res of answers) expectSuccessOr503(res);
    expect(answers.some((res) => res.status < 300)).toBe(true);
    await service.worker.settled();
    await expectInvariants({ endpoint: proxy.endpoint, tableName: service.tableName });
  });

  it('with a black hole: 503 before the function would time out, never a hang; invariants hold after', async () => {
    const folder = await newFolder(user.api, repo.rootFolderId);
    proxy.set({ kind: 'blackhole' });
    const started = Date.now();
    const answers = await Promise.all([
      user.api.get(`/${repo.id}`),
      user.api.post('/document', { folderId: folder.id, name: 'into the void.txt' }),
      user.api.get(`/folder/${folder.id}/documents`),
    ]);
    const elapsed = Date.now() - started;
    proxy.set({ kind: 'none' });
    for (const res of answers) {
      expect(res.status, res.request).toBe(503);
      expectSuccessOr503(res);
    }
    expect(elapsed).toBeLessThan(timeoutSeconds * 1000);
    await service.worker.settled();
    await expectInvariants({ endpoint: proxy.endpoint, tableName: service.tableName });
  }, 60_000);
});
