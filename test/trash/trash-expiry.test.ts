/**
 * The 30-day purge (docs/api.md: Trash): an item leaves the trash, and the table, when DynamoDB's
 * TTL removes its trash record; the worker purges it from the stream. Locally the trash records'
 * TTL is the local runtime's (lib/local/ttl.ts: DynamoDB Local's own skips items outside the sweep
 * index), every TTL_INTERVAL_MS. This file runs a DynamoDB Local of its own (the suite's is busy
 * with other files' tables), and brings the records' expiry (30 days out) to the past.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { db, tableName } from '#core/db/client';
import { repositoryPartition, TRASH_PREFIX } from '#core/items/keys';
import { type DynamoDbLocal, startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { withOwner } from '#test/support/fixture';
import { ensure, newDocument, newFolder, type Repository, type User } from '#test/support/http';
import { expectInvariants, scanTable } from '#test/support/invariants';
import { startTestService, type TestService } from '#test/support/service';

let database: DynamoDbLocal;
let svc: TestService;
let owner: User;
let repo: Repository;

beforeAll(async () => {
  database = await startDynamoDbLocal({});
  svc = await startTestService({ dynamodbEndpoint: database.endpoint });
  ({ user: owner, repo } = await withOwner(svc));
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  await database?.stop();
});

it('purges an item when DynamoDB’s TTL removes its trash record, and leaves one that was restored', async () => {
  const folder = await newFolder(owner.api, repo.rootFolderId, 'Old');
  const inside = await newDocument(owner.api, folder.id, { name: 'inside.txt' });
  const document = await newDocument(owner.api, repo.rootFolderId, { name: 'old.txt' });
  const restored = await newDocument(owner.api, repo.rootFolderId, { name: 'restored.txt' });
  ensure(await owner.api.delete(`/folder/${folder.id}?recursive=true`), 204);
  ensure(await owner.api.delete(`/document/${document.id}`), 204);
  ensure(await owner.api.delete(`/document/${restored.id}`), 204);
  await svc.worker.settled();
  const records = (await scanTable()).filter(
    (item) => item.PK === repositoryPartition(repo.id) && String(item.SK).startsWith(TRASH_PREFIX),
  );
  expect(records.map((r) => r.id).sort()).toEqual([folder.id, document.id, restored.id].sort());
  for (const record of records) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: record.PK, SK: record.SK },
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 60 },
      }),
    );
  }
  // Restored before its record expires: its record goes with the restore, the TTL finds nothing of it.
  ensure(await owner.api.post(`/${repo.id}/trash/${restored.id}/restore`, {}), 200);

  const trash = async () => ensure(await owner.api.get(`/${repo.id}/trash`), 200).body.items as { id: string }[];
  // The next TTL pass, at most 10 s away.
  const began = Date.now();
  while ((await trash()).length > 0 && Date.now() < began + 150_000) await new Promise((r) => setTimeout(r, 250));
  expect(await trash()).toEqual([]);
  console.log(`[stats] trash records expired by the local TTL after ${Date.now() - began} ms`);
  await svc.worker.settled();
  await expectInvariants();
  const gone = new Set([folder.id, inside.id, document.id]);
  const left = (await scanTable()).filter(
    (item) => !String(item.PK).startsWith('FEED#') && (gone.has(item.id) || [...gone].some((id) => String(item.PK).endsWith(`#${id}`))),
  );
  expect(left).toEqual([]);
  expect(ensure(await owner.api.get(`/document/${restored.id}`), 200).body.name).toBe('restored.txt');
  // The purges are in the feed, by the service.
  const changes = (await scanTable()).filter((item) => item.PK === `FEED#${repo.id}` && item.type === 'purged');
  expect(changes.map((c) => [c.id, c.by]).sort()).toEqual(
    [
      [document.id, 'documents-service'],
      [folder.id, 'documents-service'],
    ].sort(),
  );
}, 200_000);
