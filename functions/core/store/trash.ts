/**
 * The trash of a repository. Deleting a document or a folder marks it (`trash`: which item's
 * deletion, and which deletion of it), takes its entry out of its folder's listing and records
 * a trash item in the repository's partition, in one transaction: from the answer on it is
 * gone from its folder and a GET of it is 404. What is below a deleted folder follows in the
 * background (functions/worker/tasks.ts).
 */
import { randomUUID } from 'node:crypto';
import { authorize } from '../auth';
import { now } from '../ids';
import { DAY_MS, TRASH_DAYS } from '../limits';
import type { Precondition } from '../preconditions';
import { checkPrecondition } from '../preconditions';
import type { Caller, TrashItem } from '../resources';
import { ACCESS_STEP, explainAccess, roleCheck } from './access';
import { recordChange } from './changes';
import { ConditionFailed, check, type Item, optimistically, put, remove, type TransactItem, transactWrite, update } from './client';
import { readDocument } from './documents';
import { liveFolderIn } from './folders';
import { documentKey, entryKey, folderKey, trashKey } from './keys';
import { newTask } from './tasks';

/** A trash record as stored: the TrashItem, the deletion's token, and when DynamoDB's TTL purges it (epoch seconds). */
export type StoredTrashItem = TrashItem & { token: string; expiresAt: number };

/** The trash record of a deletion made `at`, kept TRASH_DAYS days. */
export function trashRecord(repositoryId: string, item: Omit<TrashItem, 'deletedAt' | 'purgeAt'>, at: string, token: string) {
  const purgeAt = new Date(Date.parse(at) + TRASH_DAYS * DAY_MS);
  const record: StoredTrashItem = {
    ...item,
    deletedAt: at,
    purgeAt: purgeAt.toISOString(),
    token,
    expiresAt: Math.ceil(purgeAt.getTime() / 1000),
  };
  return { key: trashKey(repositoryId, at, item.id), record };
}

/** DELETE /document/{id}: to the trash, in one transaction after one read. */
export function trashDocument(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const { stored, role } = await readDocument(caller, id);
    authorize(role, 'write', 'Document');
    checkPrecondition(precondition, stored!.version);
    const { repositoryId, folderId, version, name } = stored!;
    const at = now();
    const token = randomUUID();
    const { key, record } = trashRecord(repositoryId, { id, kind: 'document', name, folderId, deletedBy: caller.userId }, at, token);
    try {
      await transactWrite({
        document: update(
          documentKey(id),
          'SET #trash = :mark',
          { '#trash': 'trash', '#version': 'version' },
          { ':mark': { root: id, token, key: key.SK }, ':version': version },
          '#version = :version AND attribute_not_exists(#trash)',
        ),
        entry: remove(entryKey('documents', folderId, stored!.nameKey), {
          expression: '#id = :id',
          names: { '#id': 'id' },
          values: { ':id': id },
        }),
        // A document in a folder on its way to the trash is going with it: 404 (read again).
        folder: check(folderKey(folderId), liveFolderIn(repositoryId)),
        record: put({ ...key, ...record }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        change: recordChange(repositoryId, { type: 'deleted', kind: 'document', id, folderId, name, version, at, by: caller.userId }),
      });
    } catch (error) {
      if (error instanceof ConditionFailed) explainAccess(error, caller, 'write', 'Document');
      throw error;
    }
  });
}

/** Who the service names as the author of what it does on its own (the 30-day purge). */
export const SERVICE_USER = 'documents-service';

/** The key of a trashed item, by its kind. */
export const trashedItemKey = (record: Pick<TrashItem, 'kind' | 'id'>) =>
  record.kind === 'folder' ? folderKey(record.id) : documentKey(record.id);

/**
 * The steps that purge one trash item, given the item as read: it is marked as being purged
 * (restoring it is then impossible; it stays 404), its purge task starts, and the `purged`
 * change is recorded. The caller removes the record (DynamoDB's TTL may have done it already).
 */
export function purgeSteps(
  repositoryId: string,
  record: StoredTrashItem,
  item: Item,
  at: string,
  by: string,
): Record<string, TransactItem> {
  const key = trashedItemKey(record);
  return {
    item: update(
      key,
      'SET #trash.#purging = :yes',
      { '#trash': 'trash', '#purging': 'purging', '#token': 'token' },
      { ':yes': true, ':token': record.token },
      '#trash.#token = :token',
    ),
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
