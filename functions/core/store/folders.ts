/** Folders: read, create under a parent, and list a folder's sub folders or documents. */
import { authorize, writerRoles } from '#core/auth';
import { conflict, notFound } from '#core/errors';
import { newFolderId, now, repositoryOfFolder } from '#core/ids';
import { nameKey } from '#core/names';
import type { Caller, DocumentSummary, Folder, Page, Role } from '#core/resources';
import type { PageQuery } from '#core/schemas';
import { attributeIn, attributeIs, ConditionFailed, check, getItems, itemIsAbsent, optimistically, put, transactWrite } from './client';
import { accessKey, type EntryKind, entryKey, entryPrefix, folderKey, folderPartition, roleAttribute } from './keys';
import { pageRequest, readPage } from './pages';
import { resourceOf, roleIn } from './records';

/** A folder and the caller's role in its repository, in one BatchGetItem. */
async function readFolder(caller: Caller, id: string) {
  const lookup = await getItems([folderKey(id), accessKey(caller.userId)]);
  const item = lookup(folderKey(id));
  const role = item ? roleIn(lookup, caller.userId, item.repositoryId as string) : undefined;
  return { item, role };
}

export async function getFolder(caller: Caller, id: string): Promise<Folder> {
  const { item, role } = await readFolder(caller, id);
  authorize(role, 'read', 'Folder');
  return resourceOf<Folder>(item!);
}

/** The root folder has its repository's id; any other folder under that id is not a root. */
export async function getRootFolder(caller: Caller, repositoryId: string): Promise<Folder> {
  const { item, role } = await readFolder(caller, repositoryId);
  authorize(role, 'read', 'Repository');
  if (item!.parentId !== null && item!.parentId !== undefined) throw notFound('Repository');
  return resourceOf<Folder>(item!);
}

/**
 * The two conditions that open every transaction creating something in a folder: the folder
 * exists in the repository its id names, and the caller may write there. They stand in for a
 * read before the write, so a create is one request; the outcome of each condition decides the
 * answer when the transaction fails (whyRefused).
 */
export function intoFolder(caller: Caller, folderId: string) {
  const repositoryId = repositoryOfFolder(folderId);
  if (!repositoryId) throw notFound('Folder');
  return {
    repositoryId,
    conditions: {
      folder: check(folderKey(folderId), attributeIs('repositoryId', repositoryId)),
      access: check(accessKey(caller.userId), attributeIn(roleAttribute(repositoryId), writerRoles), { returnItem: true }),
    },
  };
}

/**
 * Throws what a create refused by intoFolder's conditions answers, in the contract's order:
 * no such folder, or not a member, 404; a role that may not write, 403. Returns when neither
 * condition failed: the caller then explains its own steps (a taken name is 409).
 */
export function whyRefused(error: ConditionFailed, repositoryId: string): void {
  if (error.failed.has('folder')) throw notFound('Folder');
  if (error.failed.has('access')) {
    const role = error.items.access?.[roleAttribute(repositoryId)] as Role | undefined;
    authorize(role, 'write', 'Folder');
  }
}

/** True when the transaction failed only because an entry of this name exists in the folder. */
export const nameClash = (error: ConditionFailed) =>
  (error.failed.has('entry') || error.failed.has('otherName')) && !error.failed.has('folder') && !error.failed.has('access');

/** One transaction, no read: the conditions decide 404, 403 and 409 (whyRefused). */
export function createFolder(caller: Caller, input: { parentId: string; name: string }): Promise<Folder> {
  const key = nameKey(input.name);
  return optimistically(async () => {
    const { repositoryId, conditions } = intoFolder(caller, input.parentId);
    const at = now();
    const folder: Folder = {
      id: newFolderId(repositoryId),
      repositoryId,
      parentId: input.parentId,
      name: input.name,
      createdAt: at,
      createdBy: caller.userId,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    try {
      await transactWrite({
        ...conditions,
        newFolder: put({ ...folderKey(folder.id), ...folder }, itemIsAbsent),
        entry: put({ ...entryKey('folders', input.parentId, key), ...folder, nameKey: key }, itemIsAbsent),
        otherName: check(entryKey('documents', input.parentId, key), itemIsAbsent),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      whyRefused(error, repositoryId);
      if (nameClash(error)) throw conflict(`The folder already has an item named "${input.name}".`);
      throw error; // nothing the caller did: try again, with a new id
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
  return { items: page.items.map(resourceOf<Folder>), nextToken: page.nextToken };
}

export async function listDocuments(caller: Caller, folderId: string, query: PageQuery): Promise<Page<DocumentSummary>> {
  const page = await listEntries(caller, folderId, 'documents', query);
  return { items: page.items.map(resourceOf<DocumentSummary>), nextToken: page.nextToken };
}
