/**
 * A folder moved: the folders below it get their new depth, level by level (each sub folder
 * its own task). Until then a create deep inside a moved subtree is checked against the depth
 * the folder had before the move (docs/data-model.md: Depth).
 */
import { check, getItems, type TransactItem, update } from '#core/store/client';
import { entryPrefix, folderKey, folderPartition } from '#core/store/keys';
import { prefixRange, readRange } from '#core/store/pages';
import { newTask } from '#core/store/tasks';
import type { TaskStep } from '../tasks';

const PAGE = 40;

export const refreshDepth: TaskStep<'refresh-depth'> = async (task) => {
  const { repositoryId, folderId } = task;
  const folder = (await getItems([folderKey(folderId)]))(folderKey(folderId));
  if (!folder || folder.trash) return { next: 'done' }; // purged or trashed since: nothing to refresh
  const depth = (folder.depth as number) + 1;
  const children = await readRange(folderPartition(folderId), { ...prefixRange(entryPrefix.folders), after: task.cursor, limit: PAGE });
  const writes: Record<string, TransactItem> = {
    // Moved again meanwhile: the step is read again with the new depth.
    folder: check(folderKey(folderId), { expression: '#depth = :depth', names: { '#depth': 'depth' }, values: { ':depth': depth - 1 } }),
  };
  children.forEach((child, i) => {
    writes[`child${i}`] = update(
      folderKey(child.id as string),
      'SET #depth = :depth',
      { '#depth': 'depth', '#parent': 'parentId' },
      { ':depth': depth, ':parent': folderId },
      '#parent = :parent',
    );
    writes[`task${i}`] = newTask({ kind: 'refresh-depth', repositoryId, folderId: child.id as string });
  });
  return { writes, next: children.length < PAGE ? 'done' : { cursor: children.at(-1)!.SK as string } };
};
