/**
 * A folder moved (or came back from the trash elsewhere): the folders below it get their new
 * place (depth and path), level by level (each sub folder its own task). Until then a create
 * deep inside a moved subtree is checked against the depth its parent had before the move, and
 * a move into it reads its chain of parents instead of trusting its path (docs/data-model.md:
 * Depth). Folders in the trash are refreshed too: they may come back.
 */

import { check, type TransactItem, update } from '#core/db/client';
import { prefixRange, readRange } from '#core/db/queries';
import { placeIs, readFolderItem } from '#core/items/folder';
import { childPath } from '#core/items/folder-path';
import { entryPrefix, folderKey, folderPartition } from '#core/items/keys';
import { newTask } from '#core/items/task';
import type { TaskStep } from '../tasks';

/** Each child takes two writes (its place, its task). */
const PAGE = 40;

export const refreshDepth: TaskStep<'refresh-depth'> = async (task) => {
  const { repositoryId, folderId } = task;
  const folder = await readFolderItem(folderId);
  if (!folder) return { next: 'done' }; // purged since: nothing to refresh
  const depth = folder.depth + 1;
  const path = childPath(folder);
  const children = await readRange(folderPartition(folderId), { ...prefixRange(entryPrefix.folders), after: task.cursor, limit: PAGE });
  const writes: Record<string, TransactItem> = {
    // Moved again meanwhile: the step is read again with its new place.
    folder: check(folderKey(folderId), placeIs(folder)),
  };
  children.forEach((child, i) => {
    writes[`child${i}`] = update(
      folderKey(child.id as string),
      path === undefined ? 'SET #depth = :depth REMOVE #path' : 'SET #depth = :depth, #path = :path',
      { '#depth': 'depth', '#path': 'path', '#parent': 'parentId' },
      { ':depth': depth, ':parent': folderId, ...(path === undefined ? {} : { ':path': path }) },
      '#parent = :parent',
    );
    writes[`task${i}`] = newTask({ kind: 'refresh-depth', repositoryId, folderId: child.id as string });
  });
  return { writes, next: children.length < PAGE ? 'done' : { cursor: children.at(-1)!.SK as string } };
};
