/**
 * The trash of a repository. Deleting a document or a folder marks it (`trash`: which item's
 * deletion, and which deletion of it), takes its entry out of its folder's listing and records
 * a trash item in the repository's partition, in one transaction: from the answer on it is
 * gone from its folder and a GET of it is 404. What is below a deleted folder follows in the
 * background (functions/worker/tasks.ts).
 */
import { randomUUID } from 'node:crypto';
import { type Action, authorize } from '../auth';
import { conflict, HttpError, invalidField, notFound } from '../errors';
import { now } from '../ids';
import { DAY_MS, MAX_FOLDER_DEPTH, TRASH_DAYS } from '../limits';
import { nameKey } from '../names';
import type { Precondition } from '../preconditions';
import { checkPrecondition } from '../preconditions';
import type { Caller, Document, Folder, Page, Role, TrashItem } from '../resources';
import type { PageQuery } from '../schemas';
import { ACCESS_STEP, explainAccess, readWithRole, roleCheck, roleInBucket } from './access';
import { recordChange } from './changes';
import {
  ConditionFailed,
  check,
  getItems,
  type Item,
  optimistically,
  put,
  remove,
  type TransactItem,
  transactWrite,
  update,
} from './client';
import { readDocument, revisionSteps, type StoredDocument } from './documents';
import {
  childPath,
  claimName,
  depthLimitReached,
  heightBelow,
  LINK_STEP,
  liveFolderIn,
  nameTaken,
  type Place,
  placeIs,
  placeUnder,
  readFolder,
  repositoryOfFolder,
  type StoredFolder,
  type TrashMark,
} from './folders';
import {
  aclKey,
  deletedAtOfTrashKey,
  documentKey,
  ENTRIES_RANGE,
  entryKey,
  folderKey,
  folderPartition,
  type Key,
  repositoryKey,
  repositoryPartition,
  TRASH_PREFIX,
  trashKey,
} from './keys';
import { checkMoveTarget, targetKeys } from './move-target';
import { pageRequest, readPage, readRange } from './pages';
import { resourceOf } from './records';
import { newTask } from './tasks';

/** A trash record as stored: the TrashItem, the deletion's token, and when DynamoDB's TTL purges it (epoch seconds). */
export type StoredTrashItem = TrashItem & { token: string; expiresAt: number };

/** The trash record of a deletion made `at`, kept TRASH_DAYS days. */
export function trashRecord(repositoryId: string, item: Omit<TrashItem, 'deletedAt' | 'purgeAt'>, at: string, token: string) {
  const purgeAt = new Date(Date.parse(at) + TRASH_DAYS * DAY_MS);
  const record: StoredTrashItem = {
    ...item,
    deletedAt: at,
    purgeAt: purgeAt.toISOString(),
    token,
    expiresAt: Math.ceil(purgeAt.getTime() / 1000),
  };
  return { key: trashKey(repositoryId, at, item.id), record };
}

/** DELETE /document/{id}: to the trash, in one transaction after one read. */
export async function trashDocument(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const { stored, role } = await readDocument(caller, id);
    authorize(role, 'write', 'Document');
    checkPrecondition(precondition, stored!.version);
    const { repositoryId, folderId, version, name } = stored!;
    const at = now();
    const token = randomUUID();
    const { key, record } = trashRecord(repositoryId, { id, kind: 'document', name, folderId, deletedBy: caller.userId }, at, token);
    try {
      await transactWrite({
        document: markAsDeleted(documentKey(id), id, token, key.SK, version),
        entry: remove(entryKey('documents', folderId, stored!.nameKey), idIs(id)),
        // A document in a folder on its way to the trash is going with it: 404 (read again).
        folder: check(folderKey(folderId), liveFolderIn(repositoryId)),
        record: put({ ...key, ...record }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        change: recordChange(repositoryId, { type: 'deleted', kind: 'document', id, folderId, name, version, at, by: caller.userId }),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Document');
      // Its folder went to the trash: the document went with it (404), even before it is marked.
      if (error.failed.has('folder')) throw notFound('Document');
      throw error; // the document changed since the read: decide again
    }
  });
}

/**
 * The mark of the item a deletion names (the root of what goes to the trash with it), on the
 * version read, if no deletion marked it meanwhile; `recordKey` is its trash record's sort key.
 */
const markAsDeleted = (key: Key, id: string, token: string, recordKey: string, version: number) =>
  update(
    key,
    'SET #trash = :mark',
    { '#trash': 'trash', '#version': 'version' },
    { ':mark': { root: id, token, key: recordKey }, ':version': version },
    '#version = :version AND attribute_not_exists(#trash)',
  );

const idIs = (id: string) => ({ expression: '#id = :id', names: { '#id': 'id' }, values: { ':id': id } });

/** Who the service names as the author of what it does on its own (the 30-day purge). */
export const SERVICE_USER = 'documents-service';

/** The key of a trashed item, by its kind. */
export const trashedItemKey = (record: Pick<TrashItem, 'kind' | 'id'>) =>
  record.kind === 'folder' ? folderKey(record.id) : documentKey(record.id);

/**
 * The steps that purge one trash item, given the item as read: it is marked as being purged
 * (restoring it is then impossible; it stays 404), its purge task starts, and the `purged`
 * change is recorded. The caller removes the record (DynamoDB's TTL may have done it already).
 */
export function purgeSteps(
  repositoryId: string,
  record: Pick<StoredTrashItem, 'id' | 'kind' | 'name' | 'folderId' | 'token'>,
  item: Item,
  at: string,
  by: string,
): Record<string, TransactItem> {
  const key = trashedItemKey(record);
  return {
    item: update(
      key,
      'SET #trash.#purging = :yes',
      { '#trash': 'trash', '#purging': 'purging', '#token': 'token' },
      { ':yes': true, ':token': record.token },
      // Purged once: a second purge (the TTL's, racing the user's) finds it purging already.
      '#trash.#token = :token AND attribute_not_exists(#trash.#purging)',
    ),
    task: newTask(
      record.kind === 'folder'
        ? { kind: 'purge-subtree', repositoryId, folderId: record.id }
        : { kind: 'purge-document', repositoryId, documentId: record.id },
    ),
    change: recordChange(repositoryId, {
      type: 'purged',
      kind: record.kind,
      id: record.id,
      folderId: record.folderId,
      name: record.name,
      version: item.version as number,
      at,
      by,
    }),
  };
}

/**
 * DELETE /folder/{id}: to the trash, with everything below it. One read (the folder and the
 * caller's role, and beside them whether it holds anything), then one transaction: the folder
 * marked, its entry out of its parent's listing, its trash record, and the task that marks what
 * is below it (functions/worker/task-kinds/trash.ts). From the answer on the folder is 404 and
 * nothing can be made in it; what is below follows within the documented bound. A non-empty
 * folder needs `recursive`; an item made in it at the moment of the delete goes with it.
 */
export async function trashFolder(caller: Caller, id: string, precondition: Precondition, options: { recursive: boolean }): Promise<void> {
  const repositoryId = repositoryOfFolder(id);
  return optimistically(async () => {
    const [{ folder, role }, entries] = await Promise.all([
      readFolder(caller, id),
      options.recursive ? Promise.resolve([]) : readRange(folderPartition(id), { ...ENTRIES_RANGE, limit: 1 }),
    ]);
    authorize(role, 'write', 'Folder');
    if (folder!.parentId === null) throw invalidField('id', 'is the root folder: it goes only with its repository (DELETE /{id})');
    checkPrecondition(precondition, folder!.version);
    if (entries.length > 0) {
      throw new HttpError(
        'folder-not-empty',
        'The folder is not empty: delete it with ?recursive=true to move everything in it to the trash.',
      );
    }
    const { name, version } = folder!;
    const parentId = folder!.parentId;
    const at = now();
    const token = randomUUID();
    const { key, record } = trashRecord(
      repositoryId,
      { id, kind: 'folder', name, folderId: parentId, deletedBy: caller.userId },
      at,
      token,
    );
    try {
      await transactWrite({
        folder: markAsDeleted(folderKey(id), id, token, key.SK, version),
        entry: remove(entryKey('folders', parentId, folder!.nameKey), idIs(id)),
        // A folder whose parent is on its way to the trash is going with it: 404.
        parent: check(folderKey(parentId), liveFolderIn(repositoryId)),
        record: put({ ...key, ...record }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        // Even when it looked empty: whatever was made in it meanwhile follows it.
        task: newTask({ kind: 'trash-subtree', repositoryId, root: id, token, folderId: id }),
        change: recordChange(repositoryId, {
          type: 'deleted',
          kind: 'folder',
          id,
          folderId: parentId,
          name,
          version,
          at,
          by: caller.userId,
        }),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Folder');
      if (error.failed.has('parent')) throw notFound('Folder');
      throw error; // the folder changed since the read: decide again
    }
  });
}

/**
 * Whether a trash record (by its sort key) is still listed: not past its purge time (DynamoDB's
 * TTL may take a while to remove it) and not older than the last time the trash was emptied
 * (the empty-trash task may still be purging it). Records sort by deletion time, so a page
 * stops at the first one that is not.
 */
function listed(recordKey: string, repository: Item | undefined, at: string): boolean {
  const deletedAt = deletedAtOfTrashKey(recordKey);
  const emptiedAt = repository?.trashEmptiedAt as string | undefined;
  return (emptiedAt === undefined || deletedAt > emptiedAt) && purgeTime(deletedAt) > at;
}
const purgeTime = (deletedAt: string) => new Date(Date.parse(deletedAt) + TRASH_DAYS * DAY_MS).toISOString();

/**
 * GET /{id}/trash: newest first. The repository with the caller's role and the page of trash
 * records are read side by side (one round trip); records the trash no longer lists end the page.
 */
export async function listTrash(caller: Caller, repositoryId: string, query: PageQuery): Promise<Page<TrashItem>> {
  const request = pageRequest(`trash:${repositoryId}`, repositoryPartition(repositoryId), TRASH_PREFIX, query, { descending: true });
  const [{ item: repository, role }, page] = await Promise.all([
    readWithRole(caller, repositoryKey(repositoryId), repositoryId),
    readPage(request),
  ]);
  authorize(role, 'read', 'Repository');
  const at = now();
  const shown = page.items.findIndex((record) => !listed(record.SK as string, repository, at));
  const items = shown < 0 ? page.items : page.items.slice(0, shown);
  return { items: items.map((record) => resourceOf<TrashItem>(record)), nextToken: shown < 0 ? page.nextToken : undefined };
}

type TrashedItem = Item & (StoredDocument | StoredFolder) & { trash: TrashMark & { key: string } };

/**
 * An item of a repository's trash, for its endpoints: the item deleted (a document or a folder:
 * the id alone does not say which), the repository and the caller's role in it, in one
 * BatchGetItem with `extraKeys`. `found` is the item only while the trash lists it.
 */
async function readTrashItem(caller: Caller, repositoryId: string, itemId: string, extraKeys: Key[] = []) {
  const lookup = await getItems([
    documentKey(itemId),
    folderKey(itemId),
    repositoryKey(repositoryId),
    aclKey(repositoryId, caller.userId),
    ...extraKeys,
  ]);
  const repository = lookup(repositoryKey(repositoryId));
  const role = repository ? roleInBucket(lookup(aclKey(repositoryId, caller.userId)), caller.userId) : undefined;
  const at = now();
  const inTrash = (item: Item | undefined) => {
    const mark = item?.trash as TrashMark | undefined;
    return (
      item?.repositoryId === repositoryId &&
      mark?.root === itemId &&
      !mark.purging &&
      mark.key !== undefined &&
      listed(mark.key, repository, at)
    );
  };
  const document = lookup(documentKey(itemId));
  const folder = lookup(folderKey(itemId));
  const found = inTrash(document)
    ? { kind: 'document' as const, item: document as TrashedItem & StoredDocument }
    : inTrash(folder)
      ? { kind: 'folder' as const, item: folder as TrashedItem & StoredFolder }
      : undefined;
  return { role, found, lookup };
}

/** Members who may not see the repository get 404 for it; then an item the trash does not list is 404. */
function authorizeTrash<T>(role: Role | undefined, found: T | undefined, action: Action): asserts found is T {
  if (!role) throw notFound('Repository');
  if (!found) throw notFound('Trash item');
  authorize(role, action, 'Trash item');
}

/** The step that asserts a trashed item is still in the trash by this deletion, and not being purged. */
const stillTrashed = (mark: TrashMark) => ({
  expression: '#trash.#token = :token AND attribute_not_exists(#trash.#purging)',
  names: { '#trash': 'trash', '#token': 'token', '#purging': 'purging' },
  values: { ':token': mark.token },
});

export interface RestoreTo {
  folderId?: string;
  name?: string;
}

/**
 * POST /{id}/trash/{itemId}/restore: back where it was (or into `folderId`, as `name`), with
 * everything below it. One read (the item, the repository, the caller's role, and a target
 * folder named in the body), then one transaction: the mark cleared, the entry back in its
 * folder (409 if the name is taken there), the trash record gone, and for a folder the task that
 * unmarks what is below it. The original folder is not read: the transaction asserts it is
 * still there and live (else 409 `restore-target-gone`) and, for a folder, still at the place it
 * had; only if that fails is it read. Restored as it was, the item keeps its version; restored
 * under another name or into another folder it is also renamed or moved, and gets version + 1.
 */
export async function restoreFromTrash(caller: Caller, repositoryId: string, itemId: string, to: RestoreTo): Promise<Document | Folder> {
  // The folder to read with the item: the one the body names; the original one once its place was found changed.
  let readTarget = to.folderId;
  let trustPath = true;
  return optimistically(async () => {
    const { role, found, lookup } = await readTrashItem(caller, repositoryId, itemId, readTarget ? targetKeys(caller, readTarget) : []);
    authorizeTrash(role, found, 'write');
    const { kind, item } = found;
    const mark = item.trash;
    const original = kind === 'folder' ? (item as StoredFolder).parentId! : (item as StoredDocument).folderId;
    const folderId = to.folderId ?? original;
    const name = to.name ?? item.name;
    const key = nameKey(name);
    if (to.folderId !== undefined) checkMoveTarget(caller, lookup, folderId, repositoryId, 'folderId');
    else if (readTarget !== undefined) {
      const target = lookup(folderKey(folderId));
      if (!target || target.trash) throw restoreTargetGone();
    }
    const changed = folderId !== original || name !== item.name;
    const at = now();
    const changes = changed ? { name, nameKey: key, version: item.version + 1, updatedAt: at, updatedBy: caller.userId } : {};
    const steps: Record<string, TransactItem> = {
      record: remove({ PK: repositoryPartition(repositoryId), SK: mark.key }),
      [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
    };
    let restored: Document | Folder;
    if (kind === 'document') {
      const document: Document = { ...resourceOf<Document>(item), ...resourceOf<Partial<Document>>(changes), folderId };
      restored = document;
      const { content: _, ...summary } = document;
      Object.assign(steps, {
        item: update(
          documentKey(itemId),
          `REMOVE #trash${changed ? ' SET #name = :name, #nameKey = :nameKey, #folderId = :folderId, #version = :version, #updatedAt = :at, #updatedBy = :by' : ''}`,
          { '#trash': 'trash', '#token': 'token', '#purging': 'purging', ...(changed ? changedNames('folderId') : {}) },
          { ':token': mark.token, ...(changed ? changedValues(document, key, folderId, at) : {}) },
          stillTrashed(mark).expression,
        ),
        target: check(folderKey(folderId), liveFolderIn(repositoryId)),
        ...claimName('documents', folderId, key, summary),
        // A new version is a revision like any other: it names the same content.
        ...(changed ? revisionSteps(document, (item as StoredDocument).contentVersion) : {}),
      });
    } else {
      const stored = item as StoredFolder;
      let place: Place = stored;
      if (to.folderId !== undefined) {
        const placement = await placeUnder(stored, lookup(folderKey(folderId)) as StoredFolder, repositoryId, trustPath);
        place = placement;
        Object.assign(steps, placement.links);
      } else if (readTarget !== undefined) {
        // Its original folder, read: it may have moved (a deeper place must keep what is below within the limit).
        const parent = lookup(folderKey(folderId)) as StoredFolder;
        place = { depth: parent.depth + 1, path: childPath(parent) };
        if (place.depth > stored.depth && place.depth + (await heightBelow(stored, MAX_FOLDER_DEPTH - place.depth)) > MAX_FOLDER_DEPTH) {
          throw depthLimitReached();
        }
        steps.target = check(folderKey(folderId), liveFolderIn(repositoryId, placeIs(parent)));
      } else {
        // Not read: it is where it was when the folder was deleted, or this is read again.
        steps.target = check(folderKey(folderId), liveFolderIn(repositoryId, placeIs(parentPlace(stored))));
      }
      const folder: Folder = { ...resourceOf<Folder>(stored), ...resourceOf<Partial<Folder>>(changes), parentId: folderId };
      restored = folder;
      const moved = place.depth !== stored.depth || place.path !== stored.path;
      Object.assign(steps, {
        item: put({ ...folderKey(itemId), ...folder, nameKey: key, depth: place.depth, path: place.path }, stillTrashed(mark)),
        ...claimName('folders', folderId, key, folder),
        below: newTask({ kind: 'restore-subtree', repositoryId, root: itemId, token: mark.token, folderId: itemId }),
        ...(moved ? { depth: newTask({ kind: 'refresh-depth', repositoryId, folderId: itemId }) } : {}),
      });
    }
    steps.change = recordChange(repositoryId, {
      type: 'restored',
      kind,
      id: itemId,
      folderId,
      name: restored.name,
      version: restored.version,
      at,
      by: caller.userId,
    });
    try {
      await transactWrite(steps);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Trash item');
      if (nameTaken(error)) {
        throw conflict(`The folder already has an item named "${name}": restore it with another \`name\`, or into another \`folderId\`.`);
      }
      if (error.failed.has('target')) {
        if (kind === 'document' && to.folderId === undefined) throw restoreTargetGone();
        readTarget = folderId; // gone, in the trash, or moved: read it to tell which
      }
      if ([...error.failed].some((step) => step.startsWith(LINK_STEP))) trustPath = false;
      throw error; // restored, purged or changed meanwhile: read again
    }
    return restored;
  });
}

const restoreTargetGone = () =>
  new HttpError(
    'restore-target-gone',
    'The folder it was in is gone or in the trash: restore it with a `folderId` (and, if need be, a `name`) to put it elsewhere.',
  );

/** Where a folder's parent was when it had this place. */
const parentPlace = (folder: Place): Place => ({
  depth: folder.depth - 1,
  path: folder.path === undefined ? undefined : folder.path.includes('/') ? folder.path.slice(0, folder.path.lastIndexOf('/')) : '',
});

const changedNames = (placeAttribute: string) => ({
  '#name': 'name',
  '#nameKey': 'nameKey',
  '#folderId': placeAttribute,
  '#version': 'version',
  '#updatedAt': 'updatedAt',
  '#updatedBy': 'updatedBy',
});
const changedValues = (resource: { name: string; version: number; updatedBy: string }, key: string, folderId: string, at: string) => ({
  ':name': resource.name,
  ':nameKey': key,
  ':folderId': folderId,
  ':version': resource.version,
  ':at': at,
  ':by': resource.updatedBy,
});

/**
 * DELETE /{id}/trash/{itemId}: purged now. One read, then one transaction: the item marked as
 * being purged (it can no longer be restored), its record gone, the purge task started.
 */
export async function purgeFromTrash(caller: Caller, repositoryId: string, itemId: string): Promise<void> {
  return optimistically(async () => {
    const { role, found } = await readTrashItem(caller, repositoryId, itemId);
    authorizeTrash(role, found, 'write');
    const { kind, item } = found;
    const mark = item.trash;
    const folderId = kind === 'folder' ? (item as StoredFolder).parentId! : (item as StoredDocument).folderId;
    const record = { id: itemId, kind, name: item.name, folderId, token: mark.token };
    try {
      await transactWrite({
        ...purgeSteps(repositoryId, record, item, now(), caller.userId),
        record: remove({ PK: repositoryPartition(repositoryId), SK: mark.key }),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
      });
    } catch (error) {
      if (error instanceof ConditionFailed) explainAccess(error, caller, 'write', 'Trash item');
      throw error; // restored or purged meanwhile: read again (404)
    }
  });
}

/**
 * DELETE /{id}/trash (owner): one transaction, no read. It records the moment on the repository
 * (from then on the trash lists nothing deleted before it: listed() above) and starts the task
 * that purges every item deleted up to then (functions/worker/task-kinds/trash.ts).
 */
export async function emptyTrash(caller: Caller, repositoryId: string): Promise<void> {
  const at = now();
  try {
    await transactWrite({
      repository: update(
        repositoryKey(repositoryId),
        'SET #emptied = :at',
        { '#emptied': 'trashEmptiedAt' },
        { ':at': at },
        'attribute_exists(PK)',
      ),
      [ACCESS_STEP]: roleCheck(caller, repositoryId, 'manage'),
      task: newTask({ kind: 'empty-trash', repositoryId, before: at, by: caller.userId }),
    });
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    explainAccess(error, caller, 'manage', 'Repository');
    throw notFound('Repository');
  }
}
