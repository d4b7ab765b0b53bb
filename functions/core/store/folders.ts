/** Folders: read, create under a parent, and list a folder's sub folders or documents. */
import { authorize } from '../auth';
import { conflict, notFound } from '../errors';
import { newId, now } from '../ids';
import { nameKey } from '../names';
import type { PageQuery } from '../schemas';
import type { Caller, DocumentSummary, Folder, Page } from '../types';
import { check, getItems, itemIsAbsent, optimistically, put, transactWrite, type Item } from './client';
import { accessKey, entryKey, entryPrefix, folderKey, folderPartition, type EntryKind } from './keys';
import { pageRequest, readPage } from './pages';
import { roleIn, toDocumentSummary, toFolder } from './records';

/** A folder and the caller's role in its repository, in one BatchGetItem. */
async function readFolder(caller: Caller, id: string, extraKeys: ReturnType<typeof entryKey>[] = []) {
  const lookup = await getItems([folderKey(id), accessKey(caller.userId), ...extraKeys]);
  const item = lookup(folderKey(id));
  const role = item ? roleIn(lookup, caller.userId, item.repositoryId as string) : undefined;
  return { item, role, lookup };
}

export async function getFolder(caller: Caller, id: string): Promise<Folder> {
  const { item, role } = await readFolder(caller, id);
  authorize(role, 'read', 'Folder');
  return toFolder(item!);
}

/** The root folder has its repository's id; any other folder under that id is not a root. */
export async function getRootFolder(caller: Caller, repositoryId: string): Promise<Folder> {
  const { item, role } = await readFolder(caller, repositoryId);
  authorize(role, 'read', 'Repository');
  if (item!.parentId !== null && item!.parentId !== undefined) throw notFound('Repository');
  return toFolder(item!);
}

/** True when a sub folder or a document of the folder already has this name key. */
export function nameTaken(lookup: (key: ReturnType<typeof entryKey>) => Item | undefined, folderId: string, key: string) {
  return lookup(entryKey('folders', folderId, key)) !== undefined || lookup(entryKey('documents', folderId, key)) !== undefined;
}

export function createFolder(caller: Caller, input: { parentId: string; name: string }): Promise<Folder> {
  const key = nameKey(input.name);
  return optimistically(async () => {
    const { item: parent, role, lookup } = await readFolder(caller, input.parentId, [
      entryKey('folders', input.parentId, key),
      entryKey('documents', input.parentId, key),
    ]);
    authorize(role, 'write', 'Folder');
    if (nameTaken(lookup, input.parentId, key)) throw conflict(`The folder already has an item named "${input.name}".`);
    const at = now();
    const folder: Folder = {
      id: newId(),
      repositoryId: parent!.repositoryId as string,
      parentId: input.parentId,
      name: input.name,
      createdAt: at,
      createdBy: caller.userId,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    await transactWrite([
      put({ ...folderKey(folder.id), ...folder }, itemIsAbsent),
      put({ ...entryKey('folders', input.parentId, key), ...folder, nameKey: key }, itemIsAbsent),
      check(entryKey('documents', input.parentId, key), itemIsAbsent),
    ]);
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
  return { items: page.items.map(toFolder), nextToken: page.nextToken };
}

export async function listDocuments(caller: Caller, folderId: string, query: PageQuery): Promise<Page<DocumentSummary>> {
  const page = await listEntries(caller, folderId, 'documents', query);
  return { items: page.items.map(toDocumentSummary), nextToken: page.nextToken };
}
