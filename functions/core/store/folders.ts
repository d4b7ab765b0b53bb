/**
 * Folders: read, create under a parent, list a folder's sub folders or documents, rename and
 * move. (Deleting a folder moves it to the trash: ./trash.ts.)
 */
import { authorize } from '../auth';
import { conflict, HttpError, invalidField, notFound } from '../errors';
import { newFolderId, now, repositoryOf } from '../ids';
import { MAX_FOLDER_DEPTH } from '../limits';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, DocumentSummary, Folder, Page } from '../resources';
import type { PageQuery } from '../schemas';
import { ACCESS_STEP, explainAccess, readWithRole, roleCheck } from './access';
import { recordChange } from './changes';
import {
  type Condition,
  ConditionFailed,
  check,
  getItems,
  type Item,
  itemIsAbsent,
  optimistically,
  put,
  queryPage,
  remove,
  transactWrite,
} from './client';
import { type EntryKind, entryKey, entryPrefix, folderKey, folderPartition, type Key } from './keys';
import { checkMoveTarget, targetKeys } from './move-target';
import { pageRequest, readPage } from './pages';
import { resourceOf } from './records';
import { newTask } from './tasks';

/** A folder item: the resource, its name key, its depth below the root (0), and a trash mark. */
export type StoredFolder = Folder & { nameKey: string; depth: number; trash?: TrashMark };
/** Set on an item in the trash: the item deleted (`root`), and which deletion of it (`token`). */
export interface TrashMark {
  root: string;
  token: string;
}

/** A folder and the caller's role in its repository, in one BatchGetItem. Trashed is missing. */
export async function readFolder(caller: Caller, id: string, extraKeys: Key[] = []) {
  const { item, role, lookup } = await readWithRole(caller, folderKey(id), id, extraKeys);
  const folder = item && !item.trash ? (item as Item & StoredFolder) : undefined;
  return { folder, role: folder ? role : undefined, lookup };
}

export async function getFolder(caller: Caller, id: string): Promise<Folder> {
  const { folder, role } = await readFolder(caller, id);
  authorize(role, 'read', 'Folder');
  return resourceOf<Folder>(folder!);
}

/** The root folder has its repository's id; any other folder under that id is not a root. */
export async function getRootFolder(caller: Caller, repositoryId: string): Promise<Folder> {
  const { folder, role } = await readFolder(caller, repositoryId);
  authorize(role, 'read', 'Repository');
  if (folder!.parentId !== null) throw notFound('Repository');
  return resourceOf<Folder>(folder!);
}

/** The condition a write into a folder puts on it: in this repository, not in the trash, and `extra`. */
export const liveFolderIn = (repositoryId: string, extra?: Condition): Condition => ({
  expression: `#repository = :repository AND attribute_not_exists(#trash)${extra ? ` AND ${extra.expression}` : ''}`,
  names: { '#repository': 'repositoryId', '#trash': 'trash', ...extra?.names },
  values: { ':repository': repositoryId, ...extra?.values },
});

/** The repository a folder id names, or 404: an id that names none names no folder. */
export function repositoryOfFolder(folderId: string): string {
  const repositoryId = repositoryOf(folderId);
  if (!repositoryId) throw notFound('Folder');
  return repositoryId;
}

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
export const depthLimitReached = () =>
  new HttpError('depth-limit', `Folders nest at most ${MAX_FOLDER_DEPTH} levels below the root folder.`);

/**
 * POST /folder. One read (the parent and the caller's role: the new folder's depth is the
 * parent's plus one), then one transaction whose conditions assert what was read: the parent
 * still there at that depth and not in the trash, the caller still a writer, the name free.
 */
export function createFolder(caller: Caller, input: { parentId: string; name: string }): Promise<Folder> {
  const key = nameKey(input.name);
  const repositoryId = repositoryOfFolder(input.parentId);
  return optimistically(async () => {
    const { folder: parent, role } = await readFolder(caller, input.parentId);
    authorize(role, 'write', 'Folder');
    if (parent!.depth >= MAX_FOLDER_DEPTH) throw depthLimitReached();
    const at = now();
    const folder: Folder = {
      id: newFolderId(repositoryId),
      repositoryId,
      parentId: input.parentId,
      name: input.name,
      version: 1,
      createdAt: at,
      createdBy: caller.userId,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    try {
      await transactWrite({
        parent: check(folderKey(input.parentId), liveFolderIn(repositoryId, attributeEquals('depth', parent!.depth))),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        folder: put({ ...folderKey(folder.id), ...folder, nameKey: key, depth: parent!.depth + 1 }, itemIsAbsent),
        ...claimName('folders', input.parentId, key, folder),
        change: recordChange(repositoryId, {
          type: 'created',
          kind: 'folder',
          id: folder.id,
          folderId: folder.parentId,
          name: folder.name,
          version: 1,
          at,
          by: caller.userId,
        }),
      });
    } catch (error) {
      if (error instanceof ConditionFailed && nameTaken(error)) throw nameConflict(input.name);
      throw error; // the parent or the caller's role changed since the read: decide again
    }
    return folder;
  });
}

/**
 * A page of a folder's sub folders or documents. The authorization read and the page's
 * Query go out together (one round trip of latency); the page is dropped unless the
 * caller may read the folder, so a non-member sees exactly a missing folder.
 */
async function listEntries(caller: Caller, folderId: string, kind: EntryKind, query: PageQuery) {
  const request = pageRequest(`${kind}:${folderId}`, folderPartition(folderId), entryPrefix[kind], query);
  const [{ role }, page] = await Promise.all([readFolder(caller, folderId), readPage(request)]);
  authorize(role, 'read', 'Folder');
  return page;
}

export async function listFolders(caller: Caller, folderId: string, query: PageQuery): Promise<Page<Folder>> {
  const page = await listEntries(caller, folderId, 'folders', query);
  return { items: page.items.map((item) => resourceOf<Folder>(item)), nextToken: page.nextToken };
}

export async function listDocuments(caller: Caller, folderId: string, query: PageQuery): Promise<Page<DocumentSummary>> {
  const page = await listEntries(caller, folderId, 'documents', query);
  return { items: page.items.map((item) => resourceOf<DocumentSummary>(item)), nextToken: page.nextToken };
}

export interface FolderChanges {
  id: string;
  name?: string;
  parentId?: string;
}

/**
 * PUT /folder: rename, or move within the repository. The folder item and its entry in the
 * parent change together; a move also proves the target is not the folder itself nor below
 * it: the target's chain of parents up to the root is read, and the transaction asserts each
 * link of it still holds, so two racing moves (A into B, B into A) cannot both commit
 * (docs/data-model.md: Moving folders). What is below the folder does not move: its items name
 * their parent, so the cost does not depend on the subtree's size.
 */
export function updateFolder(caller: Caller, changes: FolderChanges, precondition: Precondition): Promise<Folder> {
  const repositoryId = repositoryOfFolder(changes.id);
  return optimistically(async () => {
    const target = changes.parentId;
    const { folder: stored, role, lookup } = await readFolder(caller, changes.id, target ? targetKeys(caller, target) : []);
    authorize(role, 'write', 'Folder');
    if (stored!.parentId === null && (target !== undefined || changes.name !== undefined)) {
      throw invalidField(target !== undefined ? 'parentId' : 'name', 'the root folder is renamed with its repository and never moved');
    }
    checkPrecondition(precondition, stored!.version);
    const parentId = target ?? stored!.parentId!;
    const moving = parentId !== stored!.parentId;
    let depth = stored!.depth;
    const chain: StoredFolder[] = [];
    if (moving) {
      checkMoveTarget(caller, lookup, parentId, repositoryId, 'parentId');
      const parent = lookup(folderKey(parentId)) as StoredFolder;
      chain.push(parent, ...(await ancestorsOf(parent)));
      if (parentId === stored!.id || chain.some((folder) => folder.id === stored!.id)) {
        throw new HttpError('folder-cycle', 'A folder cannot move into itself or into a folder below it.');
      }
      depth = parent.depth + 1;
      if (depth > stored!.depth && depth + (await heightBelow(stored!, MAX_FOLDER_DEPTH - depth)) > MAX_FOLDER_DEPTH) {
        throw depthLimitReached();
      }
    }
    const at = now();
    const folder: Folder = {
      ...resourceOf<Folder>(stored!),
      name: changes.name ?? stored!.name,
      parentId,
      version: stored!.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const key = nameKey(folder.name);
    const entryMoves = moving || key !== stored!.nameKey;
    const links = Object.fromEntries(
      chain.map((link) => [`link:${link.id}`, check(folderKey(link.id), liveFolderIn(repositoryId, parentIs(link.parentId)))]),
    );
    try {
      await transactWrite({
        folder: put({ ...folderKey(folder.id), ...folder, nameKey: key, depth }, versionAndLiveIn(stored!.version, repositoryId)),
        // The parent it leaves must still be in place (not trashed); the one it joins is in `links`.
        ...(moving ? links : { parent: check(folderKey(parentId), liveFolderIn(repositoryId)) }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        ...(entryMoves
          ? {
              oldEntry: remove(entryKey('folders', stored!.parentId!, stored!.nameKey), idIs(stored!.id)),
              ...claimName('folders', parentId, key, folder),
            }
          : { sameEntry: put({ ...entryKey('folders', parentId, key), ...folder, nameKey: key }, idIs(stored!.id)) }),
        ...(moving && (await hasSubfolders(stored!.id))
          ? { task: newTask({ kind: 'refresh-depth', repositoryId, folderId: folder.id }) }
          : {}),
        change: recordChange(repositoryId, {
          type: moving ? 'moved' : key !== stored!.nameKey || folder.name !== stored!.name ? 'renamed' : 'updated',
          kind: 'folder',
          id: folder.id,
          folderId: parentId,
          ...(moving ? { previousFolderId: stored!.parentId! } : {}),
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
      throw error; // the folder, a link of the chain or a parent changed: read again
    }
    return folder;
  });
}

const attributeEquals = (attribute: string, value: unknown): Condition => ({
  expression: `#${attribute} = :${attribute}`,
  names: { [`#${attribute}`]: attribute },
  values: { [`:${attribute}`]: value },
});
const idIs = (id: string) => attributeEquals('id', id);
const parentIs = (parentId: string | null): Condition =>
  parentId === null
    ? { expression: 'attribute_type(#parent, :null)', names: { '#parent': 'parentId' }, values: { ':null': 'NULL' } }
    : attributeEquals('parentId', parentId);
const versionAndLiveIn = (version: number, repositoryId: string) => liveFolderIn(repositoryId, attributeEquals('version', version));

/**
 * A folder's parents up to the root, nearest first: each a strongly consistent read of the
 * next parent (one round trip per level). The transaction that uses them asserts every link.
 */
async function ancestorsOf(folder: StoredFolder): Promise<StoredFolder[]> {
  const chain: StoredFolder[] = [];
  for (let at = folder; at.parentId !== null; ) {
    const parent = (await getItems([folderKey(at.parentId)]))(folderKey(at.parentId)) as StoredFolder | undefined;
    if (!parent || chain.length > MAX_FOLDER_DEPTH) throw notFound('Folder');
    chain.push(parent);
    at = parent;
  }
  return chain;
}

/**
 * How many levels of folders are below `folder` (0: none), looking at most `limit + 1` levels
 * down: enough to know whether a move deeper keeps every folder within the depth limit. Only
 * sub folders are read, level by level; documents never count.
 */
async function heightBelow(folder: StoredFolder, limit: number): Promise<number> {
  let level = [folder.id];
  for (let height = 0; ; height++) {
    if (height > limit) return height;
    const next: string[] = [];
    for (const id of level) next.push(...(await subfolderIds(id)));
    if (next.length === 0) return height;
    level = next;
  }
}

/** The ids of a folder's sub folders: its `F#` entries, read a page at a time. */
async function subfolderIds(folderId: string, limit?: number): Promise<string[]> {
  const ids: string[] = [];
  let lastKey: Item | undefined;
  do {
    const page = await queryPage({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': folderPartition(folderId), ':prefix': entryPrefix.folders },
      ...(lastKey ? { ExclusiveStartKey: lastKey } : {}),
      ...(limit ? { Limit: limit } : {}),
    });
    ids.push(...page.items.map((item) => item.id as string));
    lastKey = limit ? undefined : page.lastKey;
  } while (lastKey);
  return ids;
}

const hasSubfolders = async (folderId: string) => (await subfolderIds(folderId, 1)).length > 0;
