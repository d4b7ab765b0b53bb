/**
 * Purging from the trash: one item now (DELETE /{id}/trash/{itemId}), all of it (DELETE
 * /{id}/trash, by a task), or an item whose 30 days are up (the worker, when DynamoDB's TTL
 * removes its record). Each marks the item as being purged (it can never come back), starts the
 * task that deletes it (functions/worker/task-kinds/purge.ts) and records the `purged` change.
 */
import { ConditionFailed, type Item, optimistically, type TransactItem, transactWrite, update } from '../db/client';
import { notFound } from '../errors';
import { now } from '../ids';
import { recordChange } from '../items/change';
import { repositoryKey } from '../items/keys';
import { ACCESS_STEP, explainAccess, roleCheck } from '../items/role';
import { newTask } from '../items/task';
import { authorizeTrash, markAsPurging, readTrashItem, removeTrashRecord, type StoredTrashItem, trashedItemKey } from '../items/trash';
import type { Caller } from '../resources';

/** Who the service names as the author of what it does on its own (the 30-day purge). */
export const SERVICE_USER = 'documents-service';

/**
 * The steps that purge one trash item, given the item as read: it is marked as being purged
 * (restoring it is then impossible; it stays 404), its purge task starts, and the `purged`
 * change is recorded. The caller removes the record (DynamoDB's TTL may have done it already).
 */
export function purgeSteps(
  repositoryId: string,
  record: Pick<StoredTrashItem, 'id' | 'kind' | 'name' | 'folderId' | 'token'>,
  item: Item,
  at: string,
  by: string,
): Record<string, TransactItem> {
  return {
    // Purged once: a second purge (the TTL's, racing the user's) finds it purging already.
    item: markAsPurging(trashedItemKey(record), record.token),
    task: newTask(
      record.kind === 'folder'
        ? { kind: 'purge-subtree', repositoryId, folderId: record.id }
        : { kind: 'purge-document', repositoryId, documentId: record.id },
    ),
    change: recordChange(repositoryId, {
      type: 'purged',
      kind: record.kind,
      id: record.id,
      folderId: record.folderId,
      name: record.name,
      version: item.version as number,
      at,
      by,
    }),
  };
}

/**
 * DELETE /{id}/trash/{itemId}: purged now. One read, then one transaction: the item marked as
 * being purged (it can no longer be restored), its record gone, the purge task started.
 */
export async function purgeFromTrash(caller: Caller, repositoryId: string, itemId: string): Promise<void> {
  return optimistically(async () => {
    const { role, found } = await readTrashItem(caller, repositoryId, itemId);
    authorizeTrash(role, found, 'write');
    const { kind, item, folderId } = found;
    const mark = item.trash;
    const record = { id: itemId, kind, name: item.name, folderId, token: mark.token };
    try {
      await transactWrite({
        ...purgeSteps(repositoryId, record, item, now(), caller.userId),
        record: removeTrashRecord(repositoryId, mark),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
      });
    } catch (error) {
      if (error instanceof ConditionFailed) explainAccess(error, caller, 'write', 'Trash item');
      throw error; // restored or purged meanwhile: read again (404)
    }
  });
}

/**
 * DELETE /{id}/trash (owner): one transaction, no read. It records the moment on the repository
 * (from then on the trash lists nothing deleted before it: items/trash.ts) and starts the task
 * that purges every item deleted up to then (functions/worker/task-kinds/trash.ts).
 */
export async function emptyTrash(caller: Caller, repositoryId: string): Promise<void> {
  const at = now();
  try {
    await transactWrite({
      repository: update(
        repositoryKey(repositoryId),
        'SET #emptied = :at',
        { '#emptied': 'trashEmptiedAt' },
        { ':at': at },
        'attribute_exists(PK)',
      ),
      [ACCESS_STEP]: roleCheck(caller, repositoryId, 'manage'),
      task: newTask({ kind: 'empty-trash', repositoryId, before: at, by: caller.userId }),
    });
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    explainAccess(error, caller, 'manage', 'Repository');
    throw notFound('Repository');
  }
}
