/**
 * Renaming and moving a folder (PUT /folder), and placing a folder under another (a move, or a
 * restore from the trash elsewhere): the proof that a move makes no cycle and keeps every folder
 * within the depth limit; and the task that refreshes the place of the folders below a moved
 * one. Composed of ../items/folder.ts, folder-path.ts and entry.ts.
 */

import { ConditionFailed, check, optimistically, put, type TransactItem, transactWrite, update } from '../db/client';
import { allOf, versionIs } from '../db/conditions';
import { prefixRange, readRange } from '../db/queries';
import { HttpError, invalidField, notFound } from '../errors';
import { now } from '../ids';
import { recordChange } from '../items/change';
import { entrySteps, nameConflict, nameTaken } from '../items/entry';
import {
  checkMoveTarget,
  depthLimitReached,
  folderAsRead,
  liveFolderIn,
  parentIs,
  placeIs,
  readFolder,
  readFolderItem,
  repositoryOfFolder,
  type StoredFolder,
  subfolderIds,
  targetKeys,
} from '../items/folder';
import { ancestorLinks, childPath, type Place, parentInPath } from '../items/folder-path';
import { entryPrefix, folderKey, folderPartition } from '../items/keys';
import { resourceOf } from '../items/resource-of';
import { ACCESS_STEP, authorized, explainAccess, roleCheck } from '../items/role';
import { newTask, nextPageOf, type TaskStep } from '../items/task';
import { MAX_FOLDER_DEPTH } from '../limits';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, Folder } from '../resources';

export interface FolderChanges {
  id: string;
  name?: string;
  parentId?: string;
}

/**
 * PUT /folder: rename, or move within the repository. The folder item and its entry in the
 * parent change together. A move also proves the target is not the folder itself nor below it:
 * the transaction asserts every link of the target's chain of parents up to the root, so two
 * racing moves (A into B, B into A) cannot both commit (docs/data-model.md: Moving folders). The
 * chain is taken from the target's `path` without reading it; only when that fails (a path not yet
 * refreshed after a move above it) is it read a parent at a time. What is below the folder does
 * not move (its items name their parent), so a move costs the same whatever the subtree holds;
 * only a move deeper reads the sub folders (never documents), a level at a time, for the depth limit.
 */
export async function updateFolder(caller: Caller, changes: FolderChanges, precondition: Precondition): Promise<Folder> {
  const repositoryId = repositoryOfFolder(changes.id);
  let trustPath = true;
  return optimistically(async () => {
    const target = changes.parentId;
    const [read, below] = await Promise.all([
      readFolder(caller, changes.id, target ? targetKeys(caller, target) : []),
      // Whether a move leaves depths to refresh below it: read beside the folder, not after it.
      target ? subfolderIds(changes.id, 1) : Promise.resolve([]),
    ]);
    const { item: stored } = authorized(read, 'write', 'Folder');
    // Before any other rule of a move (docs/api.md): the root folder changes only with its repository.
    const from = stored.parentId;
    if (from === null) {
      throw invalidField(
        target !== undefined ? 'parentId' : changes.name !== undefined ? 'name' : 'id',
        'the root folder is renamed with its repository (PUT /{id}) and is never moved',
      );
    }
    checkPrecondition(precondition, stored.version);
    const parentId = target ?? from;
    const moving = parentId !== from;
    let place: Place = stored;
    let parentSteps: Record<string, TransactItem>;
    if (moving) {
      const placement = await placeUnder(
        stored,
        checkMoveTarget(caller, read.lookup, parentId, repositoryId, 'parentId'),
        repositoryId,
        trustPath,
      );
      place = placement;
      // The folder it leaves must not be in the trash (unless the chain asserts that already).
      parentSteps = placement.chain.includes(from)
        ? placement.links
        : { ...placement.links, parent: check(folderKey(from), liveFolderIn(repositoryId)) };
    } else {
      parentSteps = { parent: check(folderKey(from), liveFolderIn(repositoryId)) };
    }
    const at = now();
    const folder: Folder = {
      ...resourceOf<Folder>(stored),
      name: changes.name ?? stored.name,
      parentId,
      version: stored.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const key = nameKey(folder.name);
    try {
      await transactWrite({
        folder: put(
          { ...folderKey(folder.id), ...folder, nameKey: key, depth: place.depth, path: place.path },
          // As read: its version, and its place (a refresh after a move above it rewrites that).
          liveFolderIn(repositoryId, allOf(versionIs(stored.version), placeIs(stored))),
        ),
        ...parentSteps,
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        ...entrySteps(
          'folders',
          { id: stored.id, folderId: from, nameKey: stored.nameKey },
          { folderId: parentId, nameKey: key, entry: folder },
        ),
        ...(moving && below.length > 0 ? { task: newTask({ kind: 'refresh-depth', repositoryId, folderId: folder.id }) } : {}),
        change: recordChange(repositoryId, {
          type: moving ? 'moved' : key !== stored.nameKey || folder.name !== stored.name ? 'renamed' : 'updated',
          kind: 'folder',
          id: folder.id,
          folderId: parentId,
          ...(moving ? { previousFolderId: from } : {}),
          name: folder.name,
          version: folder.version,
          at,
          by: caller.userId,
        }),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Folder');
      if (nameTaken(error)) throw nameConflict(folder.name);
      // The folder it is in went to the trash: it goes with it (404), even before it is marked.
      if (error.failed.has('parent')) throw notFound('Folder');
      // A link the path named did not hold: read the chain itself next time.
      if ([...error.failed].some((step) => step.startsWith(LINK_STEP))) trustPath = false;
      throw error; // the folder or a link changed since the read: read again
    }
    return folder;
  });
}

export const folderCycle = () => new HttpError('folder-cycle', 'A folder cannot move into itself or into a folder below it.');

/** Where a folder goes under `target`, and the transaction steps that prove the move makes no cycle. */
export interface Placement extends Place {
  /** The target and its ancestors, up to the root. */
  chain: string[];
  /** One ConditionCheck per folder of the chain: still there, live, with the parent it was seen with. */
  links: Record<string, TransactItem>;
}

export const LINK_STEP = 'link:';

/**
 * Places `folder` under `target` (a move, or a restore elsewhere): 409 `folder-cycle` when the
 * target is the folder or below it, `depth-limit` when the folder or anything below it would be
 * deeper than the limit, 404 when the target is below a folder in the trash. The chain comes from
 * the target's `path` when `trustPath` (no read: the links are asserted anyway), else from its
 * parents read one at a time.
 */
export async function placeUnder(folder: StoredFolder, target: StoredFolder, repositoryId: string, trustPath: boolean): Promise<Placement> {
  const links =
    trustPath && target.path !== undefined && parentInPath(target.path) === target.parentId
      ? ancestorLinks(target.path)
      : (await ancestorsOf(target)).map((ancestor) => ({ id: ancestor.id, parentId: ancestor.parentId }));
  const chain = [target.id, ...links.map((link) => link.id)];
  if (chain.includes(folder.id)) throw folderCycle();
  const depth = target.depth + 1;
  if (depth > MAX_FOLDER_DEPTH) throw depthLimitReached();
  if (depth > folder.depth && depth + (await heightBelow(folder, MAX_FOLDER_DEPTH - depth)) > MAX_FOLDER_DEPTH) throw depthLimitReached();
  const steps: Record<string, TransactItem> = {
    // The target as read, place included: the new depth and path are computed from it.
    [`${LINK_STEP}${target.id}`]: check(folderKey(target.id), folderAsRead(repositoryId, target)),
  };
  for (const link of links)
    steps[`${LINK_STEP}${link.id}`] = check(folderKey(link.id), liveFolderIn(repositoryId, parentIs(link.parentId)));
  return { depth, path: childPath(target), chain, links: steps };
}

/**
 * A folder's parents up to the root, nearest first: each a strongly consistent read of the
 * next parent (one round trip per level). 404 when one is in the trash: so is the folder. The
 * transaction that uses them asserts every link.
 */
async function ancestorsOf(folder: StoredFolder): Promise<StoredFolder[]> {
  const chain: StoredFolder[] = [];
  for (let at = folder; at.parentId !== null; ) {
    const parent = await readFolderItem(at.parentId);
    if (!parent || parent.trash || chain.length > MAX_FOLDER_DEPTH) throw notFound('Folder');
    chain.push(parent);
    at = parent;
  }
  return chain;
}

/** Folders whose sub folders one request of a level lists at once. */
const LEVEL_READS = 16;

/**
 * How many levels of folders are below `folder` (0: none), looking at most `limit + 1` levels
 * down: enough to know whether a move deeper keeps every folder within the depth limit. Only
 * sub folders are read, a level at a time (one round trip per level, its folders side by side);
 * documents never count.
 */
export async function heightBelow(folder: StoredFolder, limit: number): Promise<number> {
  let level = [folder.id];
  for (let height = 0; ; height++) {
    if (height > limit) return height;
    const next: string[] = [];
    for (let i = 0; i < level.length; i += LEVEL_READS) {
      for (const ids of await Promise.all(level.slice(i, i + LEVEL_READS).map((id) => subfolderIds(id)))) next.push(...ids);
    }
    if (next.length === 0) return height;
    level = next;
  }
}

/** Each child takes two writes (its place, its task). */
const REFRESH_PAGE = 40;

/**
 * The task step after a move (or a restore elsewhere): the folders below get their new place
 * (depth and path), a page of sub folders at a time, each its own task for the level below it.
 * Until then a create deep inside a moved subtree is checked against the depth its parent had
 * before the move, and a move into it reads its chain of parents instead of trusting its path
 * (docs/data-model.md: Depth). Folders in the trash are refreshed too: they may come back.
 */
export const refreshDepth: TaskStep<'refresh-depth'> = async (task) => {
  const { repositoryId, folderId } = task;
  const folder = await readFolderItem(folderId);
  if (!folder) return { next: 'done' }; // purged since: nothing to refresh
  const depth = folder.depth + 1;
  const path = childPath(folder);
  const children = await readRange(folderPartition(folderId), {
    ...prefixRange(entryPrefix.folders),
    after: task.cursor,
    limit: REFRESH_PAGE,
  });
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
  return { writes, next: nextPageOf(children, REFRESH_PAGE) };
};
