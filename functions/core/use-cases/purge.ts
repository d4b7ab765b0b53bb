/**
 * Purging from the trash: one item now (DELETE /{id}/trash/{itemId}), all of it (DELETE
 * /{id}/trash, by a task), or an item whose 30 days are up (the worker, when DynamoDB's TTL
 * removes its record). Each marks the item as being purged (it can never come back), starts the
 * task that deletes it (purgeSubtree, purgeDocument) and records the `purged` change.
 *
 * The deletes themselves are permanent, a page at a time, from the first page each time (what a
 * step deletes is gone for the next), so a step done twice deletes nothing twice that anyone
 * could see. A document's bytes go first (every object and upload under its prefix in the
 * bucket: ../files/objects.ts), then its revisions, contents and share links (with their entries
 * in the repository) by BatchWriteItem (half the cost
 * of a transaction), and the document item last, in the step's transaction, together with the
 * release of its `keptBytes` from the repository's usage: the document item is the record that
 * the release is still due, so it is released exactly once, whoever purges the document and
 * however often a step is retried. Entries, and the tasks for what is below them, go in the
 * step's transaction too, so a sub folder is never left without the task that purges it.
 *
 * A folder is closed before it is emptied: marked (`trash` with `purging`) in the same
 * transaction that starts its purge, so nothing can be made in it or moved into it or out of it
 * (every such write asserts its folder carries no trash mark), and the step that finds it empty
 * can remove it knowing nothing was added since.
 */

import { documentObjectsPrefix } from '../bucket';
import {
  ConditionFailed,
  deleteItems,
  getItems,
  type Item,
  optimistically,
  remove,
  type TransactItem,
  transactWrite,
  update,
} from '../db/client';
import { readRange } from '../db/queries';
import { notFound } from '../errors';
import { deleteEverythingUnder } from '../files/objects';
import { now } from '../ids';
import { recordChange } from '../items/change';
import { isDocumentItem, readDocumentItems } from '../items/document';
import { parentIs } from '../items/folder';
import {
  ENTRIES_RANGE,
  entryPrefix,
  folderKey,
  folderPartition,
  keyOf,
  repositoryKey,
  repositoryPartition,
  TRASH_PREFIX,
  trashDeletedBy,
  usageKey,
} from '../items/keys';
import { linkCompanionKeys } from '../items/link';
import { ACCESS_STEP, explainAccess, roleCheck } from '../items/role';
import { newTask, type TaskStep } from '../items/task';
import {
  authorizeTrash,
  closeForPurge,
  markAsPurging,
  readTrashItem,
  removeTrashRecord,
  type StoredTrashItem,
  type TrashMark,
  trashedItemKey,
} from '../items/trash';
import { keptBytesAre, keptBytesOf, releaseUsageStep } from '../items/usage';
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
 * that purges every item deleted up to then (emptyTrashStep).
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

/** Emptying the trash: every item deleted at or before `before`, oldest first, purged. */
export const emptyTrashStep: TaskStep<'empty-trash'> = async (task) => {
  const { repositoryId, before, by } = task;
  const records = (await readRange(repositoryPartition(repositoryId), {
    from: TRASH_PREFIX,
    // Trash keys are TRASH#<deletedAt>#<itemId>: '$' sorts after '#', so this ends after `before`.
    to: trashDeletedBy(before),
    limit: 20,
  })) as (Item & StoredTrashItem)[];
  if (records.length === 0) return { next: 'done' };
  const lookup = await getItems(records.map(trashedItemKey));
  const writes: Record<string, TransactItem> = {};
  const at = now();
  records.forEach((record, i) => {
    const item = lookup(trashedItemKey(record)) as (Item & { trash?: TrashMark }) | undefined;
    writes[`record${i}`] = remove(keyOf(record), {
      expression: '#token = :token',
      names: { '#token': 'token' },
      values: { ':token': record.token },
    });
    // Restored meanwhile, or already on its way out: only the record is left to remove.
    if (item?.trash?.token !== record.token || item.trash.purging) return;
    for (const [name, step] of Object.entries(purgeSteps(repositoryId, record, item, at, by))) writes[`${name}${i}`] = step;
  });
  return { writes, next: {} };
};

/**
 * Entries a step reads: a sub folder takes three writes (entry, mark, task), a document two
 * (entry, document item); with the usage release and the task's own progress, 32 of them fit a
 * transaction's 100.
 */
const PAGE = 32;

/** The task step that purges a page of a folder's entries (a sub folder: closed, and its own task), or the emptied folder. */
export const purgeSubtree: TaskStep<'purge-subtree'> = async (task) => {
  const { repositoryId, folderId } = task;
  const entries = await readRange(folderPartition(folderId), { ...ENTRIES_RANGE, limit: PAGE });
  // Nothing left below: the folder itself goes (closed, so nothing was added since the read), and the task with it.
  if (entries.length === 0) {
    return {
      writes: { folder: remove(folderKey(folderId), { expression: 'attribute_exists(#trash)', names: { '#trash': 'trash' } }) },
      next: 'done',
    };
  }
  const writes: Record<string, TransactItem> = {};
  const documents: { i: number; id: string }[] = [];
  for (const [i, entry] of entries.entries()) {
    const id = entry.id as string;
    writes[`entry${i}`] = remove(keyOf(entry));
    if ((entry.SK as string).startsWith(entryPrefix.folders)) {
      writes[`close${i}`] = closeForPurge(id, folderId, parentIs(folderId));
      writes[`task${i}`] = newTask({ kind: 'purge-subtree', repositoryId, folderId: id });
    } else documents.push({ i, id });
  }
  // A document with a few revisions goes now (all of the page's at once); one with many gets its own task.
  const found = await Promise.all(documents.map(async (document) => ({ ...document, ...(await readDocumentItems(document.id, PAGE)) })));
  for (const { i, id, complete } of found)
    if (!complete) writes[`task${i}`] = newTask({ kind: 'purge-document', repositoryId, documentId: id });
  const whole = found.filter(({ complete }) => complete).map(({ i, id, items }) => ({ step: `document${i}`, id, items }));
  Object.assign(writes, await purgeDocuments(repositoryId, whole));
  return { writes, next: {} };
};

/**
 * Revisions and contents a page at a time, after the document's bytes (phase `bytes`, the
 * first); the document item goes with the last page, with its usage released.
 */
export const purgeDocument: TaskStep<'purge-document'> = async (task) => {
  const { repositoryId, documentId } = task;
  if ((task.phase ?? 'bytes') === 'bytes') {
    await deleteEverythingUnder(documentObjectsPrefix(repositoryId, documentId));
    return { next: { phase: 'items' } };
  }
  const { items, complete } = await readDocumentItems(documentId, 100);
  if (!complete) {
    await deleteItems(items.filter((item) => !isDocumentItem(item)).flatMap(itemAndCompanions));
    return { next: { phase: 'items' } };
  }
  // The bytes went in the first phase: nothing can add any to a document being purged.
  const writes = await purgeDocuments(repositoryId, [{ step: 'document', id: documentId, items }], { bytesGone: true });
  return { writes, next: 'done' };
};

/** An item of a document's partition, and what it leaves elsewhere: a share link's entry in its repository. */
const itemAndCompanions = (item: Item) => [keyOf(item), ...linkCompanionKeys(item)];

/**
 * Documents whose every item is read (`items`): their bytes deleted from the bucket (unless
 * already), then their revisions and contents. What is left, for the caller's transaction: the
 * removal of each document item (named `step`; none if it is gone already) and one release of
 * their `keptBytes` from the repository's usage (`usage`). The document item goes last: while it
 * exists its id stays taken, so a client cannot make a new document with that id whose revisions
 * or bytes this purge would then delete. Each removal is conditioned on the `keptBytes` read, so
 * a revision pruning that commits meanwhile (it lowers `keptBytes` and the usage itself) fails
 * the transaction, and the step is read again: nothing is released twice.
 */
async function purgeDocuments(
  repositoryId: string,
  documents: { step: string; id: string; items: Item[] }[],
  options: { bytesGone?: boolean } = {},
): Promise<Record<string, TransactItem>> {
  if (documents.length === 0) return {};
  if (!options.bytesGone) await Promise.all(documents.map(({ id }) => deleteEverythingUnder(documentObjectsPrefix(repositoryId, id))));
  await deleteItems(documents.flatMap(({ items }) => items.filter((item) => !isDocumentItem(item)).flatMap(itemAndCompanions)));
  const writes: Record<string, TransactItem> = {};
  let released = 0;
  for (const { step, items } of documents) {
    const document = items.find(isDocumentItem);
    if (!document) continue;
    released += keptBytesOf(document);
    writes[step] = remove(keyOf(document), keptBytesAre(document));
  }
  // A repository deleted meanwhile has no usage left to give back to.
  if (released > 0 && (await getItems([usageKey(repositoryId)]))(usageKey(repositoryId)))
    writes.usage = releaseUsageStep(repositoryId, released);
  return writes;
}
