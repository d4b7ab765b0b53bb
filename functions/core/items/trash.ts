/**
 * The trash: a record per deletion in the repository's partition (`TRASH#<deletedAt>#<itemId>`,
 * what GET /{id}/trash lists, removed by DynamoDB's TTL after TRASH_DAYS), and a mark (`trash`)
 * on every item the deletion took: the item deleted and everything below it. A marked item is
 * missing for every read, and a folder with a mark takes no writes. What a deletion, a restore
 * and a purge do with these: ../use-cases/trash.ts, restore.ts, purge.ts.
 */
import { type Action, authorize } from '../auth';
import { getItems, type Item, remove, type TransactItem, update } from '../db/client';
import type { Condition } from '../db/conditions';
import { pageRequest, readPage } from '../db/queries';
import { notFound } from '../errors';
import { now } from '../ids';
import { DAY_MS, TRASH_DAYS } from '../limits';
import type { PageQuery } from '../requests';
import type { Caller, Page, Role, TrashItem } from '../resources';
import type { StoredDocument } from './document';
import type { StoredFolder } from './folder';
import {
  aclKey,
  deletedAtOfTrashKey,
  documentKey,
  folderKey,
  type Key,
  repositoryKey,
  repositoryPartition,
  TRASH_PREFIX,
  trashKey,
  trashKeyOfSortKey,
} from './keys';
import { resourceOf } from './resource-of';
import { readWithRole, roleInBucket } from './role';

/** Set on an item in the trash: the item deleted (`root`), and which deletion of it (`token`). */
export interface TrashMark {
  root: string;
  token: string;
  /** On the deleted item itself: the sort key of its trash record. */
  key?: string;
  /** Being purged: it never comes back. */
  purging?: boolean;
}

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

/** The step that removes the trash record a deleted item's mark names. */
export const removeTrashRecord = (repositoryId: string, mark: { key: string }): TransactItem =>
  remove(trashKeyOfSortKey(repositoryId, mark.key));

/** The item is at the version read and not in the trash: what a change of a document or folder asserts. */
export const liveAtVersion = (version: number): Condition => ({
  expression: '#version = :version AND attribute_not_exists(#trash)',
  names: { '#version': 'version', '#trash': 'trash' },
  values: { ':version': version },
});

/**
 * The mark of the item a deletion names (the root of what goes to the trash with it), on the
 * version read, if no deletion marked it meanwhile; `recordKey` is its trash record's sort key.
 */
export const markAsDeleted = (key: Key, id: string, token: string, recordKey: string, version: number) =>
  update(key, 'SET #trash = :mark', { '#trash': 'trash' }, { ':mark': { root: id, token, key: recordKey } }, liveAtVersion(version));

/** The item is still in the trash by the deletion `token`, and not being purged. */
export const stillTrashedBy = (token: string): Condition => ({
  expression: '#trash.#token = :token AND attribute_not_exists(#trash.#purging)',
  names: { '#trash': 'trash', '#token': 'token', '#purging': 'purging' },
  values: { ':token': token },
});

/** The step that marks a trashed item as being purged: from then on it can never be restored. Once. */
export const markAsPurging = (key: Key, token: string): TransactItem =>
  update(key, 'SET #trash.#purging = :yes', { '#trash': 'trash', '#purging': 'purging' }, { ':yes': true }, stillTrashedBy(token));

/**
 * The mark that closes a folder about to be purged (`root`: the folder whose purge reached it):
 * nothing can be made in it or moved into it or out of it from then on.
 */
export const closeForPurge = (folderId: string, root: string, condition: Condition) =>
  update(folderKey(folderId), 'SET #trash = :mark', { '#trash': 'trash' }, { ':mark': { root, token: 'purge', purging: true } }, condition);

/** The key of a trashed item, by its kind. */
export const trashedItemKey = (record: Pick<TrashItem, 'kind' | 'id'>) =>
  record.kind === 'folder' ? folderKey(record.id) : documentKey(record.id);

const purgeTime = (deletedAt: string) => new Date(Date.parse(deletedAt) + TRASH_DAYS * DAY_MS).toISOString();

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

/** The mark of the item a deletion named: it keeps its trash record's sort key. */
type DeletedMark = TrashMark & { key: string };
/** A document the trash lists. */
export type TrashedDocument = Item & StoredDocument & { trash: DeletedMark };
/** A folder the trash lists: never the root (it goes only with its repository), so it has a parent. */
export type TrashedFolder = Item & StoredFolder & { trash: DeletedMark; parentId: string };
export type Trashed =
  | { kind: 'document'; item: TrashedDocument; folderId: string }
  | { kind: 'folder'; item: TrashedFolder; folderId: string };

/**
 * An item of a repository's trash, for its endpoints: the item deleted (a document or a folder:
 * the id alone does not say which), the repository and the caller's role in it, in one
 * BatchGetItem with `extraKeys`. `found` is the item only while the trash lists it, with the
 * folder it was in.
 */
export async function readTrashItem(caller: Caller, repositoryId: string, itemId: string, extraKeys: Key[] = []) {
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
  const document = lookup(documentKey(itemId)) as TrashedDocument | undefined;
  const folder = lookup(folderKey(itemId)) as TrashedFolder | undefined;
  const found: Trashed | undefined =
    document && inTrash(document)
      ? { kind: 'document', item: document, folderId: document.folderId }
      : folder && inTrash(folder)
        ? { kind: 'folder', item: folder, folderId: folder.parentId }
        : undefined;
  return { role, found, lookup };
}

/** Members who may not see the repository get 404 for it; then an item the trash does not list is 404. */
export function authorizeTrash<T>(role: Role | undefined, found: T | undefined, action: Action): asserts found is T {
  if (!role) throw notFound('Repository');
  if (!found) throw notFound('Trash item');
  authorize(role, action, 'Trash item');
}
