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
  type TransactItem,
  transactWrite,
} from './client';
import { type EntryKind, entryKey, entryPrefix, folderKey, folderPartition, type Key } from './keys';
import { checkMoveTarget, targetKeys } from './move-target';
import { pageRequest, readPage } from './pages';
import { resourceOf } from './records';
import { newTask } from './tasks';

/**
 * A folder item: the resource, its name key, its place (`depth` below the root, 0 for the root;
 * `path`: its ancestors' ids from the root, `/`-separated, '' for the root) and a trash mark.
 * Depth and path of the folders below a moved folder are refreshed by a background task.
 */
export type StoredFolder = Folder & { nameKey: string; depth: number; path?: string; trash?: TrashMark };
/** Set on an item in the trash: the item deleted (`root`), and which deletion of it (`token`). */
export interface TrashMark {
  root: string;
  token: string;
  /** On the deleted item itself: the sort key of its trash record. */
  key?: string;
  /** Being purged: it never comes back. */
  purging?: boolean;
}

/** The path of a folder's children (undefined while the folder's own is unknown: made before paths were kept). */
export const childPath = (parent: Pick<StoredFolder, 'id' | 'path'>) =>
  parent.path === undefined ? undefined : parent.path === '' ? parent.id : `${parent.path}/${parent.id}`;

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
export async function createFolder(caller: Caller, input: { parentId: string; name: string }): Promise<Folder> {
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
        // Its place as read: a refresh after a move above it makes this read again.
        parent: check(folderKey(input.parentId), liveFolderIn(repositoryId, placeIs(parent!))),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        folder: put({ ...folderKey(folder.id), ...folder, nameKey: key, depth: parent!.depth + 1, path: childPath(parent!) }, itemIsAbsent),
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
    const [{ folder: stored, role, lookup }, below] = await Promise.all([
      readFolder(caller, changes.id, target ? targetKeys(caller, target) : []),
      // Whether a move leaves depths to refresh below it: read beside the folder, not after it.
      target ? subfolderIds(changes.id, 1) : Promise.resolve([]),
    ]);
    authorize(role, 'write', 'Folder');
    // Before any other rule of a move (docs/api.md): the root folder changes only with its repository.
    if (stored!.parentId === null) {
      throw invalidField(
        target !== undefined ? 'parentId' : changes.name !== undefined ? 'name' : 'id',
        'the root folder is renamed with its repository (PUT /{id}) and is never moved',
      );
    }
    checkPrecondition(precondition, stored!.version);
    const from = stored!.parentId;
    const parentId = target ?? from;
    const moving = parentId !== from;
    let place: Place = stored!;
    let parentSteps: Record<string, TransactItem>;
    if (moving) {
      checkMoveTarget(caller, lookup, parentId, repositoryId, 'parentId');
      const placement = await placeUnder(stored!, lookup(folderKey(parentId)) as StoredFolder, repositoryId, trustPath);
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
      ...resourceOf<Folder>(stored!),
      name: changes.name ?? stored!.name,
      parentId,
      version: stored!.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const key = nameKey(folder.name);
    const entryMoves = moving || key !== stored!.nameKey;
    try {
      await transactWrite({
        folder: put(
          { ...folderKey(folder.id), ...folder, nameKey: key, depth: place.depth, path: place.path },
          // As read: its version, and its place (a refresh after a move above it rewrites that).
          liveFolderIn(repositoryId, allOf(attributeEquals('version', stored!.version), placeIs(stored!))),
        ),
        ...parentSteps,
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        ...(entryMoves
          ? {
              oldEntry: remove(entryKey('folders', from, stored!.nameKey), idIs(stored!.id)),
              ...claimName('folders', parentId, key, folder),
            }
          : { sameEntry: put({ ...entryKey('folders', parentId, key), ...folder, nameKey: key }, idIs(stored!.id)) }),
        ...(moving && below.length > 0 ? { task: newTask({ kind: 'refresh-depth', repositoryId, folderId: folder.id }) } : {}),
        change: recordChange(repositoryId, {
          type: moving ? 'moved' : key !== stored!.nameKey || folder.name !== stored!.name ? 'renamed' : 'updated',
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

/** Where a folder is: its depth below the root, and its ancestors' ids. */
export type Place = Pick<StoredFolder, 'depth' | 'path'>;

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
  const links: { id: string; parentId: string | null }[] = [];
  const ids = target.path ? target.path.split('/') : [];
  if (trustPath && target.path !== undefined && (ids.at(-1) ?? null) === target.parentId) {
    links.push(...ids.map((id, i) => ({ id, parentId: i === 0 ? null : ids[i - 1]! })));
  } else {
    for (const ancestor of await ancestorsOf(target)) links.push({ id: ancestor.id, parentId: ancestor.parentId });
  }
  const chain = [target.id, ...links.map((link) => link.id)];
  if (chain.includes(folder.id)) throw folderCycle();
  const depth = target.depth + 1;
  if (depth > MAX_FOLDER_DEPTH) throw depthLimitReached();
  if (depth > folder.depth && depth + (await heightBelow(folder, MAX_FOLDER_DEPTH - depth)) > MAX_FOLDER_DEPTH) throw depthLimitReached();
  const steps: Record<string, TransactItem> = {
    // The target as read, place included: the new depth and path are computed from it.
    [`${LINK_STEP}${target.id}`]: check(
      folderKey(target.id),
      liveFolderIn(repositoryId, allOf(parentIs(target.parentId), placeIs(target))),
    ),
  };
  for (const link of links)
    steps[`${LINK_STEP}${link.id}`] = check(folderKey(link.id), liveFolderIn(repositoryId, parentIs(link.parentId)));
  return { depth, path: childPath(target), chain, links: steps };
}

const attributeEquals = (attribute: string, value: unknown): Condition => ({
  expression: `#${attribute} = :${attribute}`,
  names: { [`#${attribute}`]: attribute },
  values: { [`:${attribute}`]: value },
});
const idIs = (id: string) => attributeEquals('id', id);
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
/** Conditions that must all hold (their placeholders must not clash). */
export const allOf = (...conditions: Condition[]): Condition => ({
  expression: conditions.map((c) => `(${c.expression})`).join(' AND '),
  names: Object.assign({}, ...conditions.map((c) => c.names)),
  values: Object.assign({}, ...conditions.map((c) => c.values)),
});

/**
 * A folder's parents up to the root, nearest first: each a strongly consistent read of the
 * next parent (one round trip per level). 404 when one is in the trash: so is the folder. The
 * transaction that uses them asserts every link.
 */
async function ancestorsOf(folder: StoredFolder): Promise<StoredFolder[]> {
  const chain: StoredFolder[] = [];
  for (let at = folder; at.parentId !== null; ) {
    const parent = (await getItems([folderKey(at.parentId)]))(folderKey(at.parentId)) as StoredFolder | undefined;
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
