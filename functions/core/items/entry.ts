/**
 * Entries: a folder's listing of what is in it, one item per sub folder (`F#<nameKey>`, a copy
 * of the folder) or document (`D#<nameKey>`, the document without its content), in the folder's
 * partition. An entry is what makes a name taken in a folder: a write that names an item claims
 * the name by putting its entry, and checks the other kind's entry of that name is absent.
 */

import { type ConditionFailed, check, getItems, type Item, put, remove, type TransactItem } from '../db/client';
import { idIs, itemIsAbsent } from '../db/conditions';
import { readRange } from '../db/queries';
import { conflict } from '../errors';
import { documentKey, ENTRIES_RANGE, type EntryKind, entryKey, entryPrefix, folderKey, folderPartition, ITEM_SORT_KEY } from './keys';
import type { TrashMark } from './trash';

/** Steps named so a refused write can be explained: the entry taken, or the other kind's. */
export const ENTRY_STEP = 'entry';
export const OTHER_NAME_STEP = 'otherName';

/** The two steps that claim a name in a folder: this kind's entry, and the other kind's absence. */
export function claimName(kind: EntryKind, folderId: string, key: string, entry: Item) {
  const other: EntryKind = kind === 'folders' ? 'documents' : 'folders';
  return {
    [ENTRY_STEP]: put({ ...entryKey(kind, folderId, key), ...entry, nameKey: key }, itemIsAbsent),
    [OTHER_NAME_STEP]: check(entryKey(other, folderId, key), itemIsAbsent),
  };
}

/** True when the transaction failed only because the name is taken in the folder. */
export const nameTaken = (error: ConditionFailed) =>
  (error.failed.has(ENTRY_STEP) || error.failed.has(OTHER_NAME_STEP)) && error.failed.size <= 2;
export const nameConflict = (name: string) => conflict(`The folder already has an item named "${name}".`);

/** The step that takes an item's entry out of its folder, if it still names that item. */
export const removeEntry = (kind: EntryKind, folderId: string, nameKey: string, id: string): TransactItem =>
  remove(entryKey(kind, folderId, nameKey), idIs(id));

/**
 * The steps that rewrite an item's entry after a change: in place when it keeps its folder and
 * name key (`sameEntry`), else the old one removed (`oldEntry`) and the name claimed where it
 * goes. Each asserts the entry still names the item.
 */
export function entrySteps(
  kind: EntryKind,
  was: { id: string; folderId: string; nameKey: string },
  now: { folderId: string; nameKey: string; entry: Item },
): Record<string, TransactItem> {
  if (now.folderId !== was.folderId || now.nameKey !== was.nameKey) {
    return { oldEntry: removeEntry(kind, was.folderId, was.nameKey, was.id), ...claimName(kind, now.folderId, now.nameKey, now.entry) };
  }
  return { sameEntry: put({ ...entryKey(kind, now.folderId, now.nameKey), ...now.entry, nameKey: now.nameKey }, idIs(was.id)) };
}

/** An item reached through an entry, as read now, with its trash mark if it has one. */
export type EntryItem = Item & { id: string; trash?: TrashMark };

/**
 * Up to `limit` of a folder's entries after `after` (documents `D#`, then sub folders `F#`),
 * each with its item as read now (background work walking a subtree). `parentAttribute` names
 * the item's attribute that says which folder it is in.
 */
export async function entriesWithItems(folderId: string, after: string | undefined, limit: number) {
  const entries = await readRange(folderPartition(folderId), { ...ENTRIES_RANGE, after, limit });
  const keyOf = (entry: Item) =>
    (entry.SK as string).startsWith(entryPrefix.folders) ? folderKey(entry.id as string) : documentKey(entry.id as string);
  const lookup = entries.length === 0 ? () => undefined : await getItems(entries.map(keyOf));
  return entries.map((entry) => {
    const isFolder = keyOf(entry).SK === ITEM_SORT_KEY.folder;
    return {
      entry,
      key: keyOf(entry),
      item: lookup(keyOf(entry)) as EntryItem | undefined,
      isFolder,
      parentAttribute: isFolder ? 'parentId' : 'folderId',
    };
  });
}
