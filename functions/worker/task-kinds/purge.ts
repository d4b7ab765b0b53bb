/**
 * Permanent deletes: a purged folder's subtree, a purged document with its revisions, and a
 * deleted repository with everything of it. A page at a time, from the first page each time
 * (what a step deletes is gone for the next), so a step done twice deletes nothing twice that
 * anyone could see. Documents and revisions go by BatchWriteItem (half the cost of a transaction);
 * entries, and the tasks for what is below them, go in the step's transaction, so a sub folder
 * is never left without the task that purges it.
 *
 * A folder is closed before it is emptied: marked (`trash` with `purging`) in the same
 * transaction that starts its purge, so nothing can be made in it or moved into it or out of it
 * (every such write asserts its folder carries no trash mark), and the step that finds it empty
 * can remove it knowing nothing was added since.
 */
import { deleteItems, getItems, type Item, remove, type TransactItem, update } from '#core/db/client';
import { type Condition, itemExists } from '#core/db/conditions';
import { prefixRange, queryPage, readRange } from '#core/db/queries';
import { parentIs } from '#core/items/folder';
import {
  documentPartition,
  ENTRIES_RANGE,
  entryPrefix,
  feedPartition,
  folderKey,
  folderPartition,
  ITEM_SORT_KEY,
  keyOf,
  MEMBER_PREFIX,
  memberKey,
  repositoryPartition,
  TRASH_PREFIX,
} from '#core/items/keys';
import { leaveRepositoryStep, removeMembership } from '#core/items/membership';
import { newTask } from '#core/items/task';
import { markAsPurging, type StoredTrashItem, trashedItemKey } from '#core/items/trash';
import type { TaskStep } from '../tasks';

/** Entries a step reads: a sub folder takes three writes (entry, mark, task), 32 of them fit a transaction. */
const PAGE = 32;
const DOCUMENT_SORT_KEY = ITEM_SORT_KEY.document;

/** The mark that closes a folder about to be purged (`root`: the folder whose purge reached it). */
const closing = (folderId: string, root: string, condition: Condition) =>
  update(folderKey(folderId), 'SET #trash = :mark', { '#trash': 'trash' }, { ':mark': { root, token: 'purge', purging: true } }, condition);

/**
 * Deletes documents' items, each document item last: while it exists its id stays taken, so a
 * client cannot make a new document with that id whose revisions this purge would then delete.
 */
async function deleteDocumentItems(items: Item[]) {
  await deleteItems(items.filter((item) => item.SK !== DOCUMENT_SORT_KEY).map(keyOf));
  await deleteItems(items.filter((item) => item.SK === DOCUMENT_SORT_KEY).map(keyOf));
}

/** A document's items (the document and its revisions), up to `limit`, and whether that was all. */
async function documentItems(documentId: string, limit: number) {
  const { items, lastKey } = await queryPage({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': documentPartition(documentId) },
    Limit: limit,
  });
  return { items, complete: lastKey === undefined };
}

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
      writes[`close${i}`] = closing(id, folderId, parentIs(folderId));
      writes[`task${i}`] = newTask({ kind: 'purge-subtree', repositoryId, folderId: id });
    } else documents.push({ i, id });
  }
  // A document with a few revisions goes now (all of the page's at once); one with many gets its own task.
  const found = await Promise.all(documents.map(({ id }) => documentItems(id, PAGE)));
  await deleteDocumentItems(found.flatMap(({ items, complete }) => (complete ? items : [])));
  found.forEach(({ complete }, j) => {
    if (!complete) writes[`task${documents[j]!.i}`] = newTask({ kind: 'purge-document', repositoryId, documentId: documents[j]!.id });
  });
  return { writes, next: {} };
};

/** Revisions and contents a page at a time; the document item goes with the last page (see deleteDocumentItems). */
export const purgeDocument: TaskStep<'purge-document'> = async (task) => {
  const { items, complete } = await documentItems(task.documentId, 100);
  await deleteDocumentItems(complete ? items : items.filter((item) => item.SK !== DOCUMENT_SORT_KEY));
  return { next: complete ? 'done' : {} };
};

/**
 * A deleted repository: its folders (from the root), its members and their memberships, its
 * trash, its feed. The repository item and its role buckets went with the delete itself.
 */
export const reclaimRepository: TaskStep<'reclaim-repository'> = async (task) => {
  const { repositoryId } = task;
  switch (task.phase ?? 'start') {
    case 'start':
      return {
        writes: {
          close: closing(repositoryId, repositoryId, itemExists),
          root: newTask({ kind: 'purge-subtree', repositoryId, folderId: repositoryId }),
        },
        next: { phase: 'members' },
      };
    case 'members': {
      const members = await readRange(repositoryPartition(repositoryId), { ...prefixRange(MEMBER_PREFIX), limit: PAGE });
      if (members.length === 0) return { next: { phase: 'trash' } };
      const writes: Record<string, TransactItem> = {};
      members.forEach((member, i) => {
        const userId = member.userId as string;
        writes[`listing${i}`] = removeMembership(userId, member.listingKey as string);
        writes[`profile${i}`] = leaveRepositoryStep(userId, 'attribute_exists(PK)');
        writes[`member${i}`] = remove(memberKey(repositoryId, userId));
      });
      return { writes, next: { phase: 'members' } };
    }
    case 'trash': {
      // Each item in the trash is purged like any other (marked as being purged first, which
      // stops its own trash task), unless it already is; no change is recorded: the feed goes too.
      const records = (await readRange(repositoryPartition(repositoryId), { ...prefixRange(TRASH_PREFIX), limit: PAGE })) as (Item &
        StoredTrashItem)[];
      if (records.length === 0) return { next: { phase: 'feed' } };
      const lookup = await getItems(records.map(trashedItemKey));
      const writes: Record<string, TransactItem> = {};
      records.forEach((record, i) => {
        writes[`record${i}`] = remove(keyOf(record));
        const mark = (lookup(trashedItemKey(record)) as { trash?: { token?: string; purging?: boolean } } | undefined)?.trash;
        if (!mark || mark.token !== record.token || mark.purging) return;
        writes[`purging${i}`] = markAsPurging(trashedItemKey(record), record.token);
        const id = record.id;
        writes[`task${i}`] = newTask(
          record.kind === 'folder'
            ? { kind: 'purge-subtree', repositoryId, folderId: id }
            : { kind: 'purge-document', repositoryId, documentId: id },
        );
      });
      return { writes, next: { phase: 'trash' } };
    }
    default: {
      const { items, lastKey } = await queryPage({
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': feedPartition(repositoryId) },
        Limit: 100,
      });
      await deleteItems(items.map(keyOf));
      return { next: lastKey === undefined ? 'done' : { phase: 'feed' } };
    }
  }
};
