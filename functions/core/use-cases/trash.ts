/**
 * Deleting a document or a folder: to the trash. The item is marked (`trash`: which item's
 * deletion, and which deletion of it), its entry taken out of its folder's listing and a trash
 * record written in the repository's partition, in one transaction: from the answer on it is
 * gone from its folder and a GET of it is 404. What is below a deleted folder follows in the
 * background, a page of entries at a time (trashSubtree, each sub folder its own task).
 * Restoring: ./restore.ts; purging: ./purge.ts.
 *
 * Marking: a step marks what it read as still below the folder, and asserts the deleted folder
 * is still in the trash by this deletion and not being purged: a restore, a second deletion or a
 * purge that happened meanwhile stops the older task. An item reached through entries is never
 * part of another live deletion (a deleted item has no entry, and what is below it is reached
 * only through it), so a mark found on it is a stale one a restore has not yet cleared: it is
 * replaced. A folder being walked is marked, so nothing is added to it or taken out of it: a
 * page cursor misses nothing.
 */
import { randomUUID } from 'node:crypto';
import { ConditionFailed, check, optimistically, put, type TransactItem, transactWrite, update } from '../db/client';
import { readRange } from '../db/queries';
import { HttpError, invalidField, notFound } from '../errors';
import { now } from '../ids';
import { recordChange } from '../items/change';
import { readDocument } from '../items/document';
import { entriesWithItems, removeEntry } from '../items/entry';
import { liveFolderIn, readFolder, readFolderItem, repositoryOfFolder } from '../items/folder';
import { documentKey, ENTRIES_RANGE, folderKey, folderPartition } from '../items/keys';
import { ACCESS_STEP, authorized, explainAccess, roleCheck } from '../items/role';
import { newTask, nextPageOf, type TaskStep } from '../items/task';
import { markAsDeleted, stillTrashedBy, trashRecord } from '../items/trash';
import type { Precondition } from '../preconditions';
import { checkPrecondition } from '../preconditions';
import type { Caller } from '../resources';

/** DELETE /document/{id}: to the trash, in one transaction after one read. */
export async function trashDocument(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const { item: stored } = authorized(await readDocument(caller, id), 'write', 'Document');
    checkPrecondition(precondition, stored.version);
    const { repositoryId, folderId, version, name } = stored;
    const at = now();
    const token = randomUUID();
    const { key, record } = trashRecord(repositoryId, { id, kind: 'document', name, folderId, deletedBy: caller.userId }, at, token);
    try {
      await transactWrite({
        document: markAsDeleted(documentKey(id), id, token, key.SK, version),
        entry: removeEntry('documents', folderId, stored.nameKey, id),
        // A document in a folder on its way to the trash is going with it: 404 (read again).
        folder: check(folderKey(folderId), liveFolderIn(repositoryId)),
        record: put({ ...key, ...record }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        change: recordChange(repositoryId, { type: 'deleted', kind: 'document', id, folderId, name, version, at, by: caller.userId }),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Document');
      // Its folder went to the trash: the document went with it (404), even before it is marked.
      if (error.failed.has('folder')) throw notFound('Document');
      throw error; // the document changed since the read: decide again
    }
  });
}

/**
 * DELETE /folder/{id}: to the trash, with everything below it. One read (the folder and the
 * caller's role, and beside them whether it holds anything), then one transaction: the folder
 * marked, its entry out of its parent's listing, its trash record, and the task that marks what
 * is below it (trashSubtree below). From the answer on the folder is 404 and
 * nothing can be made in it; what is below follows within the documented bound. A non-empty
 * folder needs `recursive`; an item made in it at the moment of the delete goes with it.
 */
export async function trashFolder(caller: Caller, id: string, precondition: Precondition, options: { recursive: boolean }): Promise<void> {
  const repositoryId = repositoryOfFolder(id);
  return optimistically(async () => {
    const [read, entries] = await Promise.all([
      readFolder(caller, id),
      options.recursive ? Promise.resolve([]) : readRange(folderPartition(id), { ...ENTRIES_RANGE, limit: 1 }),
    ]);
    const { item: folder } = authorized(read, 'write', 'Folder');
    const parentId = folder.parentId;
    if (parentId === null) throw invalidField('id', 'is the root folder: it goes only with its repository (DELETE /{id})');
    checkPrecondition(precondition, folder.version);
    if (entries.length > 0) {
      throw new HttpError(
        'folder-not-empty',
        'The folder is not empty: delete it with ?recursive=true to move everything in it to the trash.',
      );
    }
    const { name, version } = folder;
    const at = now();
    const token = randomUUID();
    const { key, record } = trashRecord(
      repositoryId,
      { id, kind: 'folder', name, folderId: parentId, deletedBy: caller.userId },
      at,
      token,
    );
    try {
      await transactWrite({
        folder: markAsDeleted(folderKey(id), id, token, key.SK, version),
        entry: removeEntry('folders', parentId, folder.nameKey, id),
        // A folder whose parent is on its way to the trash is going with it: 404.
        parent: check(folderKey(parentId), liveFolderIn(repositoryId)),
        record: put({ ...key, ...record }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        // Even when it looked empty: whatever was made in it meanwhile follows it.
        task: newTask({ kind: 'trash-subtree', repositoryId, root: id, token, folderId: id }),
        change: recordChange(repositoryId, {
          type: 'deleted',
          kind: 'folder',
          id,
          folderId: parentId,
          name,
          version,
          at,
          by: caller.userId,
        }),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Folder');
      if (error.failed.has('parent')) throw notFound('Folder');
      throw error; // the folder changed since the read: decide again
    }
  });
}

/** Entries a step reads: a sub folder takes two writes (its mark, its task), so 48 fit a transaction with the checks. */
export const SUBTREE_PAGE = 48;

/** The task step that marks a page of what is below a deleted folder, and starts the same for each sub folder. */
export const trashSubtree: TaskStep<'trash-subtree'> = async (task) => {
  const { repositoryId, root, token, folderId } = task;
  const rootItem = await readFolderItem(root);
  // Restored, deleted again, or being purged: this deletion's task has nothing left to do.
  if (rootItem?.trash?.token !== token || rootItem.trash.purging) return { next: 'done' };
  const page = await entriesWithItems(folderId, task.cursor, SUBTREE_PAGE);
  const writes: Record<string, TransactItem> = {
    root: check(folderKey(root), stillTrashedBy(token)),
  };
  page.forEach(({ key, item, isFolder, parentAttribute }, i) => {
    // Marked already by this deletion (an earlier attempt), gone, being purged, or (never in a
    // folder being walked, which nothing can leave) deleted on its own: nothing to do.
    if (!item || item.trash?.token === token || item.trash?.purging || item.trash?.root === item.id) return;
    writes[`mark${i}`] = update(
      key,
      'SET #trash = :mark',
      { '#trash': 'trash', '#root': 'root', '#token': 'token', '#purging': 'purging', '#id': 'id', '#place': parentAttribute },
      { ':mark': { root, token }, ':token': token, ':place': folderId },
      // Still below this folder, once per item and deletion (the task for a sub folder is made once); a stale mark is replaced.
      '#place = :place AND (attribute_not_exists(#trash) OR ' +
        '(#trash.#token <> :token AND #trash.#root <> #id AND attribute_not_exists(#trash.#purging)))',
    );
    if (isFolder) writes[`task${i}`] = newTask({ kind: 'trash-subtree', repositoryId, root, token, folderId: item.id });
  });
  return {
    writes,
    next: nextPageOf(
      page.map(({ entry }) => entry),
      SUBTREE_PAGE,
    ),
  };
};
