/**
 * The background worker: one Lambda function on the table's DynamoDB stream (deployed with
 * retries, a bisecting batch and an on-failure destination; locally fed the same records by
 * lib/local/stream-feeder.ts). The stream's filters (./filters.ts) pass it five kinds of record:
 *
 * - a change a write recorded → numbered into its repository's feed (./number-changes.ts);
 * - a numbered change → into the search index (./indexer.ts), then published as an event (./events.ts);
 * - a task started or advanced → run a while (./tasks.ts);
 * - a trash record DynamoDB's TTL removed → its item purged (./housekeeping.ts);
 * - a document with revisions to spare → the old ones reclaimed (./housekeeping.ts).
 *
 * Records of one partition key are handled in stream order; different keys side by side. On a
 * failure the answer names the first record that failed, and the batch is retried from there:
 * everything here is safe to do twice.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { PendingChange } from '#core/items/change';
import { idOfPartition, isDocumentKey, isPendingChangeKey, isSequencedChangeKey, isTaskKey, isTrashKey, type Key } from '#core/items/keys';
import type { StoredTrashItem } from '#core/items/trash';
import { logger } from '#core/logger';
import { recordMetric } from '#core/metrics';
import type { Change } from '#core/resources';
import { type NumberedChange, publishChanges } from './events';
import { pruneRevisions, purgeExpired } from './housekeeping';
import { indexChanges } from './indexer';
import { sequenceChanges } from './number-changes';
import { countChanges, observedInvocation } from './observability';
import { taskSteps } from './task-steps';
import { runTask, workUntil } from './tasks';

type Image = Record<string, unknown>;
const image = (attributes: { [key: string]: AttributeValue } | undefined): Image =>
  attributes ? unmarshall(attributes as Parameters<typeof unmarshall>[0]) : {};
const keysOf = (record: DynamoDBRecord) => image(record.dynamodb?.Keys) as unknown as Key;

type Kind = 'pending' | 'numbered' | 'task' | 'expired' | 'revisions' | 'other';

function kindOf(record: DynamoDBRecord): Kind {
  const key = keysOf(record);
  if (isPendingChangeKey(key) && record.eventName === 'INSERT') return 'pending';
  if (isSequencedChangeKey(key) && record.eventName === 'INSERT') return 'numbered';
  if (isTaskKey(key) && record.eventName !== 'REMOVE') return 'task';
  if (isTrashKey(key) && record.eventName === 'REMOVE') return 'expired';
  if (isDocumentKey(key) && record.eventName === 'MODIFY') return 'revisions';
  return 'other';
}

/** Handles a run of records of one partition key and one kind, in order; `until`: when the invocation's work must end. */
async function handleRun(kind: Kind, records: readonly DynamoDBRecord[], until: number | undefined): Promise<void> {
  // A feed's or a repository's partition: either names the repository.
  const repositoryId = idOfPartition(keysOf(records[0]!).PK);
  switch (kind) {
    case 'pending':
      return sequenceChanges(
        repositoryId,
        records.map((record): PendingChange => ({ key: keysOf(record), change: image(record.dynamodb?.NewImage) as unknown as Change })),
      );
    case 'numbered': {
      const changes = records.map((record) => image(record.dynamodb?.NewImage) as unknown as NumberedChange);
      await indexChanges(changes);
      await publishChanges(changes);
      countChanges(changes);
      return;
    }
    case 'task':
      // One run per nudge is enough: each reads the task's progress afresh.
      return runTask(image(records.at(-1)!.dynamodb?.NewImage).id as string, taskSteps, until);
    case 'expired':
      for (const record of records) await purgeExpired(repositoryId, image(record.dynamodb?.OldImage) as unknown as StoredTrashItem);
      return;
    case 'revisions': {
      const document = image(records.at(-1)!.dynamodb?.NewImage);
      return pruneRevisions({
        id: document.id as string,
        repositoryId: document.repositoryId as string,
        version: document.version as number,
      });
    }
    default:
      return; // not ours (the deployed filters never pass these)
  }
}

export const handler = (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> =>
  observedInvocation(context, () => handleBatch(event, workUntil(context)));

async function handleBatch(event: DynamoDBStreamEvent, until: number | undefined): Promise<DynamoDBBatchResponse> {
  // Runs of consecutive records with the same partition key and kind, grouped by key.
  const byKey = new Map<string, { kind: Kind; records: DynamoDBRecord[] }[]>();
  for (const record of event.Records) {
    const { PK } = keysOf(record);
    const kind = kindOf(record);
    const runs = byKey.get(PK) ?? [];
    const last = runs.at(-1);
    if (last?.kind === kind) last.records.push(record);
    else runs.push({ kind, records: [record] });
    byKey.set(PK, runs);
  }
  const failed: DynamoDBRecord[] = [];
  await Promise.all(
    [...byKey.values()].map(async (runs) => {
      for (const run of runs) {
        try {
          await handleRun(run.kind, run.records, until);
        } catch (error) {
          logger.error('stream records failed', { error: error as Error, kind: run.kind, key: keysOf(run.records[0]!) });
          if (run.kind === 'task') recordMetric('tasksFailed');
          failed.push(run.records[0]!); // later records of this key wait for the retry
          return;
        }
      }
    }),
  );
  const sequence = (record: DynamoDBRecord) => BigInt(record.dynamodb?.SequenceNumber ?? '0');
  const first = failed.sort((a, b) => (sequence(a) < sequence(b) ? -1 : 1))[0];
  return { batchItemFailures: first ? [{ itemIdentifier: first.dynamodb!.SequenceNumber! }] : [] };
}
