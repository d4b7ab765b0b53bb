/**
 * Background work that outgrows one request: a task item, written in the transaction of the
 * request that needs it. The table's stream delivers it to the worker (functions/worker/),
 * which does it in steps, each one transaction that also records the task's progress, so a
 * worker killed at any point resumes where the last step ended and does nothing twice.
 *
 * A task, and a pending change (./change.ts), also carry the sweep index's keys (`sweepIndex`):
 * a shard and the time it has waited since. Every step moves `waitingSince` on, and the item
 * leaves the index when it is deleted (task done, change numbered); what stays in it past the
 * sweeper's grace is work the stream did not finish, which the sweeper drives again
 * (functions/worker/sweeper.ts). The index is sparse: only these items have the attributes.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, put, remove, type TransactItem, tableName, update } from '../db/client';
import { itemIsAbsent } from '../db/conditions';
import { now } from '../ids';
import { taskKey } from './keys';

/**
 * The sparse index the sweeper reads (lib/table.ts defines it from this): partition key a shard
 * (`00`…`15`, from the item's random id, so writes spread over 16 index partitions), sort key
 * the ISO time the item has waited since. Keys only: the sweeper reads the item itself.
 */
export const sweepIndex = { name: 'sweep', partitionKey: 'sweepShard', sortKey: 'waitingSince', shards: 16 } as const;

/** The shard of an item whose key ends in a random UUID (or any hex string). */
export const sweepShardOf = (randomId: string): string =>
  String((Number.parseInt(randomId.slice(0, 2), 16) || 0) % sweepIndex.shards).padStart(2, '0');

/** The attributes that put an item in the sweep index, waiting from `since`. */
export const sweepAttributes = (randomId: string, since: string = now()) => ({
  [sweepIndex.partitionKey]: sweepShardOf(randomId),
  [sweepIndex.sortKey]: since,
});

/** What a task does, and what it needs to know (more kinds come with their features). */
export type TaskSpec =
  /** A repository was deleted: remove everything of it. */
  | { kind: 'reclaim-repository'; repositoryId: string }
  /** A repository was renamed: move every member's membership to the new name. */
  | { kind: 'rename-memberships'; repositoryId: string; nameKey: string }
  /** A folder moved: give the folders below it their new depth. */
  | { kind: 'refresh-depth'; repositoryId: string; folderId: string }
  /** Everything below `folderId` follows `root` into the trash (`token`: that deletion). */
  | { kind: 'trash-subtree'; repositoryId: string; root: string; token: string; folderId: string }
  /** Everything below `folderId` comes back with `root` (marked by the deletion `token`). */
  | { kind: 'restore-subtree'; repositoryId: string; root: string; token: string; folderId: string }
  /** Delete `folderId` and everything below it, permanently. */
  | { kind: 'purge-subtree'; repositoryId: string; folderId: string }
  /** Delete a document and its revisions, permanently. */
  | { kind: 'purge-document'; repositoryId: string; documentId: string }
  /** Delete these objects of a document's pruned revisions, unless a kept revision still names one. */
  | { kind: 'release-objects'; repositoryId: string; documentId: string; objectKeys: string[] }
  /** Purge every trash item deleted at or before `before` (emptying the trash, by `by`). */
  | { kind: 'empty-trash'; repositoryId: string; before: string; by: string }
  /** Hash an upload's bytes a range at a time, then make its version or fail it (core/use-cases/finish-upload.ts). */
  | { kind: 'verify-upload'; repositoryId: string; uploadId: string };

export type TaskKind = TaskSpec['kind'];

/** A stored task: its spec, where it got to, and a step counter that makes progress exclusive. */
export type Task = TaskSpec & {
  id: string;
  createdAt: string;
  step: number;
  cursor?: string;
  phase?: string;
  /** What a step carries over besides its cursor (a hash's saved state). */
  state?: string;
  /** The sweep index's keys (see sweepIndex). */
  sweepShard?: string;
  waitingSince?: string;
};

/**
 * The transaction step that starts a task. `id`: a task that must be one of its kind for what it
 * works on (hex, as the sweep shard is read from it); its start fails (ConditionFailed) while it exists.
 */
export const newTask = (spec: TaskSpec, id: string = randomUUID()): TransactItem => {
  const createdAt = now();
  return put({ ...taskKey(id), ...spec, id, createdAt, step: 0, ...sweepAttributes(id, createdAt) }, itemIsAbsent);
};

/** Where the next step starts from (merged into the task). */
export interface StepProgress {
  cursor?: string;
  phase?: string;
  state?: string;
}

/** What a step does: writes that commit with its progress, and where the task goes on from. */
export interface StepResult {
  writes?: Record<string, TransactItem>;
  /** `done`, or the state the next step starts from. */
  next: 'done' | StepProgress;
}

/**
 * The time a step may take: it should be done with its reading and working by `until` (epoch
 * ms), leaving the invocation time to commit (functions/worker/tasks.ts). Steps of small pages
 * ignore it; a step of unbounded work (hashing) stops there and carries its state over.
 */
export interface StepBudget {
  until: number;
}

export type TaskStep<K extends TaskKind = TaskKind> = (
  task: Extract<Task, { kind: K }>,
  /** None: the step's own default (tests call steps alone). */
  budget?: StepBudget,
) => Promise<StepResult>;
/** Where a step that read a page of `pageSize` goes on from: done after a short page, else after its last item's sort key. */
export const nextPageOf = (page: readonly { SK?: unknown }[], pageSize: number): StepResult['next'] => {
  const last = page.at(-1);
  return page.length < pageSize || !last ? 'done' : { cursor: last.SK as string };
};

/** The step of every kind of task. */
export type TaskSteps = { [K in TaskKind]: TaskStep<K> };

// ---------------------------------------------------------------------------------------------
// Running a task (functions/worker/tasks.ts): its item read, advanced a step, removed when done.

/** A task as it is now (undefined: done). */
export async function readTask(taskId: string): Promise<Task | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: taskKey(taskId), ConsistentRead: true }));
  return Item as Task | undefined;
}

const stepIs = (task: Task) => ({ names: { '#step': 'step' }, values: { ':step': task.step } });

/** The step that records a step's progress: the task's next step starts from `next`. Guarded by the step counter. */
export function advanceTask(task: Task, next: StepProgress): TransactItem {
  const { names, values } = stepIs(task);
  // The task has waited since this step: the sweeper leaves it alone while steps keep coming.
  const fields = { ...next, [sweepIndex.sortKey]: now() };
  const sets = ['#step = :next', ...Object.keys(fields).map((field) => `#${field} = :${field}`)];
  return update(
    taskKey(task.id),
    `SET ${sets.join(', ')}`,
    { ...names, ...Object.fromEntries(Object.keys(fields).map((field) => [`#${field}`, field])) },
    { ...values, ':next': task.step + 1, ...Object.fromEntries(Object.entries(fields).map(([field, value]) => [`:${field}`, value])) },
    '#step = :step',
  );
}

/** The step that ends a task (removes it), guarded by the step counter. */
export function finishTask(task: Task): TransactItem {
  const { names, values } = stepIs(task);
  return remove(taskKey(task.id), { expression: '#step = :step', names, values });
}
