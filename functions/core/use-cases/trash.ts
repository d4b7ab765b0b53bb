/**
 * Deleting a document or a folder: to the trash. The item is marked (`trash`: which item's
 * deletion, and which deletion of it), its entry taken out of its folder's listing and a trash
 * record written in the repository's partition, in one transaction: from the answer on it is
 * gone from its folder and a GET of it is 404. What is below a deleted folder follows in the
 * background (functions/worker/task-kinds/trash.ts). Restoring: ./restore.ts; purging: ./purge.ts.
 */
import { randomUUID } from 'node:crypto';
import { ConditionFailed, check, optimistically, put, transactWrite } from '../db/client';
import { readRange } from '../db/queries';
import { HttpError, invalidField, notFound } from '../errors';
import { now } from '../ids';
import { recordChange } from '../items/change';
import { readDocument } from '../items/document';
import { removeEntry } from '../items/entry';
import { liveFolderIn, readFolder, repositoryOfFolder } from '../items/folder';
import { documentKey, ENTRIES_RANGE, folderKey, folderPartition } from '../items/keys';
import { ACCESS_STEP, authorized, explainAccess, roleCheck } from '../items/role';
import { newTask } from '../items/task';
import { markAsDeleted, trashRecord } from '../items/trash';
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
 * is below it (functions/worker/task-kinds/trash.ts). From the answer on the folder is 404 and
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
