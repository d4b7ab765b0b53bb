/**
 * The background worker is restartable: the local service (`bin/local.ts`, node and DynamoDB
 * Local) is SIGKILLed in the middle of purging a big subtree, started again on the same
 * DATA_DIR, and the purge finishes: nothing of the subtree is left, nothing else was touched,
 * the table's invariants hold (test/support/invariants.ts), and what anyone can see of the
 * purge (the trash, the feed's `purged` change, the folder next to it) shows it happened once.
 */

import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClient } from '#lib/local/dynamodb-local';
import { loadLocalIssuer } from '#lib/local/jwt';
import { defaultTableName } from '#lib/table';
import { killHard, type Running, removeService, startService, waitUntilGone } from '#test/support/child-service';
import { Api, ensure, type Folder, inBatches, listAll } from '#test/support/http';
import { findViolations, scanTable } from '#test/support/invariants';

/** 6 folders of 50 documents, two levels below the folder purged. */
const BRANCHES = 3;
const LEAVES = 2;
const DOCUMENTS = 50;

let dataDir: string;
let running: Running | undefined;
let token: string;

beforeAll(async () => {
  // tmpfs where there is one: the kill is what is tested, not the disk's fsync.
  dataDir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'documents-worker-restart-'));
  running = await startService(dataDir);
  token = await (await loadLocalIssuer(dataDir)).issueToken('worker-restart-owner');
}, 60_000);

afterAll(() => removeService(running, dataDir), 30_000);

/** Entries left in these folders' listings: how far a purge got, read straight from the table. */
async function entriesLeft(endpoint: string, folders: readonly string[]): Promise<number> {
  const client = localClient(endpoint);
  try {
    const counts = await Promise.all(
      folders.map(
        async (id) =>
          (
            await client.send(
              new QueryCommand({
                TableName: defaultTableName,
                KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
                ExpressionAttributeValues: { ':pk': { S: `FOLDER#${id}` }, ':from': { S: 'D#' }, ':to': { S: 'F$' } },
                Select: 'COUNT',
                ConsistentRead: true,
              }),
            )
          ).Count ?? 0,
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  } finally {
    client.destroy();
  }
}

/** Background work is done when no task is left and no change waits to be numbered, twice in a row a second apart. */
async function workerDone(endpoint: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  while (quiet < 2) {
    if (Date.now() > deadline) throw new Error('the background work did not finish in time');
    const pending = (await scanTable({ endpoint, tableName: defaultTableName })).filter(
      (item) => String(item.PK).startsWith('TASK#') || (String(item.PK).startsWith('FEED#') && String(item.SK).startsWith('P#')),
    );
    quiet = pending.length === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

describe('the worker across a SIGKILL of the local service', () => {
  it('finishes a purge killed half way once the service is started again, doing nothing twice that anyone can see', async () => {
    let api = new Api(running!.url, token);
    const repo = ensure(await api.post('/', { name: 'Restartable' }), 201).body;
    const big = ensure(await api.post('/folder', { parentId: repo.rootFolderId, name: 'Big' }), 201).body as Folder;
    const keep = ensure(await api.post('/folder', { parentId: repo.rootFolderId, name: 'Keep' }), 201).body as Folder;
    const kept = await inBatches([...Array(20).keys()], 8, async (i) =>
      ensure(await api.post('/document', { folderId: keep.id, name: `keep-${i}.txt`, content: `kept ${i}` }), 201),
    );
    const leaves: string[] = [];
    for (let b = 0; b < BRANCHES; b++) {
      const branch = ensure(await api.post('/folder', { parentId: big.id, name: `branch ${b}` }), 201).body as Folder;
      for (let l = 0; l < LEAVES; l++)
        leaves.push(ensure(await api.post('/folder', { parentId: branch.id, name: `leaf ${l}` }), 201).body.id);
    }
    const all = leaves.flatMap((leaf) => [...Array(DOCUMENTS).keys()].map((i) => ({ leaf, i })));
    await inBatches(all, 8, async ({ leaf, i }) =>
      ensure(await api.post('/document', { folderId: leaf, name: `doc-${i}.txt`, content: `document ${i} of ${leaf}` }), 201),
    );
    const total = all.length;

    ensure(await api.delete(`/folder/${big.id}?recursive=true`), 204);
    await workerDone(running!.dynamodbEndpoint, 120_000);
    ensure(await api.delete(`/${repo.id}/trash/${big.id}`), 204);

    // Kill everything once the purge is under way, and well before it is done.
    let left = total;
    const watchUntil = Date.now() + 60_000;
    while (left > total * 0.8 && Date.now() < watchUntil) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = await entriesLeft(running!.dynamodbEndpoint, leaves);
    }
    killHard(running!);
    await waitUntilGone(running!, dataDir);
    expect(left, 'the purge had begun').toBeLessThan(total);
    expect(left, 'the purge had not finished').toBeGreaterThan(0);
    console.log(`[stats] worker restart: killed with ${left} of ${total} documents left to purge`);

    running = await startService(dataDir);
    api = new Api(running.url, token);
    await workerDone(running.dynamodbEndpoint, 180_000);
    const items = await scanTable({ endpoint: running.dynamodbEndpoint, tableName: defaultTableName });
    expect(findViolations(items)).toEqual([]);
    expect(await entriesLeft(running.dynamodbEndpoint, leaves)).toBe(0);
    const purged = new Set([big.id, ...leaves]);
    const remains = items.filter(
      (item) =>
        !String(item.PK).startsWith('FEED#') &&
        (purged.has(item.id) ||
          purged.has(item.folderId) ||
          purged.has(item.parentId) ||
          leaves.some((leaf) => item.PK === `FOLDER#${leaf}`)),
    );
    expect(remains).toEqual([]);
    // What anyone can see: the trash is empty, the feed has the purge once, the other folder is as it was.
    expect((await listAll(api, `/${repo.id}/trash`)).items).toEqual([]);
    const purges = items.filter((item) => item.PK === `FEED#${repo.id}` && item.type === 'purged');
    expect(purges.map((change) => change.id)).toEqual([big.id]);
    const keptNow = (await listAll<{ id: string; version: number }>(api, `/folder/${keep.id}/documents`, 100)).items;
    expect(keptNow.map((d) => [d.id, d.version]).sort()).toEqual(kept.map((res) => [res.body.id, 1]).sort());
    ensure(await api.get(`/folder/${keep.id}`), 200);
    expect((await api.get(`/folder/${big.id}`)).status).toBe(404);
  }, 420_000);
});
