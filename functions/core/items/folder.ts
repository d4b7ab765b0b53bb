/**
 * Folders (`FOLDER#<id>` / `FOLDER`): the item, its place (./folder-path.ts) and a trash mark;
 * the folder's partition also holds its entries (./entry.ts). Read, create under a parent, list
 * a folder's sub folders or documents. Renaming and moving: ../use-cases/move-folder.ts;
 * deleting (to the trash): ../use-cases/trash.ts.
 */
import { authorize } from '../auth';
import { ConditionFailed, check, getItems, type Item, optimistically, put, transactWrite, update } from '../db/client';
import { allOf, type Condition, itemIsAbsent } from '../db/conditions';
import { pageRequest, queryPage, readPage } from '../db/queries';
import { HttpError, invalidField, notFound } from '../errors';
import { newFolderId, now, repositoryOf } from '../ids';
import { MAX_FOLDER_DEPTH } from '../limits';
import { nameKey } from '../names';
import type { PageQuery } from '../requests';
import type { Caller, DocumentSummary, Folder, Page } from '../resources';
import { recordChange } from './change';
import { claimName, nameConflict, nameTaken } from './entry';
import { childPlace, type Place, ROOT_PLACE } from './folder-path';
import { aclKey, type EntryKind, entryPrefix, folderKey, folderPartition, type Key } from './keys';
import { firstVersion, resourceOf } from './resource-of';
import { ACCESS_STEP, authorized, type Lookup, readWithRole, roleCheck, roleInBucket } from './role';
import type { TrashMark } from './trash';

/**
 * A folder item: the resource, its name key, its place (depth and path, ./folder-path.ts) and a
 * trash mark. Depth and path of the folders below a moved folder are refreshed by a background task.
 */
export type StoredFolder = Folder & Place & { nameKey: string; trash?: TrashMark };

/** A folder and the caller's role in its repository, in one BatchGetItem. Trashed is missing. */
export async function readFolder(caller: Caller, id: string, extraKeys: Key[] = []) {
  const { item, role, lookup } = await readWithRole(caller, folderKey(id), id, extraKeys);
  const folder = item && !item.trash ? (item as Item & StoredFolder) : undefined;
  return folder ? { item: folder, role, lookup } : { item: undefined, role: undefined, lookup };
}

/** A folder item as it is now, trashed or not (background work, a chain of parents). */
export async function readFolderItem(folderId: string): Promise<StoredFolder | undefined> {
  return (await getItems([folderKey(folderId)]))(folderKey(folderId)) as StoredFolder | undefined;
}

/** Folder items (at most 100) in one BatchGetItem: those still in the table. */
export async function readFolderItems(folderIds: readonly string[]): Promise<Map<string, StoredFolder>> {
  const found = new Map<string, StoredFolder>();
  const lookup = await getItems(folderIds.map(folderKey));
  for (const id of folderIds) {
    const folder = lookup(folderKey(id)) as StoredFolder | undefined;
    if (folder) found.set(id, folder);
  }
  return found;
}

export async function getFolder(caller: Caller, id: string): Promise<Folder> {
  const { item: folder } = authorized(await readFolder(caller, id), 'read', 'Folder');
  return resourceOf<Folder>(folder);
}

/** The root folder has its repository's id; any other folder under that id is not a root. */
export async function getRootFolder(caller: Caller, repositoryId: string): Promise<Folder> {
  const { item: folder } = authorized(await readFolder(caller, repositoryId), 'read', 'Repository');
  if (folder.parentId !== null) throw notFound('Repository');
  return resourceOf<Folder>(folder);
}

/** The condition a write into a folder puts on it: in this repository, not in the trash, and `extra`. */
export const liveFolderIn = (repositoryId: string, extra?: Condition): Condition => ({
  expression: `#repository = :repository AND attribute_not_exists(#trash)${extra ? ` AND ${extra.expression}` : ''}`,
  names: { '#repository': 'repositoryId', '#trash': 'trash', ...extra?.names },
  values: { ':repository': repositoryId, ...extra?.values },
});
export const parentIs = (parentId: string | null): Condition =>
  parentId === null
    ? { expression: 'attribute_type(#parent, :null)', names: { '#parent': 'parentId' }, values: { ':null': 'NULL' } }
    : { expression: '#parent = :parent', names: { '#parent': 'parentId' }, values: { ':parent': parentId } };
/** The folder is where it was seen: its depth and path (the two change together). */
export const placeIs = (place: Place): Condition =>
  place.path === undefined
    ? {
        expression: '#depth = :depth AND attribute_not_exists(#path)',
        names: { '#depth': 'depth', '#path': 'path' },
        values: { ':depth': place.depth },
      }
    : {
        expression: '#depth = :depth AND #path = :path',
        names: { '#depth': 'depth', '#path': 'path' },
        values: { ':depth': place.depth, ':path': place.path },
      };
/** A folder as read, place included: the link of a chain of parents a move or a restore asserts. */
export const folderAsRead = (repositoryId: string, folder: StoredFolder): Condition =>
  liveFolderIn(repositoryId, allOf(parentIs(folder.parentId), placeIs(folder)));

/** The repository a folder id names, or 404: an id that names none names no folder. */
export function repositoryOfFolder(folderId: string): string {
  const repositoryId = repositoryOf(folderId);
  if (!repositoryId) throw notFound('Folder');
  return repositoryId;
}

export const depthLimitReached = () =>
  new HttpError('depth-limit', `Folders nest at most ${MAX_FOLDER_DEPTH} levels below the root folder.`);

/** The root folder of a new repository: its id and name are the repository's. */
export function rootFolderStep(root: Folder, key: string) {
  return put({ ...folderKey(root.id), ...root, nameKey: key, ...ROOT_PLACE }, itemIsAbsent);
}

/** The root folder renamed with its repository (it has no entry in a parent to move). */
export const renameRootStep = (repositoryId: string, name: string, key: string, at: string, by: string) =>
  update(
    folderKey(repositoryId),
    'SET #name = :name, #nameKey = :key, #version = #version + :one, #updatedAt = :at, #updatedBy = :by',
    { '#name': 'name', '#nameKey': 'nameKey', '#version': 'version', '#updatedAt': 'updatedAt', '#updatedBy': 'updatedBy' },
    { ':name': name, ':key': key, ':one': 1, ':at': at, ':by': by },
  );

/**
 * POST /folder. One read (the parent and the caller's role: the new folder's depth is the
 * parent's plus one), then one transaction whose conditions assert what was read: the parent
 * still there at that depth and not in the trash, the caller still a writer, the name free.
 */
export async function createFolder(caller: Caller, input: { parentId: string; name: string }): Promise<Folder> {
  const key = nameKey(input.name);
  const repositoryId = repositoryOfFolder(input.parentId);
  return optimistically(async () => {
    const { item: parent } = authorized(await readFolder(caller, input.parentId), 'write', 'Folder');
    if (parent.depth >= MAX_FOLDER_DEPTH) throw depthLimitReached();
    const at = now();
    const folder: Folder = {
      id: newFolderId(repositoryId),
      repositoryId,
      parentId: input.parentId,
      name: input.name,
      ...firstVersion(at, caller.userId),
    };
    try {
      await transactWrite({
        // Its place as read: a refresh after a move above it makes this read again.
        parent: check(folderKey(input.parentId), liveFolderIn(repositoryId, placeIs(parent))),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        folder: put({ ...folderKey(folder.id), ...folder, nameKey: key, ...childPlace(parent) }, itemIsAbsent),
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
 * A page of a folder's sub folders or documents (its entries). The authorization read and the
 * page's Query go out together (one round trip of latency); the page is dropped unless the
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

/** The ids of a folder's sub folders: its `F#` entries, read a page at a time (or only the first `limit`). */
export async function subfolderIds(folderId: string, limit?: number): Promise<string[]> {
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

/** What a move reads of its target folder: the folder, and the caller's role in the repository its id names. */
export function targetKeys(caller: Caller, folderId: string) {
  const repositoryId = repositoryOf(folderId);
  return repositoryId ? [folderKey(folderId), aclKey(repositoryId, caller.userId)] : [folderKey(folderId)];
}

/**
 * A move's target folder, from what was read with targetKeys(): 404 when it does not exist, is
 * in the trash, or is in a repository the caller is not a member of (exactly as if it did not
 * exist); 400 when the caller can see it but it is in another repository (moves stay in their
 * repository).
 */
export function checkMoveTarget(caller: Caller, lookup: Lookup, folderId: string, repositoryId: string, field = 'folderId'): StoredFolder {
  const target = lookup(folderKey(folderId)) as (Item & StoredFolder) | undefined;
  if (!target || target.trash) throw notFound('Folder');
  const targetRepository = target.repositoryId;
  if (targetRepository === repositoryId) return target;
  if (!roleInBucket(lookup(aclKey(targetRepository, caller.userId)), caller.userId)) throw notFound('Folder');
  throw invalidField(field, 'must be a folder of the same repository');
}
