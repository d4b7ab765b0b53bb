/**
 * GET /document/{id}/path: the folders from the root down to a document's folder (breadcrumbs).
 * Three round trips at most, all strongly consistent: the document with the caller's role, its
 * folder (whose `path` names its ancestors), then the ancestors side by side. The `path` is a hint
 * (a move refreshes it below the moved folder in the background): the chain is checked link by
 * link, and where it does not hold, the parents are read one at a time instead.
 */
import { authorize } from '../auth';
import { notFound } from '../errors';
import { MAX_FOLDER_DEPTH } from '../limits';
import type { Caller, Folder } from '../resources';
import { getItems } from './client';
import { readDocument } from './documents';
import type { StoredFolder } from './folders';
import { folderKey } from './keys';
import { resourceOf } from './records';

export async function getDocumentPath(caller: Caller, id: string): Promise<{ items: Folder[] }> {
  const { stored, role } = await readDocument(caller, id);
  authorize(role, 'read', 'Document');
  if (!stored) throw notFound('Document');
  const folder = await readLiveFolder(stored.folderId);
  const chain = (await ancestorsFromPath(folder)) ?? (await ancestorsOneByOne(folder));
  return { items: [...chain.reverse(), folder].map((f) => resourceOf<Folder>(f)) };
}

async function readLiveFolder(id: string): Promise<StoredFolder> {
  const folder = (await getItems([folderKey(id)]))(folderKey(id)) as StoredFolder | undefined;
  // A folder in the trash takes what is below it along (a moment later): the document is gone too.
  if (!folder || folder.trash) throw notFound('Document');
  return folder;
}

/** The folder's ancestors, nearest first, read at once from its `path`; undefined when the path does not hold. */
async function ancestorsFromPath(folder: StoredFolder): Promise<StoredFolder[] | undefined> {
  if (folder.parentId === null) return [];
  if (folder.path === undefined || folder.path === '') return undefined;
  const ids = folder.path.split('/');
  const lookup = await getItems(ids.map(folderKey));
  const chain = ids.map((id) => lookup(folderKey(id)) as StoredFolder | undefined);
  const holds = chain.every((f, i) => f !== undefined && f.parentId === (i === 0 ? null : ids[i - 1])) && ids.at(-1) === folder.parentId;
  if (!holds) return undefined;
  if (chain.some((f) => f?.trash)) throw notFound('Document');
  return (chain as StoredFolder[]).reverse();
}

/** The folder's ancestors, nearest first, one parent at a time. */
async function ancestorsOneByOne(folder: StoredFolder): Promise<StoredFolder[]> {
  const chain: StoredFolder[] = [];
  for (let at = folder; at.parentId !== null; at = chain.at(-1) as StoredFolder) {
    if (chain.length > MAX_FOLDER_DEPTH) throw notFound('Document');
    chain.push(await readLiveFolder(at.parentId));
  }
  return chain;
}
