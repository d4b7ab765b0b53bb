/**
 * The background worker on this machine: the same handler Lambda runs on the table's stream
 * (functions/worker/stream.ts), fed by the stream feeder with the deployed mapping's retry
 * budget, with its events (which go to EventBridge on AWS) printed, and handed to whoever
 * listens (tests); the same sweeper an EventBridge schedule runs on AWS
 * (functions/worker/sweep.ts), on a timer, for what the stream did not finish; and the part of
 * the table's TTL DynamoDB Local does not do (./ttl.ts).
 *
 * Settings from the environment, for tests and for trying things out (defaults: the deployed
 * ones, functions/worker/delivery.ts):
 * - SWEEP_INTERVAL_MS: how often the sweeper runs (default every 5 minutes);
 * - SWEEP_GRACE_SECONDS: how long work waits before the sweeper takes it (default 300);
 * - STREAM_RETRY_BACKOFF_MS: the longest wait between two retries of a failing batch (default 2,000);
 * - TTL_INTERVAL_MS: how often expired items are looked for (default 10,000).
 * `sweepNow()` runs a sweep at once (tests).
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { sweeperFunction, workerFunction } from '#functions/routes';
import { sweeping } from '#functions/worker/delivery';
import { type ChangeEvent, setEventSink } from '#functions/worker/events';
import type { SweepReport } from '#functions/worker/sweeper';
import { localClient } from './dynamodb-local';
import { invokeFunction } from './invoke';
import type { LambdaHandler } from './lambda-event';
import { startStreamFeeder } from './stream-feeder';
import { DEFAULT_TTL_INTERVAL_MS, startLocalTtl, TtlDeletions } from './ttl';

/** functions/worker/stream.ts's handler. */
type WorkerHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

export interface LocalWorker {
  /** Resolves once the worker has handled every record written so far, and what followed from them (a sweep under way included). */
  settled(timeoutMs?: number): Promise<void>;
  /** Calls `listener` with every batch of stream records as it is handed to the worker, from now on; returns how to stop. */
  onBatch(listener: (records: readonly DynamoDBRecord[]) => void): () => void;
  /** Calls `listener` with every change event published from now on; returns how to stop. */
  onEvent(listener: (event: ChangeEvent) => void): () => void;
  /** Runs a sweep now (after the one under way, if any); `graceSeconds` 0 takes all waiting work. */
  sweep(options?: { graceSeconds?: number }): Promise<SweepReport | undefined>;
  stop(): Promise<void>;
}

const numberFrom = (value: string | undefined): number | undefined => {
  if (value === undefined || value.trim() === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new Error(`Expected a number of at least 0, got "${value}"`);
  return number;
};

/** The worker of this process's local service (one a process), for `sweepNow`. */
let running: LocalWorker | undefined;

/** Runs a sweep now in this process's local worker: what a test calls instead of waiting for the timer. */
export async function sweepNow(options: { graceSeconds?: number } = {}): Promise<SweepReport | undefined> {
  if (!running) throw new Error('No local worker runs in this process');
  return running.sweep(options);
}

export async function startLocalWorker(options: {
  endpoint: string;
  tableName: string;
  dataDir: string;
  /** Keep the stream position in dataDir (a persistent database); else in memory. */
  persistent: boolean;
  loadHandler: (name: string) => Promise<LambdaHandler>;
  log: (line: string) => void;
  /** Print each published event on the log. */
  printEvents: boolean;
  /** Default: SWEEP_INTERVAL_MS, else the deployed schedule's. */
  sweepIntervalMs?: number;
  /** Default: SWEEP_GRACE_SECONDS, else the deployed grace. */
  sweepGraceSeconds?: number;
  /** Default: STREAM_RETRY_BACKOFF_MS, else the feeder's. */
  retryBackoffMs?: number;
  /** How often expired items are deleted (./ttl.ts). Default: TTL_INTERVAL_MS, else every 10 s. */
  ttlIntervalMs?: number;
}): Promise<LocalWorker> {
  const sweepIntervalMs = options.sweepIntervalMs ?? numberFrom(process.env.SWEEP_INTERVAL_MS) ?? sweeping.intervalMinutes * 60_000;
  const sweepGraceSeconds = options.sweepGraceSeconds ?? numberFrom(process.env.SWEEP_GRACE_SECONDS);
  const retryBackoffMs = options.retryBackoffMs ?? numberFrom(process.env.STREAM_RETRY_BACKOFF_MS);
  const listeners = new Set<(event: ChangeEvent) => void>();
  const batchListeners = new Set<(records: readonly DynamoDBRecord[]) => void>();
  setEventSink(async (events) => {
    for (const event of events) {
      if (options.printEvents) options.log(`event ${event.DetailType} ${event.Detail}`);
      for (const listener of listeners) listener(event);
    }
  });
  const failures = join(options.dataDir, 'worker-failures.jsonl');
  // TTL, as DynamoDB runs it on the table; its deletions reach the worker through the stream.
  const ttlClient = localClient(options.endpoint);
  const ttlDeletions = new TtlDeletions(options.persistent ? join(options.dataDir, 'ttl-deletions.json') : undefined);
  await ttlDeletions.load(ttlClient, options.tableName);
  const ttl = startLocalTtl({
    client: ttlClient,
    tableName: options.tableName,
    deletions: ttlDeletions,
    everyMs: options.ttlIntervalMs ?? numberFrom(process.env.TTL_INTERVAL_MS) ?? DEFAULT_TTL_INTERVAL_MS,
    log: options.log,
  });
  const client = localClient(options.endpoint);
  const feeder = await startStreamFeeder(
    {
      endpoint: options.endpoint,
      tableName: options.tableName,
      // Held to the worker's IAM grants and its timeout, as on AWS (./invoke.ts): a batch cut off is a failed invocation.
      handler: async () => {
        const stream = (await options.loadHandler('worker/stream')) as unknown as WorkerHandler;
        return (event) => invokeFunction(workerFunction, stream, event);
      },
      ...(options.persistent ? { checkpointFile: join(options.dataDir, 'stream-checkpoint.json') } : {}),
      // The on-failure destination: records the worker gave up on; the sweeper takes their work over.
      onFailure: async (records, reason) => {
        options.log(`worker: gave up on ${records.length} record(s), written to ${failures}: ${reason}`);
        await appendFile(failures, `${JSON.stringify({ at: new Date().toISOString(), reason, records })}\n`);
      },
      onBatch: (records) => {
        for (const listener of batchListeners) listener(records);
      },
      log: options.log,
      ttlDeletions,
      ...(retryBackoffMs !== undefined ? { retryBackoffMs } : {}),
    },
    client,
  ).finally(() => client.destroy());

  // The sweeper: one at a time (its reserved concurrency on AWS is 1), on a timer and on demand.
  let sweeping_: Promise<SweepReport | undefined> = Promise.resolve(undefined);
  let stopped = false;
  const sweepOnce = async (graceSeconds: number | undefined): Promise<SweepReport | undefined> => {
    const handler = (await options.loadHandler('worker/sweep')) as unknown as (
      event: { graceSeconds?: number },
      context: Context,
    ) => Promise<SweepReport>;
    try {
      // A sweep cut off by its timeout is a failed one; the next sweep is its retry (the stack's
      // schedule: no retry of a failed invocation, lib/stack/background-worker.ts).
      const report = await invokeFunction(sweeperFunction, handler, graceSeconds === undefined ? {} : { graceSeconds });
      if (report.tasks + report.changes + report.left > 0) {
        options.log(
          `sweeper: took over ${report.tasks} task(s) and ${report.changes} change(s) in ${report.repositories} feed(s) the stream did not finish` +
            (report.left > 0 ? `; ${report.left} left for the next sweep` : ''),
        );
      }
      return report;
    } catch (error) {
      options.log(`sweeper: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  };
  const sweep = (graceSeconds = sweepGraceSeconds) => {
    sweeping_ = sweeping_.then(() => (stopped ? undefined : sweepOnce(graceSeconds)));
    return sweeping_;
  };
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    timer = setTimeout(() => {
      void sweep().finally(() => {
        if (!stopped) schedule();
      });
    }, sweepIntervalMs);
    timer.unref();
  };
  schedule();

  const worker: LocalWorker = {
    async settled(timeoutMs) {
      await feeder.settled(timeoutMs);
      // A sweep under way writes too: wait for it, then for what its writes brought.
      await sweeping_;
      await feeder.settled(timeoutMs);
    },
    onBatch(listener) {
      batchListeners.add(listener);
      return () => batchListeners.delete(listener);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sweep: (sweepOptions = {}) => sweep(sweepOptions.graceSeconds ?? sweepGraceSeconds),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ttl.stop();
      ttlClient.destroy();
      await sweeping_;
      await feeder.stop();
      setEventSink(undefined);
      if (running === worker) running = undefined;
    },
  };
  running = worker;
  return worker;
}
