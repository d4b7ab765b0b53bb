/**
 * The service process: the local service (lib/local/service.ts, what `npm start` runs) and what
 * must share its DynamoDB client — the fixture and seeding, the request recorder, and the
 * baseline (each endpoint's store call made directly). The runner (run.ts) calls these over IPC.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalService, startLocalService } from '#lib/local/service';
import { type Call, callsOf, endpointNamed } from './endpoints';
import { type Fixture, makeFixture, makeTargets, makeTree, seedDocuments, type TargetKind, type Tree, treeState } from './fixture';
import { closedLoop } from './load';
import { serve } from './processes';
import { startRecording, stopRecording } from './recorder';
import { bareSearch, seedSearchIndex, timedReindex } from './scenarios/search-corpus';

let service: LocalService | undefined;
let fixture: Fixture;
let dataDir = '';
let batch = 0;
let next: () => Promise<unknown>;
/** The life-cycle scenario's trees, by name. */
const trees = new Map<string, Tree>();

const handlers = {
  async start({ pagingTokenSecret, ...options }: { dynamodbEndpoint: string; tableName: string; pagingTokenSecret: string }) {
    dataDir = await mkdtemp(join(tmpdir(), 'documents-bench-'));
    process.env.PAGING_TOKEN_SECRET = pagingTokenSecret; // before the service sets its own
    // The search database on disk, as `npm start` keeps it (in memory is the tests' way).
    service = await startLocalService({ port: 0, dataDir, ...options, searchOnDisk: true, log: () => {} });
    fixture = await makeFixture({ userId: 'bench-user' });
    await service.worker.settled(300_000); // the fixture's changes numbered: the feed's page is full
    return { url: service.url, token: await service.issueToken(fixture.caller.userId), fixture };
  },
  /** Documents for writes to change, in the write folder unless told otherwise. */
  seed: (count: number, folderId = fixture.writeFolderId, options: { withoutChanges?: boolean } = {}) =>
    seedDocuments(fixture.caller, folderId, count, `s${batch++}-`, options),
  targets: (kind: TargetKind, count: number) => makeTargets(fixture, kind, count),
  async makeTree(name: string, shape: Parameters<typeof makeTree>[2]) {
    const tree = await makeTree(fixture.caller, name, shape);
    trees.set(name, tree);
    return { ...tree, folders: tree.folders.length, documents: tree.documents.length };
  },
  treeState: (name: string, options?: { leftovers?: boolean }) => treeState(trees.get(name)!, options),
  /** Until the background worker has handled everything written so far. */
  settled: (timeoutMs = 120_000) => service!.worker.settled(timeoutMs),
  startRecording,
  stopRecording,
  /** One direct store call, recorded: what the baseline sends for an endpoint. */
  async recordStoreCall(name: string, call: Call) {
    startRecording();
    const stored = endpointNamed(name).store!(fixture, call);
    await stored.catch(() => {});
    const recorded = stopRecording();
    await stored;
    return recorded;
  },
  /** The baseline, in two steps so that seeding stays out of what is measured. */
  async prepareStoreLoad(name: string, count: number) {
    const endpoint = endpointNamed(name);
    const call = await callsOf(endpoint, count, (kind, n) => makeTargets(fixture, kind, n));
    let n = 0;
    next = () => endpoint.store!(fixture, call(n++));
  },
  /** The prepared store call in a closed loop. */
  storeLoad: (concurrency: number, seconds: number) => closedLoop(next, concurrency, seconds),
  /** The file bucket in the S3 emulator, with the emulator's root credentials (the files scenario's direct side). */
  bucket: () => {
    const { endpoint, bucket, region, credentials } = service!.s3;
    return {
      endpoint,
      bucket,
      region,
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    };
  },
  /** The search scenario (scenarios/search.ts): the index seeded with the indexer's write, the bare SQL, the rebuild. */
  seedSearch: (count: number) => seedSearchIndex({ repositoryId: fixture.repositoryId, folderId: fixture.bigFolderId, count }),
  bareSearch: (queries: string[], concurrency: number, seconds: number) => bareSearch(fixture.caller, queries, concurrency, seconds),
  reindexSearch: () => timedReindex(),
  /** This process's resident set size, bytes. */
  rss: () => process.memoryUsage().rss,
  async stop() {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
    setImmediate(() => process.exit(0));
  },
};

export type ServiceHandlers = typeof handlers;

serve(handlers);
