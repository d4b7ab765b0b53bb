/**
 * The database going away under a running service: 503 problem+json with Retry-After,
 * nothing internal in the body. The test starts its own DynamoDB Local to stop, so the
 * shared one keeps serving the other test files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '#core/http/operation';
import { routes } from '#functions/routes';
import { exampleCall } from '#lib/examples';
import { type DynamoDbLocal, ensureTable, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { type LocalService, startLocalService } from '#lib/local/service';
import { loadOperations } from '#lib/openapi/document';
import { type HttpResponse, newDocument, newFolder, newRepository, newUser } from '#test/support/http';

let database: DynamoDbLocal;
let service: LocalService;
let dataDir: string;

beforeAll(async () => {
  database = await startDynamoDbLocal({ port: 0 });
  await ensureTable(database.endpoint, 'unavailable');
  dataDir = await mkdtemp(join(tmpdir(), 'documents-unavailable-'));
  service = await startLocalService({ port: 0, dataDir, tableName: 'unavailable', dynamodbEndpoint: database.endpoint, log: () => {} });
});
afterAll(async () => {
  await service?.stop();
  await database?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('when DynamoDB is unavailable', () => {
  it('answers 503 with Retry-After on every route that reads or writes the table, revealing nothing internal', async () => {
    const { api } = await newUser(service);
    const repository = await newRepository(api);
    const folder = await newFolder(api, repository.rootFolderId);
    const document = await newDocument(api, folder.id);
    const [r, f, d] = [repository.id, folder.id, document.id];
    // The example each route declares (its handler module's `operation.example`): answered with
    // success, were the database there. Every route that reads or writes the table sends one.
    const operations = await loadOperations();
    const scene: Scene = {
      repository: r,
      folder: f,
      document: d,
      trashedDocument: d,
      member: 'someone',
      upload: d,
      sentUpload: d,
      // Well formed (a link id names its repository), so the link is looked up, not refused unread.
      link: `${r}${'0'.repeat(22)}`,
      linkToken: `${r}${'0'.repeat(22)}.${d}.${'A'.repeat(32)}`,
      unique: 'later',
    };
    const backed = routes.filter((route) => route.dynamodb.length > 0);
    const requests: Record<string, () => Promise<HttpResponse>> = Object.fromEntries(
      backed.map((route) => {
        const { method, path, body, raw } = exampleCall(route, operations.get(route.name)!.example, scene);
        const sent = raw === undefined ? {} : { raw: raw.body, headers: { 'content-type': raw.contentType } };
        return [route.name, () => api.request(method, path, body === undefined ? sent : { json: body })];
      }),
    );
    // With an Idempotency-Key the key's record is the first thing written.
    requests.CreateRepositoryOnce = () => api.post('/', { name: 'later' }, { 'Idempotency-Key': 'unavailable-1' });
    expect(backed.length).toBeGreaterThan(20);
    await database.stop();

    for (const send of Object.values(requests)) {
      const res = await send();
      expect(res.status, res.request).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ type: 'urn:problem-type:documents:unavailable', status: 503 });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.ts|DynamoDB/i);
    }
  });
});
