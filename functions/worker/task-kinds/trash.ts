/**
 * A folder's subtree follows it into the trash, and back out of it, a page of entries at a
 * time (each sub folder its own task).
 *
 * Marking: a step marks what it read as still below the folder, and asserts the deleted folder
 * is still in the trash by this deletion and not being purged: a restore, a second deletion or a
 * purge that happened meanwhile stops the older task. An item reached through entries is never
 * part of another live deletion (a deleted item has no entry, and what is below it is reached
 * only through it), so a mark found on it is a stale one a restore has not yet cleared: it is
 * replaced. A folder being walked is marked, so nothing is added to it or taken out of it: a
 * page cursor misses nothing.
 *
 * Unmarking: a restore ends its deletion for good (a later deletion has a new token), so a
 * restore task clears that deletion's marks whatever happened since, even if the folder was
 * deleted again or moved (a newer deletion's task replaces the marks itself). Nothing is left
 * half in the trash.
 */

import { check, getItems, type Item, remove, type TransactItem, update } from '#core/db/client';
import { readRange } from '#core/db/queries';
import { now } from '#core/ids';
import { readFolderItem } from '#core/items/folder';
import {
  documentKey,
  ENTRIES_RANGE,
  entryPrefix,
  folderKey,
  folderPartition,
  keyOf,
  repositoryPartition,
  TRASH_PREFIX,
  trashDeletedBy,
} from '#core/items/keys';
import { newTask } from '#core/items/task';
import { type StoredTrashItem, stillTrashedBy, type TrashMark, trashedItemKey } from '#core/items/trash';
import { purgeSteps } from '#core/use-cases/purge';
import type { TaskStep } from '../tasks';

/** Entries a step reads: a sub folder takes two writes (its mark, its task), so 48 fit a transaction with the checks. */
const PAGE = 48;

type Marked = Item & { trash?: TrashMark & { purging?: boolean } };

/** A page of a folder's entries, each with its item (documents and sub folders), as read now. */
async function entriesWithItems(folderId: string, after: string | undefined) {
  const entries = await readRange(folderPartition(folderId), { ...ENTRIES_RANGE, after, limit: PAGE });
  const keyOf = (entry: Item) =>
    (entry.SK as string).startsWith(entryPrefix.folders) ? folderKey(entry.id as string) : documentKey(entry.id as string);
  const lookup = entries.length === 0 ? () => undefined : await getItems(entries.map(keyOf));
  return entries.map((entry) => ({
    entry,
    key: keyOf(entry),
    item: lookup(keyOf(entry)) as Marked | undefined,
    isFolder: keyOf(entry).SK === 'FOLDER',
  }));
}

const next = (page: readonly { entry: Item }[]) => (page.length < PAGE ? ('done' as const) : { cursor: page.at(-1)!.entry.SK as string });

/** Still below this folder: the condition every mark and unmark carries. */
const stillIn = (folderId: string, isFolder: boolean) => ({
  attribute: isFolder ? 'parentId' : 'folderId',
  value: folderId,
});

export const trashSubtree: TaskStep<'trash-subtree'> = async (task) => {
  const { repositoryId, root, token, folderId } = task;
  const rootItem = await readFolderItem(root);
  // Restored, deleted again, or being purged: this deletion's task has nothing left to do.
  if (rootItem?.trash?.token !== token || rootItem.trash.purging) return { next: 'done' };
  const page = await entriesWithItems(folderId, task.cursor);
  const writes: Record<string, TransactItem> = {
    root: check(folderKey(root), stillTrashedBy(token)),
  };
  page.forEach(({ key, item, isFolder }, i) => {
    // Marked already by this deletion (an earlier attempt), gone, being purged, or (never in a
    // folder being walked, which nothing can leave) deleted on its own: nothing to do.
    if (!item || item.trash?.token === token || item.trash?.purging || item.trash?.root === item.id) return;
    const place = stillIn(folderId, isFolder);
    writes[`mark${i}`] = update(
      key,
      'SET #trash = :mark',
      { '#trash': 'trash', '#root': 'root', '#token': 'token', '#purging': 'purging', '#id': 'id', '#place': place.attribute },
      { ':mark': { root, token }, ':token': token, ':place': place.value },
      // Once per item and deletion (the task for a sub folder is made once); a stale mark is replaced.
      '#place = :place AND (attribute_not_exists(#trash) OR ' +
        '(#trash.#token <> :token AND #trash.#root <> #id AND attribute_not_exists(#trash.#purging)))',
    );
    if (isFolder) writes[`task${i}`] = newTask({ kind: 'trash-subtree', repositoryId, root, token, folderId: item.id as string });
  });
  return { writes, next: next(page) };
};

export const restoreSubtree: TaskStep<'restore-subtree'> = async (task) => {
  const { repositoryId, root, token, folderId } = task;
  const page = await entriesWithItems(folderId, task.cursor);
  const writes: Record<string, TransactItem> = {};
  page.forEach(({ key, item, isFolder }, i) => {
    if (item?.trash?.root !== root || item.trash.token !== token) return;
    writes[`unmark${i}`] = update(
      key,
      'REMOVE #trash',
      { '#trash': 'trash', '#root': 'root', '#token': 'token' },
      { ':root': root, ':token': token },
      '#trash.#root = :root AND #trash.#token = :token',
    );
    if (isFolder) writes[`task${i}`] = newTask({ kind: 'restore-subtree', repositoryId, root, token, folderId: item.id as string });
  });
  return { writes, next: next(page) };
};

/** Emptying the trash: every item deleted at or before `before`, oldest first, purged. */
export const emptyTrash: TaskStep<'empty-trash'> = async (task) => {
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
    const item = lookup(trashedItemKey(record)) as Marked | undefined;
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
