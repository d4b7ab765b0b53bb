/**
 * Background work that outgrows one request: a task item, written in the transaction of the
 * request that needs it. The table's stream delivers it to the worker (functions/worker/),
 * which does it in steps, each one transaction that also records the task's progress, so a
 * worker killed at any point resumes where the last step ended and does nothing twice.
 */
import { randomUUID } from 'node:crypto';
import { now } from '../ids';
import { itemIsAbsent, put, type TransactItem } from './client';
import { taskKey } from './keys';

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
  /** Purge every trash item deleted at or before `before` (emptying the trash, by `by`). */
  | { kind: 'empty-trash'; repositoryId: string; before: string; by: string };

export type TaskKind = TaskSpec['kind'];

/** A stored task: its spec, where it got to, and a step counter that makes progress exclusive. */
export type Task = TaskSpec & { id: string; createdAt: string; step: number; cursor?: string; phase?: string };

/** The transaction step that starts a task. */
export const newTask = (spec: TaskSpec): TransactItem => {
  const id = randomUUID();
  return put({ ...taskKey(id), ...spec, id, createdAt: now(), step: 0 }, itemIsAbsent);
};
