/**
 * The service process: the local service (lib/local/service.ts, what `npm start` runs) and
 * what must share its DynamoDB client — the fixture, seeding, the request recorder, and the
 * baseline, each endpoint's store call made directly. The runner (run.ts) calls these over IPC.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalService, startLocalService } from '#lib/local/service';
import { type Call, callsOf, endpointNamed } from './endpoints';
import { type Fixture, makeFixture } from './fixture';
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

/** Documents for writes to change, in the write folder unless told otherwise. */
const seed = (count: number, folderId = fixture.writeFolderId) => seedDocuments(fixture.caller, folderId, count, `s${batch++}-`);

const handlers = {
  async start(options: { dynamodbEndpoint: string; tableName: string }) {
    dataDir = await mkdtemp(join(tmpdir(), 'documents-bench-'));
    service = await startLocalService({ port: 0, dataDir, ...options, log: () => {} });
    fixture = await makeFixture({ userId: 'bench-user' });
    return { url: service.url, token: await service.issueToken(fixture.caller.userId), fixture };
  },
  seed,
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
    const call = await callsOf(endpoint, count, seed);
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

export type ServiceHandlers = typeof handlers;

serve(handlers);
