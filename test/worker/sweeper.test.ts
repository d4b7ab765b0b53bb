/**
 * The sweeper (functions/worker/sweeper.ts) against DynamoDB Local: background work whose stream
 * records never reached the worker (nothing reads this table's stream until a test says so) is
 * found in the sweep index and finished with the worker's own code; the feed keeps its
 * invariants (every change numbered exactly once, numbers without gaps, each item's changes in
 * version order, the write order kept); and a sweep beside the stream worker does no harm.
 * The sweeper runs as its declared function (lib/local/permissions.ts), so a grant it lacks fails here.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { dynamodb } from '#core/db/client';
import { newId } from '#core/ids';
import { createDocument, updateDocument } from '#core/items/document';
import { createFolder } from '#core/items/folder';
import { createRepository } from '#core/items/repository';
import { sweepIndex } from '#core/items/task';
import type { Caller } from '#core/resources';
import { trashFolder } from '#core/use-cases/trash';
import { sweeperFunction, workerFunction } from '#functions/routes';
import { type ChangeEvent, setEventSink } from '#functions/worker/events';
import { handler as streamHandler } from '#functions/worker/stream';
import { type SweepReport, sweep } from '#functions/worker/sweeper';
import { localClient } from '#lib/local/dynamodb-local';
import { ensureIndexes } from '#lib/local/layout-version';
import { enforcePermissions, runAsFunction } from '#lib/local/permissions';
import { type StreamFeeder, startStreamFeeder } from '#lib/local/stream-feeder';
import { createTestTable } from '#test/support/dynamodb';
import { useTable } from '#test/support/fixture';
import { findViolations, scanTable } from '#test/support/invariants';

type Item = Record<string, any>;
const table = useTable();
const events: ChangeEvent[] = [];
let n = 0;
const newCaller = (): Caller => ({ userId: `sweeper-${Date.now()}-${n++}` });

beforeAll(async () => {
  await ensureIndexes(table.endpoint, table.tableName);
  process.env.LOG_LEVEL = 'SILENT';
  enforcePermissions(dynamodb());
  setEventSink(async (published) => {
    events.push(...published);
  });
});

afterAll(() => setEventSink(undefined));

/** One sweep as the deployed sweeper's role would run it; grace 0: everything waiting is due. */
const sweepAll = (graceSeconds = 0): Promise<SweepReport> => runAsFunction(sweeperFunction, () => sweep({ graceSeconds }));

/** Sweeps until a sweep finds nothing (a task's steps may start more tasks). */
async function sweepUntilIdle(): Promise<SweepReport[]> {
  const reports: SweepReport[] = [];
  for (let i = 0; i < 50; i++) {
    const report = await sweepAll();
    reports.push(report);
    expect(report.failed).toBe(0);
    if (report.tasks + report.changes === 0) return reports;
  }
  throw new Error('the sweeps did not run out of work');
}

/** The worker on this table's stream, from its first record, as the local runtime runs it. */
async function streamWorker(): Promise<StreamFeeder> {
  const client = localClient(table.endpoint);
  try {
    return await startStreamFeeder(
      {
        endpoint: table.endpoint,
        tableName: table.tableName,
        handler: async () => (event) => runAsFunction(workerFunction, () => streamHandler(event)),
        onFailure: (records, reason) => {
          throw new Error(`the worker gave up on ${records.length} record(s): ${reason}`);
        },
      },
      client,
    );
  } finally {
    client.destroy();
  }
}

const feedOf = async (repositoryId: string) => (await scanTable()).filter((item) => item.PK === `FEED#${repositoryId}`);
const numbered = (feed: Item[]) => feed.filter((item) => item.SK.startsWith('S#')).sort((a, b) => a.seq - b.seq);

/** The feed's invariants: numbers 1…n without a gap, the counter at n, nothing pending, each item's versions rising. */
function expectWellNumbered(feed: Item[], count: number): Item[] {
  const changes = numbered(feed);
  expect(changes.map((c) => c.seq)).toEqual([...Array(count).keys()].map((i) => i + 1));
  expect(feed.find((item) => item.SK === 'SEQ')?.last).toBe(count);
  expect(feed.filter((item) => item.SK.startsWith('P#'))).toEqual([]);
  const lastVersion = new Map<string, number>();
  for (const change of changes) {
    if (typeof change.version !== 'number') continue;
    const item = `${change.kind}:${change.id}`;
    expect(change.version, `${item} at seq ${change.seq}`).toBeGreaterThanOrEqual(lastVersion.get(item) ?? 0);
    lastVersion.set(item, change.version);
  }
  // The sweep index's attributes stay on the pending item: a numbered change is not waiting.
  for (const change of changes) expect(change[sweepIndex.sortKey]).toBeUndefined();
  return changes;
}

describe('the sweeper', () => {
  it('numbers changes whose stream records were lost, once each, in the order they were written; a late stream adds nothing', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: `Lost ${newId()}`, description: '' });
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Notes' });
    const document = await createDocument(owner, { folderId: folder.id, name: 'a.txt', content: 'v1', contentType: 'text/plain' });
    const other = await createDocument(owner, { folderId: folder.id, name: 'b.txt', content: 'v1', contentType: 'text/plain' });
    for (let v = 2; v <= 6; v++) {
      await updateDocument(owner, { id: document.id, content: `v${v}` }, {});
      await updateDocument(owner, { id: other.id, content: `v${v}` }, {});
    }
    const written = 1 + 2 + 10; // the folder, two documents, ten updates
    const pending = (await feedOf(repository.id)).filter((item) => item.SK.startsWith('P#'));
    expect(pending).toHaveLength(written);

    // Within the grace nothing is taken: the stream may still bring it.
    expect((await sweepAll(3_600)).changes).toBe(0);

    const reports = await sweepUntilIdle();
    expect(reports[0]!.changes).toBe(written);
    const changes = expectWellNumbered(await feedOf(repository.id), written);
    // In the order written: the folder, the documents, then the updates in turn.
    expect(changes.map((c) => [c.type, c.kind, c.id, c.version ?? null])).toEqual([
      ['created', 'folder', folder.id, 1],
      ['created', 'document', document.id, 1],
      ['created', 'document', other.id, 1],
      ...[2, 3, 4, 5, 6].flatMap((v) => [
        ['updated', 'document', document.id, v],
        ['updated', 'document', other.id, v],
      ]),
    ]);
    expect(changes.map((c) => c.at)).toEqual(pending.map((p) => p.at).sort());

    // Again: nothing more to do.
    expect((await sweepAll()).changes).toBe(0);

    // The stream's records arrive after all (a late worker): each change is still numbered once, and published.
    const worker = await streamWorker();
    try {
      await worker.settled();
    } finally {
      await worker.stop();
    }
    expectWellNumbered(await feedOf(repository.id), written);
    const published = events.map((e) => JSON.parse(e.Detail)).filter((d) => d.repositoryId === repository.id);
    expect(new Set(published.map((d) => d.seq))).toEqual(new Set(changes.map((c) => c.seq)));
  }, 120_000);

  it('numbers changes whose records were lost ahead of a later change the stream delivers, so none is overtaken', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: `Overtaken ${newId()}`, description: '' });
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Notes' });
    const document = await createDocument(owner, { folderId: folder.id, name: 'a.txt', content: 'v1', contentType: 'text/plain' });
    await updateDocument(owner, { id: document.id, content: 'v2' }, {});
    const lost = (await feedOf(repository.id)).filter((item) => item.SK.startsWith('P#'));
    expect(lost).toHaveLength(3);
    await updateDocument(owner, { id: document.id, content: 'v3' }, {});
    const later = (await feedOf(repository.id)).find((item) => item.SK.startsWith('P#') && item.version === 3)!;

    // Only the last change's record reaches the worker (the others' were given up on, which on
    // AWS takes the mapping's retries: by then they are past the sweeper's grace, here made 0).
    process.env.SWEEP_GRACE_SECONDS = '0';
    onTestFinished(() => void delete process.env.SWEEP_GRACE_SECONDS);
    const record = {
      eventName: 'INSERT',
      dynamodb: { Keys: marshall({ PK: later.PK, SK: later.SK }), NewImage: marshall(later), SequenceNumber: '1' },
    } as unknown as DynamoDBRecord;
    const answer = await runAsFunction(workerFunction, () => streamHandler({ Records: [record] }));
    expect(answer.batchItemFailures).toEqual([]);
    const changes = expectWellNumbered(await feedOf(repository.id), 4);
    expect(changes.map((c) => [c.type, c.id, c.version])).toEqual([
      ['created', folder.id, 1],
      ['created', document.id, 1],
      ['updated', document.id, 2],
      ['updated', document.id, 3],
    ]);
  });

  it('finishes a trash task whose stream record was lost, and the tasks it starts', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: `Stuck ${newId()}`, description: '' });
    const big = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Big' });
    const documents: string[] = [];
    for (let f = 0; f < 3; f++) {
      const sub = await createFolder(owner, { parentId: big.id, name: `sub ${f}` });
      for (let d = 0; d < 5; d++) {
        documents.push(
          (await createDocument(owner, { folderId: sub.id, name: `d${d}.txt`, content: `${d}`, contentType: 'text/plain' })).id,
        );
      }
    }
    await trashFolder(owner, big.id, {}, { recursive: true });
    const before = await scanTable();
    expect(before.filter((item) => item.PK.startsWith('TASK#'))).toHaveLength(1);
    expect(findViolations(before).some((line) => /task left/.test(line))).toBe(true);

    const reports = await sweepUntilIdle();
    expect(reports.reduce((sum, r) => sum + r.tasks, 0)).toBeGreaterThanOrEqual(1 + 3); // the folder's task, then its sub folders'
    const after = await scanTable();
    expect(findViolations(after)).toEqual([]);
    for (const id of documents) expect(after.find((item) => item.PK === `DOC#${id}` && item.SK === 'DOC')?.trash?.root).toBe(big.id);
  }, 120_000);

  it('takes only work that has waited past the grace: a task advanced a moment ago is left to the stream', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: `Fresh ${newId()}`, description: '' });
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'F' });
    await createFolder(owner, { parentId: folder.id, name: 'G' });
    await trashFolder(owner, folder.id, {}, { recursive: true });
    const report = await sweepAll(60);
    expect(report).toMatchObject({ tasks: 0, changes: 0 });
    expect((await scanTable()).filter((item) => item.PK.startsWith('TASK#') && item.repositoryId === repository.id)).toHaveLength(1);
    await sweepUntilIdle();
  }, 60_000);

  it('does no harm beside the stream worker: every change numbered once, every task done once', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: `Both ${newId()}`, description: '' });
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Shared' });
    const docs = [];
    for (let i = 0; i < 6; i++) {
      docs.push(await createDocument(owner, { folderId: folder.id, name: `d${i}.txt`, content: '1', contentType: 'text/plain' }));
    }
    const doomed = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Doomed' });
    for (let i = 0; i < 3; i++) {
      const sub = await createFolder(owner, { parentId: doomed.id, name: `s${i}` });
      for (let j = 0; j < 4; j++)
        await createDocument(owner, { folderId: sub.id, name: `x${j}.txt`, content: '1', contentType: 'text/plain' });
    }
    const worker = await streamWorker();
    let sweeping = true;
    const sweeps = (async () => {
      const reports: SweepReport[] = [];
      while (sweeping) reports.push(await sweepAll());
      return reports;
    })();
    try {
      // Writes while both run (one writer: what races here is the worker and the sweeper): the
      // subtree to the trash, and updates of each document in turn.
      const updates = 5;
      await trashFolder(owner, doomed.id, {}, { recursive: true });
      for (let v = 2; v <= updates + 1; v++) {
        for (const doc of docs) await updateDocument(owner, { id: doc.id, content: `v${v}` }, {});
      }
      await worker.settled();
      sweeping = false;
      const reports = await sweeps;
      expect(reports.every((r) => r.failed === 0)).toBe(true);
      // The sweeps did take work the stream was doing too: they met.
      expect(reports.reduce((sum, r) => sum + r.tasks + r.changes, 0)).toBeGreaterThan(0);
      await worker.settled();
    } finally {
      sweeping = false;
      await worker.stop();
    }
    const items = await scanTable();
    expect(findViolations(items)).toEqual([]);
    const writes = 1 + 6 + 1 + 3 + 12 + 6 * 5 + 1; // folders and documents made, the updates, the delete
    const changes = expectWellNumbered(
      items.filter((item) => item.PK === `FEED#${repository.id}`),
      writes,
    );
    expect(changes.filter((c) => c.type === 'deleted').map((c) => c.id)).toEqual([doomed.id]);
  }, 180_000);

  it('is given its index on a table made without it, with the items already there', async () => {
    const { endpoint: at, tableName: bare } = await createTestTable();
    const client = localClient(at);
    try {
      const key = { PK: { S: 'TASK#00000000-0000-4000-8000-000000000000' }, SK: { S: 'TASK' } };
      await client.send(
        new PutItemCommand({
          TableName: bare,
          Item: { ...key, [sweepIndex.partitionKey]: { S: '00' }, [sweepIndex.sortKey]: { S: '2026-01-01T00:00:00.000Z' } },
        }),
      );
      await ensureIndexes(at, bare);
      await ensureIndexes(at, bare); // once there, nothing to do
      const { QueryCommand } = await import('@aws-sdk/client-dynamodb');
      const { Items } = await client.send(
        new QueryCommand({
          TableName: bare,
          IndexName: sweepIndex.name,
          KeyConditionExpression: '#s = :s',
          ExpressionAttributeNames: { '#s': sweepIndex.partitionKey },
          ExpressionAttributeValues: { ':s': { S: '00' } },
        }),
      );
      expect(Items?.map((item) => item.PK?.S)).toEqual([key.PK.S]);
    } finally {
      client.destroy();
    }
  });
});
