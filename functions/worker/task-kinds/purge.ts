/**
 * Permanent deletes: a purged folder's subtree, a purged document with its revisions, and a
 * deleted repository with everything of it. A page at a time, from the first page each time
 * (what a step deletes is gone for the next), so a step done twice deletes nothing twice that
 * anyone could see. Documents and revisions go by BatchWriteItem (half the cost of a transaction);
 * entries, and the tasks for what is below them, go in the step's transaction, so a sub folder
 * is never left without the task that purges it.
 */
import { deleteItems, type Item, queryPage, remove, type TransactItem, update } from '#core/store/client';
import {
  documentPartition,
  ENTRIES_RANGE,
  entryPrefix,
  feedPartition,
  folderKey,
  folderPartition,
  type Key,
  MEMBER_PREFIX,
  memberKey,
  profileKey,
  repositoryPartition,
  TRASH_PREFIX,
  userPartition,
} from '#core/store/keys';
import { prefixRange, readRange } from '#core/store/pages';
import { newTask } from '#core/store/tasks';
import type { TaskStep } from '../tasks';

const PAGE = 25;
const keyOf = (item: Item): Key => ({ PK: item.PK as string, SK: item.SK as string });

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
  // Nothing left below: the folder itself goes, and the task with it.
  if (entries.length === 0) return { writes: { folder: remove(folderKey(folderId)) }, next: 'done' };
  const writes: Record<string, TransactItem> = {};
  for (const [i, entry] of entries.entries()) {
    const id = entry.id as string;
    writes[`entry${i}`] = remove(keyOf(entry));
    if ((entry.SK as string).startsWith(entryPrefix.folders)) {
      writes[`task${i}`] = newTask({ kind: 'purge-subtree', repositoryId, folderId: id });
      continue;
    }
    // A document with a few revisions goes now; one with many gets its own task.
    const { items, complete } = await documentItems(id, PAGE);
    if (complete) await deleteItems(items.map(keyOf));
    else writes[`task${i}`] = newTask({ kind: 'purge-document', repositoryId, documentId: id });
  }
  return { writes, next: {} };
};

export const purgeDocument: TaskStep<'purge-document'> = async (task) => {
  const { items, complete } = await documentItems(task.documentId, 100);
  await deleteItems(items.map(keyOf));
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
      return { writes: { root: newTask({ kind: 'purge-subtree', repositoryId, folderId: repositoryId }) }, next: { phase: 'members' } };
    case 'members': {
      const members = await readRange(repositoryPartition(repositoryId), { ...prefixRange(MEMBER_PREFIX), limit: PAGE });
      if (members.length === 0) return { next: { phase: 'trash' } };
      const writes: Record<string, TransactItem> = {};
      members.forEach((member, i) => {
        const userId = member.userId as string;
        writes[`listing${i}`] = remove({ PK: userPartition(userId), SK: member.listingKey as string });
        writes[`profile${i}`] = update(
          profileKey(userId),
          'ADD #count :minus',
          { '#count': 'repositoryCount' },
          { ':minus': -1 },
          'attribute_exists(PK)',
        );
        writes[`member${i}`] = remove(memberKey(repositoryId, userId));
      });
      return { writes, next: { phase: 'members' } };
    }
    case 'trash': {
      const records = await readRange(repositoryPartition(repositoryId), { ...prefixRange(TRASH_PREFIX), limit: PAGE });
      if (records.length === 0) return { next: { phase: 'feed' } };
      const writes: Record<string, TransactItem> = {};
      records.forEach((record, i) => {
        writes[`record${i}`] = remove(keyOf(record));
        const id = record.id as string;
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
