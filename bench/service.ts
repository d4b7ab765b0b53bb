/**
 * The service process: the local service (lib/local/service.ts, what `npm start` runs) and
 * what must share its DynamoDB client — the fixture, seeding, the request recorder, and the
 * baseline, each endpoint's store call made directly. The runner (run.ts) calls these over IPC.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, getItems, type Item, tableName } from '#core/db/client';
import { documentKey, documentPartition, folderKey, folderPartition } from '#core/items/keys';
import { type LocalService, startLocalService } from '#lib/local/service';
import { findViolations, scanTable } from '#test/support/invariants';
import { type Call, callsOf, endpointNamed } from './endpoints';
import { type Fixture, makeFixture, makeTargets, makeTree, type TargetKind, type Tree } from './fixture';
import { closedLoop } from './load';
import { startProfile, stopProfile } from './profile';
import { startRecording, stopRecording } from './recorder';
import { serve } from './rpc';
import { seedDocuments } from './seed';

let service: LocalService | undefined;
let fixture: Fixture;
let dataDir = '';
let batch = 0;
let next: () => Promise<unknown>;
/** The life-cycle scenario's trees, by name. */
const trees = new Map<string, Tree>();

/** Documents for writes to change, in the write folder unless told otherwise. */
const seed = (count: number, folderId = fixture.writeFolderId) => seedDocuments(fixture.caller, folderId, count, `s${batch++}-`);

const handlers = {
  async start({ pagingTokenSecret, ...options }: { dynamodbEndpoint: string; tableName: string; pagingTokenSecret: string }) {
    dataDir = await mkdtemp(join(tmpdir(), 'documents-bench-'));
    // Before the service sets its own (lib/local/service.ts keeps one that is set).
    process.env.PAGING_TOKEN_SECRET = pagingTokenSecret;
    service = await startLocalService({ port: 0, dataDir, ...options, log: () => {} });
    fixture = await makeFixture({ userId: 'bench-user' });
    await service.worker.settled(); // the fixture's changes numbered: the feed's page is full
    return { url: service.url, token: await service.issueToken(fixture.caller.userId), fixture };
  },
  seed,
  /** What `count` calls of an endpoint change (endpoints.ts: `targets`). */
  targets: (kind: TargetKind, count: number) => makeTargets(fixture, kind, count),
  /** A folder tree of the life-cycle scenario (fixture.ts), kept here by name for treeState. */
  async makeTree(name: string, shape: Parameters<typeof makeTree>[2]) {
    const tree = await makeTree(fixture.caller, name, shape);
    trees.set(name, tree);
    return { ...tree, folders: tree.folders.length, documents: tree.documents.length };
  },
  treeState,
  /** Waits until the background worker has handled everything written so far (the change feed numbered). */
  settled: (timeoutMs = 120_000) => service!.worker.settled(timeoutMs),
  /** What is wrong in the table (test/support/invariants.ts): empty when nothing is. */
  invariants: async () => findViolations(await scanTable()),
  startRecording,
  stopRecording,
  /** One direct store call, recorded: what the baseline sends for an endpoint. */
  async recordStoreCall(name: string, call: Call) {
    startRecording();
    try {
      await endpointNamed(name).store(fixture, call);
    } catch (error) {
      stopRecording();
      throw error;
    }
    return stopRecording();
  },
  /** The baseline, in two steps so that seeding stays out of what is measured (and profiled). */
  async prepareStoreLoad(name: string, count: number) {
    const endpoint = endpointNamed(name);
    const call = await callsOf(endpoint, count, (kind, n) => makeTargets(fixture, kind, n));
    let n = 0;
    next = () => endpoint.store(fixture, call(n++));
  },
  /** The prepared store call in a closed loop. */
  storeLoad: (concurrency: number, seconds: number) => closedLoop(next, concurrency, seconds),
  startProfile,
  stopProfile,
  async stop() {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
    setImmediate(() => process.exit(0));
  },
};

/** How many of a tree's items carry a trash mark, carry none, or are gone. */
interface Marks {
  marked: number;
  clear: number;
  gone: number;
}

/**
 * Where a tree's items are: its root, the folders and the documents below it, each marked (in the
 * trash), clear or gone; with `leftovers`, also every item left in their partitions (entries,
 * revisions, contents), counted with one Query each: what a purge must leave is nothing.
 */
async function treeState(name: string, options: { leftovers?: boolean } = {}) {
  const tree = trees.get(name)!;
  const marks = async (keys: { PK: string; SK: string }[]): Promise<Marks> => {
    const found: (Item | undefined)[] = [];
    for (let i = 0; i < keys.length; i += 100 * 8) {
      const chunks = Array.from({ length: 8 }, (_, j) => keys.slice(i + j * 100, i + (j + 1) * 100)).filter((c) => c.length > 0);
      for (const [j, lookup] of (await Promise.all(chunks.map((chunk) => getItems(chunk)))).entries())
        found.push(...chunks[j]!.map(lookup));
    }
    return {
      marked: found.filter((item) => item?.trash !== undefined).length,
      clear: found.filter((item) => item !== undefined && item.trash === undefined).length,
      gone: found.filter((item) => item === undefined).length,
    };
  };
  const state = {
    root: await marks([folderKey(tree.root)]),
    folders: await marks(tree.folders.map(folderKey)),
    documents: await marks(tree.documents.map(documentKey)),
    leftovers: 0,
  };
  if (options.leftovers) {
    const partitions = [...[tree.root, ...tree.folders].map(folderPartition), ...tree.documents.map(documentPartition)];
    const count = async (pk: string) =>
      (
        await db().send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': pk },
            Select: 'COUNT',
          }),
        )
      ).Count ?? 0;
    for (let i = 0; i < partitions.length; i += 16) {
      state.leftovers += (await Promise.all(partitions.slice(i, i + 16).map(count))).reduce((a, b) => a + b, 0);
    }
  }
  return state;
}

export type ServiceHandlers = typeof handlers;

serve(handlers);
