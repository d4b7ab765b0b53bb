/**
 * The service side of the bench, in its own process: the local service (lib/local/service.ts,
 * the same server `npm start` runs) plus what must share its SDK client — the request
 * recorder, the direct-SDK baseline and bulk seeding. The runner (run.ts) calls these over IPC.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoDb, db } from '#core/store/client';
import { type LocalService, startLocalService } from '#lib/local/service';
import { createDocument, deleteDocument, inWaves, replay, updateContent, type WriteContext } from './baseline';
import { closedLoop } from './load';
import { startProfile, stopProfile } from './profile';
import { installRecorder, type Recorded, startRecording, stopRecording } from './recorder';
import { serve } from './rpc';
import { type SeedDocuments, seedDocuments } from './seed';

let service: LocalService | undefined;
let dataDir = '';
let endpoint = '';

/** A second client, without interceptors, for the recorder's own reads (not recorded). */
const imageReader = () =>
  createDynamoDb(new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

const running = () => {
  if (!service) throw new Error('the service is not started');
  return service;
};

const handlers = {
  async start(options: { dynamodbEndpoint: string; tableName: string }) {
    dataDir = await mkdtemp(join(tmpdir(), 'documents-bench-'));
    endpoint = options.dynamodbEndpoint;
    service = await startLocalService({ port: 0, dataDir, ...options, log: () => {} });
    installRecorder(db(), options.tableName);
    return { url: service.url };
  },
  token: (sub: string) => running().issueToken(sub),
  /** `capacity`: also read every transaction item before and after it (for AWS's bill). */
  startRecording: (capacity: boolean) => startRecording(capacity ? { images: imageReader() } : {}),
  stopRecording: (): Recorded[] => stopRecording(),
  startProfile,
  stopProfile,
  /** Returns the ids only when asked: 50,000 of them are of no use to the runner. */
  seed: async (seed: SeedDocuments, returnIds: boolean) => {
    const ids = await seedDocuments(seed);
    return returnIds ? ids : [];
  },
  baselineReplay: (recorded: Recorded[], concurrency: number, seconds: number) => {
    const waves = inWaves(recorded);
    return closedLoop(() => replay(waves), concurrency, seconds);
  },
  baselineCreate: (context: WriteContext, contentBytes: number, concurrency: number, seconds: number) => {
    const content = 'x'.repeat(contentBytes);
    let n = 0;
    return closedLoop(() => createDocument(context, `baseline-${process.hrtime.bigint()}-${n++}.txt`, content), concurrency, seconds);
  },
  /** Round-robin over `ids`, so concurrent workers rarely touch the same document. */
  baselineUpdate: (userId: string, ids: string[], contentBytes: number, concurrency: number, seconds: number) => {
    const content = 'y'.repeat(contentBytes);
    let n = 0;
    return closedLoop(() => updateContent(userId, ids[n++ % ids.length]!, content), concurrency, seconds);
  },
  /** Each id once; running out counts as errors (the runner seeds enough). */
  baselineDelete: (userId: string, ids: string[], concurrency: number, seconds: number) => {
    let n = 0;
    return closedLoop(
      async () => {
        const id = ids[n++];
        if (!id) throw new Error('out of documents to delete');
        await deleteDocument(userId, id);
      },
      concurrency,
      seconds,
    );
  },
  async stop() {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
    setImmediate(() => process.exit(0));
  },
};

export type ServiceHandlers = typeof handlers;

serve(handlers);
