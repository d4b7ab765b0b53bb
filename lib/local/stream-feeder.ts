/**
 * The local stand-in for Lambda's DynamoDB event source mapping: it reads the table's stream
 * from DynamoDB Local (which implements the Streams API), keeps only the records the deployed
 * filters pass (functions/worker/filters.ts), and hands them to the same worker handler
 * Lambda runs, in batches, in stream order, as AWS would:
 *
 * - a batch the handler answers with `batchItemFailures` is retried from the first failed record;
 * - a batch whose invocation throws is split in two and each half retried (BisectBatchOnFunctionError);
 * - every retry, and every half of a split, spends one of the mapping's retries, and a record
 *   older than its maximum record age is not retried: what is given up on goes to the failure
 *   file (the on-failure destination), and the feeder moves on. The numbers are the deployed
 *   mapping's (functions/worker/delivery.ts `streamDelivery`); only the wait between retries is
 *   the feeder's own (Lambda does not document its), and configurable (`retryBackoffMs`).
 * - A retry while DynamoDB Local does not answer fails as the function would (it could not reach
 *   its table), without calling the handler: it is spent all the same. So a long outage ends in
 *   records given up on, as on AWS, and the sweeper (functions/worker/sweeper.ts, on a timer in
 *   lib/local/worker.ts) finds their work in the table and finishes it.
 * - Where it got to is checkpointed after every batch (in a file under DATA_DIR), so a service
 *   killed mid-job resumes from there. Reading the stream is not a record's retry: on AWS the
 *   stream outlives the table's troubles, here it is served by the same DynamoDB Local, so the
 *   feeder waits for it to answer before reading on.
 *
 * DynamoDB Local writes a TTL deletion with an unknown eventName and no userIdentity, and makes
 * none of items outside a sparse index (./ttl.ts makes those); real DynamoDB writes REMOVE by the
 * service principal, which is what the worker is told here of both.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { streamDelivery } from '#functions/worker/delivery';
import { matchesAny } from '#functions/worker/filters';
import type { TtlDeletions } from './ttl';

export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | undefined | undefined>;

export interface StreamFeederOptions {
  endpoint: string;
  tableName: string;
  /** Called with each batch, as Lambda would call the worker. */
  handler: () => Promise<StreamHandler>;
  /** Where the position in the stream is kept across restarts; none: in memory. */
  checkpointFile?: string;
  /** Told of each batch as it is handed to the worker (tests: to act while one is under way). */
  onBatch?: (records: readonly DynamoDBRecord[]) => void;
  /** The on-failure destination: records given up on. */
  onFailure: (records: readonly DynamoDBRecord[], reason: string) => void | Promise<void>;
  log?: (line: string) => void;
  /** The deletions the local runtime made for TTL (./ttl.ts): their records are marked as DynamoDB's. */
  ttlDeletions?: TtlDeletions;
  /** The mapping's retry budget; default the deployed one (`streamDelivery`). */
  retryAttempts?: number;
  maxRecordAgeSeconds?: number;
  /** The longest wait between two retries of a batch (they double from 50 ms up to it); default 2,000 ms. */
  retryBackoffMs?: number;
}

export interface StreamFeeder {
  /** Resolves once every record written so far, and everything the worker wrote because of them, has been handled. */
  settled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const BATCH_SIZE = streamDelivery.batchSize;
const DEFAULT_BACKOFF_MS = 2_000;
/**
 * How long an idle shard waits before it is read again: Lambda's poller reads each shard four
 * times a second. Each read is a job on DynamoDB Local's one SQLite thread, shared by every
 * service of a test run: an idle service took 10 % of a core (node and java) at ten reads a
 * second, 7 % at four.
 * Who waits for the worker (`settled()`) starts the next round at once.
 */
const IDLE_POLL_MS = 250;
/**
 * DescribeStream is DynamoDB Local's dearest call (its one SQLite thread scans the stream's
 * shards, and every other request waits behind it): the shard list is read again only when a
 * shard we read closes, after an error, or when it is this old.
 */
const SHARD_LIST_MAX_AGE_MS = 5_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startStreamFeeder(options: StreamFeederOptions, dynamodb: DynamoDBClient): Promise<StreamFeeder> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream: the worker needs one (lib/table.ts).`);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
  });
  const log = options.log ?? (() => {});
  const retryAttempts = options.retryAttempts ?? streamDelivery.retryAttempts;
  const maxRecordAgeMs = (options.maxRecordAgeSeconds ?? streamDelivery.maxRecordAgeSeconds) * 1_000;
  const backoffCap = options.retryBackoffMs ?? DEFAULT_BACKOFF_MS;
  const backoff = (attempt: number) => Math.min(backoffCap, 50 * 2 ** attempt);
  const checkpoints = new Checkpoints(options.checkpointFile);
  await checkpoints.load();

  let stopping = false;
  /** Rounds of polling begun, and the last one that found nothing new (none if the latest found something). */
  let rounds = 0;
  let lastIdleRound: number | undefined;
  /** Ends the idle wait under way, if any: someone waiting in `settled()` wants the next round now. */
  let wake: (() => void) | undefined;
  const idleWait = () =>
    new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(end, IDLE_POLL_MS);
      wake = end;
    });
  /** Called at the end of every round (for `settled()`). */
  const roundEnded = new Set<() => void>();
  const endRound = () => {
    for (const listener of roundEnded) listener();
    roundEnded.clear();
  };

  const loop = (async () => {
    const iterators = new Map<string, string | undefined>();
    let listed: { shards: Shard[]; at: number } | undefined;
    while (!stopping) {
      const round = ++rounds;
      try {
        if (!listed || Date.now() - listed.at > SHARD_LIST_MAX_AGE_MS)
          listed = { shards: await listShards(streams, streamArn), at: Date.now() };
        const { shards } = listed;
        let sawRecords = false;
        for (const shard of shards) {
          const shardId = shard.ShardId!;
          if (checkpoints.isFinished(shardId)) continue;
          // A child shard starts only once its parent is read to its end.
          if (shard.ParentShardId && shards.some((s) => s.ShardId === shard.ParentShardId) && !checkpoints.isFinished(shard.ParentShardId))
            continue;
          let iterator = iterators.get(shardId) ?? (await iteratorFor(streams, streamArn, shardId, checkpoints.get(shardId)));
          let result: Awaited<ReturnType<typeof getRecords>>;
          try {
            result = await getRecords(streams, iterator);
          } catch (error) {
            if (!(error instanceof ExpiredIteratorException)) throw error;
            iterator = await iteratorFor(streams, streamArn, shardId, checkpoints.get(shardId));
            result = await getRecords(streams, iterator);
          }
          iterators.set(shardId, result.next);
          if (result.records.length > 0) {
            sawRecords = true;
            const records = result.records.map((record) => toLambdaRecord(record, options.ttlDeletions));
            await deliver(records);
            // Stopped mid-batch: what was not handled is delivered again on the next start.
            if (stopping) break;
            await checkpoints.set(shardId, result.records.at(-1)!.dynamodb!.SequenceNumber!);
            await options.ttlDeletions?.forget(records.filter(isTtlDeletion).map(keysOf));
          }
          if (!result.next) {
            await checkpoints.finish(shardId); // a closed shard, read to its end: its children are in a new list
            listed = undefined;
          }
        }
        lastIdleRound = sawRecords ? undefined : round;
        endRound();
        if (!sawRecords) await idleWait();
      } catch (error) {
        // DynamoDB Local down or restarting: wait, then go on from the checkpoint.
        if (stopping) break;
        log(`stream feeder: ${error instanceof Error ? error.message : String(error)}; retrying`);
        iterators.clear();
        listed = undefined;
        lastIdleRound = undefined;
        endRound();
        await sleep(500);
      }
    }
  })();

  const reachable = () =>
    streams.send(new DescribeStreamCommand({ StreamArn: streamArn, Limit: 1 })).then(
      () => true,
      () => false,
    );

  /** Lambda's semantics for one batch: retry from the first failure, bisect a thrown batch, give up past the budget. */
  async function deliver(all: DynamoDBRecord[]): Promise<void> {
    const wanted = all.filter((record) => matchesAny(record));
    for (let start = 0; start < wanted.length; start += BATCH_SIZE) await invoke(wanted.slice(start, start + BATCH_SIZE), 0);
  }

  async function giveUp(records: readonly DynamoDBRecord[], reason: string): Promise<void> {
    if (records.length === 0) return;
    log(`stream feeder: giving up on ${records.length} record(s): ${reason}`);
    await options.onFailure(records, reason);
  }

  /** `attempt`: retries already spent on these records (0 on their first invocation). */
  async function invoke(records: DynamoDBRecord[], attempt: number): Promise<void> {
    if (records.length === 0 || stopping) return;
    // Past the maximum record age a record is not sent again (Lambda's MaximumRecordAgeInSeconds).
    const tooOld = records.filter((record) => ageMs(record) > maxRecordAgeMs);
    await giveUp(tooOld, `older than the maximum record age (${maxRecordAgeMs / 1_000} s)`);
    const batch = records.filter((record) => !tooOld.includes(record));
    if (batch.length === 0) return;
    let failedFrom: number;
    let reason: string;
    try {
      const handler = await options.handler();
      options.onBatch?.(batch);
      const response = await handler({ Records: batch });
      const failures = response?.batchItemFailures ?? [];
      if (failures.length === 0) return;
      const ids = new Set(failures.map((f) => f.itemIdentifier));
      failedFrom = batch.findIndex((record) => ids.has(record.dynamodb!.SequenceNumber!));
      if (failedFrom < 0) failedFrom = 0;
      reason = 'the handler reported a failed record';
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
      if (batch.length > 1 && streamDelivery.bisectBatchOnError) {
        // Each half is a retry of its records.
        if (attempt >= retryAttempts) return giveUp(batch, `${reason} (after ${retryAttempts} retries)`);
        const half = Math.ceil(batch.length / 2);
        await invoke(batch.slice(0, half), attempt + 1);
        await invoke(batch.slice(half), attempt + 1);
        return;
      }
      failedFrom = 0;
    }
    const rest = batch.slice(failedFrom);
    // The retries: one spent each time, whether the function runs or could not reach its table.
    for (let retry = attempt + 1; !stopping; retry++) {
      if (retry > retryAttempts) return giveUp(rest, `${reason} (after ${retryAttempts} retries)`);
      await sleep(backoff(retry));
      if (await reachable()) return invoke(rest, retry);
      if (retry === attempt + 1) log('stream feeder: DynamoDB Local does not answer; the retries of this batch fail meanwhile');
      reason = 'DynamoDB Local does not answer';
      if (rest.some((record) => ageMs(record) > maxRecordAgeMs)) return invoke(rest, retry); // gives up on those
    }
  }

  return {
    async settled(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      // A round begun after this call that found nothing new: every record written before the
      // call was handled, and handling them wrote nothing more for the worker.
      const after = rounds;
      while (lastIdleRound === undefined || lastIdleRound <= after) {
        if (Date.now() > deadline) throw new Error('The background worker did not settle in time');
        wake?.(); // the next round now, not after the idle wait
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_POLL_MS);
          roundEnded.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async stop() {
      stopping = true;
      await loop;
      streams.destroy();
    },
  };
}

async function listShards(streams: DynamoDBStreamsClient, streamArn: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let start: string | undefined;
  do {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
    shards.push(...(StreamDescription?.Shards ?? []));
    start = StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return shards;
}

async function iteratorFor(streams: DynamoDBStreamsClient, streamArn: string, shardId: string, after: string | undefined) {
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
    }),
  );
  return ShardIterator;
}

async function getRecords(
  streams: DynamoDBStreamsClient,
  iterator: string | undefined,
): Promise<{ records: StreamRecord[]; next?: string }> {
  if (!iterator) return { records: [] };
  const { Records, NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
  return { records: Records ?? [], next: NextShardIterator };
}

/**
 * How long ago the record was written to the stream (DynamoDB Local's clock is this machine's).
 * DynamoDB Local rounds ApproximateCreationDateTime down to the minute (DynamoDB to the second),
 * so locally a record may be given up on for its age up to a minute early: nothing next to an hour.
 */
function ageMs(record: DynamoDBRecord): number {
  const created = record.dynamodb?.ApproximateCreationDateTime as unknown as Date | number | undefined;
  if (created === undefined) return 0;
  return Date.now() - (created instanceof Date ? created.getTime() : created * 1_000);
}

/**
 * A Streams API record as Lambda hands it over (the same shape), with TTL's deletions as DynamoDB
 * writes them: DynamoDB Local's own (an unknown eventName), and the local runtime's (./ttl.ts).
 */
function toLambdaRecord(record: StreamRecord, ttlDeletions: TtlDeletions | undefined): DynamoDBRecord {
  const lambda = { ...record, eventSourceARN: 'local' } as unknown as DynamoDBRecord & { eventName: string };
  const removed = record.dynamodb?.OldImage && !record.dynamodb?.NewImage;
  const byDynamoDbLocal = !['INSERT', 'MODIFY', 'REMOVE'].includes(lambda.eventName) && removed;
  const { pk, sk } = keysOf(lambda);
  const byLocalTtl = lambda.eventName === 'REMOVE' && ttlDeletions?.isOurs(pk, sk, record.dynamodb?.OldImage?.expiresAt?.N);
  if (byDynamoDbLocal || byLocalTtl) {
    lambda.eventName = 'REMOVE';
    lambda.userIdentity = { type: 'Service', principalId: 'dynamodb.amazonaws.com' };
  }
  return lambda;
}

const isTtlDeletion = (record: DynamoDBRecord) => record.userIdentity?.principalId === 'dynamodb.amazonaws.com';
const keysOf = (record: DynamoDBRecord) => ({ pk: record.dynamodb?.Keys?.PK?.S as string, sk: record.dynamodb?.Keys?.SK?.S as string });

/** Where the feeder got to in each shard (the last sequence number handled), written through to a file. */
class Checkpoints {
  private positions: Record<string, { after?: string; finished?: boolean }> = {};
  constructor(private readonly file: string | undefined) {}

  async load(): Promise<void> {
    if (!this.file) return;
    try {
      this.positions = JSON.parse(await readFile(this.file, 'utf8')) as typeof this.positions;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  get(shardId: string) {
    return this.positions[shardId]?.after;
  }
  isFinished(shardId: string) {
    return this.positions[shardId]?.finished === true;
  }
  async set(shardId: string, after: string) {
    this.positions[shardId] = { ...this.positions[shardId], after };
    await this.save();
  }
  async finish(shardId: string) {
    this.positions[shardId] = { ...this.positions[shardId], finished: true };
    await this.save();
  }
  private async save() {
    if (!this.file) return;
    const temporary = `${this.file}.${process.pid}`;
    await writeFile(temporary, JSON.stringify(this.positions));
    await rename(temporary, this.file);
  }
}
