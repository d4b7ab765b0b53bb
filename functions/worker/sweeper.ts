/**
 * The sweeper: finds background work the stream did not finish, and drives it again with the
 * code the worker runs. It is what makes the worker's correctness independent of any one
 * stream record: a record given up on after the mapping's retries (docs/operations.md), or
 * never delivered, leaves its work in the table, and the work is found here.
 *
 * - A task (`TASK#`) whose last step is older than the grace: `runTask` from where it got to,
 *   for one budget; its step's MODIFY then nudges the stream again, and the next sweep picks it
 *   up if the stream still does not.
 * - A pending change (`FEED#…/P#`) written longer ago than the grace: its repository's waiting
 *   changes are numbered (`sweepFeed`, the worker's numbering), oldest first.
 * - An upload (`REPO#…/UPLOAD#`) whose time came: expired, finished after a lost notification,
 *   or its bytes deleted after a failure (`sweepUpload`).
 *
 * It finds them in the sparse sweep index (`sweepIndex`, lib/table.ts): a Query per shard for
 * items that have waited since before the cutoff, keys only. No Scan: an idle table costs 16
 * Queries that return nothing. The index is eventually consistent, so an item may show up a
 * moment after it was numbered or finished; the work it leads to reads the item strongly and
 * does nothing then. Everything here is safe beside the worker: a task's steps are guarded by
 * its step counter, a change is numbered once whoever gets there first.
 *
 * Deployed, an EventBridge schedule invokes ./sweep.ts every few minutes; locally
 * lib/local/worker.ts runs the same `sweep` on a timer.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#core/db/client';
import { idOfPartition, isPendingChangeKey, isTaskKey, isUploadKey, UPLOAD_PREFIX } from '#core/items/keys';
import { sweepIndex } from '#core/items/task';
import { logger } from '#core/logger';
import { recordMetric } from '#core/metrics';
import { sweepUpload } from '#core/use-cases/finish-upload';
import { sweeping } from './delivery';
import { sweepFeed } from './number-changes';
import { taskSteps } from './task-steps';
import { runTask } from './tasks';

export interface SweepOptions {
  /** Work that has waited at least this long is taken; default `sweeping.graceSeconds`. */
  graceSeconds?: number;
  /** No new work is started after this long; default `sweeping.budgetSeconds`. */
  budgetSeconds?: number;
  /** When the invocation's work must end (epoch ms, from its remaining time): tasks run never past it. */
  until?: number;
}

export interface SweepReport {
  /** Tasks run. */
  tasks: number;
  /** Uploads looked at (expired, finished, their bytes deleted). */
  uploads: number;
  /** Changes numbered, and in how many repositories. */
  changes: number;
  repositories: number;
  /** Tasks or feeds that failed (logged; the next sweep tries again). */
  failed: number;
  /** Work found but left to the next sweep (the budget ran out). */
  left: number;
}

/** Keys read from one shard per sweep: the rest waits for the next. */
const PER_SHARD = 1_000;
/** Tasks run side by side. */
const TASKS_AT_ONCE = 4;

export async function sweep(options: SweepOptions = {}): Promise<SweepReport> {
  const graceSeconds = options.graceSeconds ?? sweeping.graceSeconds;
  const until = options.until ?? Number.POSITIVE_INFINITY;
  const deadline = Math.min(Date.now() + (options.budgetSeconds ?? sweeping.budgetSeconds) * 1_000, until);
  const cutoff = new Date(Date.now() - graceSeconds * 1_000).toISOString();
  const shards = [...Array(sweepIndex.shards).keys()].map((i) => String(i).padStart(2, '0'));
  const keys = (await Promise.all(shards.map((shard) => waitingIn(shard, cutoff)))).flat();

  const taskIds = new Set<string>();
  const repositories = new Set<string>();
  const uploads: { repositoryId: string; uploadId: string }[] = [];
  for (const key of keys) {
    const { PK, SK } = key;
    if (isTaskKey(key)) taskIds.add(idOfPartition(PK));
    else if (isPendingChangeKey(key)) repositories.add(idOfPartition(PK));
    else if (isUploadKey(key)) uploads.push({ repositoryId: idOfPartition(PK), uploadId: SK.slice(UPLOAD_PREFIX.length) });
  }
  const report: SweepReport = { tasks: 0, changes: 0, repositories: 0, uploads: 0, failed: 0, left: 0 };

  // Feeds first: numbering is quick, and a follower waits on it.
  for (const repositoryId of repositories) {
    if (Date.now() > deadline) {
      report.left++;
      continue;
    }
    try {
      const numbered = await sweepFeed(repositoryId, cutoff);
      report.changes += numbered;
      if (numbered > 0) report.repositories++;
    } catch (error) {
      report.failed++;
      logger.error('sweep: numbering failed', { error: error as Error, repositoryId });
    }
  }

  // Uploads whose time came: expired ones, and those a lost notification or request left open.
  for (const { repositoryId, uploadId } of uploads) {
    if (Date.now() > deadline) {
      report.left++;
      continue;
    }
    try {
      await sweepUpload(repositoryId, uploadId);
      report.uploads++;
    } catch (error) {
      report.failed++;
      logger.error('sweep: upload failed', { error: error as Error, repositoryId, uploadId });
    }
  }

  const queue = [...taskIds];
  await Promise.all(
    [...Array(Math.min(TASKS_AT_ONCE, queue.length)).keys()].map(async () => {
      for (let taskId = queue.shift(); taskId !== undefined; taskId = queue.shift()) {
        if (Date.now() > deadline) {
          report.left++;
          continue;
        }
        try {
          await runTask(taskId, taskSteps, until);
          report.tasks++;
        } catch (error) {
          report.failed++;
          recordMetric('tasksFailed');
          logger.error('sweep: task failed', { error: error as Error, taskId });
        }
      }
    }),
  );
  return report;
}

/** Keys of the items in one shard of the sweep index that have waited since `cutoff` or before. */
async function waitingIn(shard: string, cutoff: string): Promise<{ PK: string; SK: string }[]> {
  const keys: { PK: string; SK: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: sweepIndex.name,
        KeyConditionExpression: '#shard = :shard AND #since <= :cutoff',
        ExpressionAttributeNames: { '#shard': sweepIndex.partitionKey, '#since': sweepIndex.sortKey },
        ExpressionAttributeValues: { ':shard': shard, ':cutoff': cutoff },
        ExclusiveStartKey: start,
        Limit: PER_SHARD - keys.length,
      }),
    );
    for (const item of page.Items ?? []) keys.push({ PK: item.PK as string, SK: item.SK as string });
    start = page.LastEvaluatedKey;
  } while (start && keys.length < PER_SHARD);
  return keys;
}
