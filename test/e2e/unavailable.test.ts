/**
 * The database going away under a running service: 503 problem+json with Retry-After,
 * nothing internal in the body. The test starts its own DynamoDB Local to stop, so the
 * shared one keeps serving the other test files.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoDbLocal, ensureTable, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { type LocalService, startLocalService } from '#lib/local/service';
import { newRepository, newUser } from '#test/support/http';

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
  it('answers 503 with Retry-After for reads and writes, revealing nothing internal', async () => {
    const { api } = await newUser(service);
    const repository = await newRepository(api);
    await database.stop();

    for (const res of [await api.get(`/${repository.id}`), await api.post('/', { name: 'later' }), await api.get('/')]) {
      expect(res.status, res.request).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ type: 'urn:problem-type:documents:unavailable', status: 503 });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|at .*\.ts|DynamoDB/i);
    }
  });
});
