/**
 * GET /document/{id}/path: the folders from the root down to a document's folder (breadcrumbs).
 * Three round trips at most, all strongly consistent: the document with the caller's role, its
 * folder (whose path names its ancestors: items/folder-path.ts), then the ancestors side by side.
 * The path is a hint (a move refreshes it below the moved folder in the background): the chain is
 * checked link by link, and where it does not hold, the parents are read one at a time instead.
 */
import { getItems, type Item } from '../db/client';
import { notFound } from '../errors';
import { readDocument } from '../items/document';
import { readFolderItem, type StoredFolder } from '../items/folder';
import { ancestorLinks } from '../items/folder-path';
import { folderKey } from '../items/keys';
import { resourceOf } from '../items/resource-of';
import { authorized } from '../items/role';
import { MAX_FOLDER_DEPTH } from '../limits';
import type { Caller, Folder } from '../resources';

export async function getDocumentPath(caller: Caller, id: string): Promise<{ items: Folder[] }> {
  const { item: document } = authorized(await readDocument(caller, id), 'read', 'Document');
  const folder = await liveFolder(document.folderId);
  const ancestors = (await ancestorsFromPath(folder)) ?? (await ancestorsOneByOne(folder));
  return { items: [...ancestors, folder].map((f) => resourceOf<Folder>(f)) };
}

/** A folder in the trash takes what is below it along (a moment later): the document is gone too. */
async function liveFolder(id: string): Promise<LiveFolder> {
  const folder = await readFolderItem(id);
  if (!folder || folder.trash) throw notFound('Document');
  return folder as LiveFolder;
}

type LiveFolder = Item & StoredFolder;

/** The folder's ancestors, root first, read at once from its path; undefined when the path does not hold. */
async function ancestorsFromPath(folder: StoredFolder): Promise<LiveFolder[] | undefined> {
  if (folder.parentId === null) return [];
  if (!folder.path) return undefined;
  const links = ancestorLinks(folder.path);
  if (links.at(-1)?.id !== folder.parentId) return undefined;
  const lookup = await getItems(links.map((link) => folderKey(link.id)));
  const ancestors: LiveFolder[] = [];
  for (const link of links) {
    const ancestor = lookup(folderKey(link.id)) as LiveFolder | undefined;
    if (ancestor?.parentId !== link.parentId) return undefined;
    if (ancestor.trash) throw notFound('Document');
    ancestors.push(ancestor);
  }
  return ancestors;
}

/** The folder's ancestors, root first, one parent at a time. */
async function ancestorsOneByOne(folder: StoredFolder): Promise<LiveFolder[]> {
  const ancestors: LiveFolder[] = [];
  for (let parentId = folder.parentId; parentId !== null; ) {
    if (ancestors.length > MAX_FOLDER_DEPTH) throw notFound('Document');
    const parent = await liveFolder(parentId);
    ancestors.unshift(parent);
    parentId = parent.parentId;
  }
  return ancestors;
}
