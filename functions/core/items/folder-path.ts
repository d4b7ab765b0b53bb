/**
 * Where a folder is: its depth below the root (0 for the root) and its `path`, the ids of its
 * ancestors from the root, `/`-separated ('' for the root). The path is a hint, kept on the
 * folder item: a move reads the chain of parents from it without reading them, and asserts every
 * link in its transaction. A folder made before paths were kept has none (undefined), and so do
 * the folders below it until a refresh gives them one (../use-cases/move-folder.ts: refreshDepth).
 * This module is the only one that reads or writes the path's format.
 */

/** Where a folder is (docs/data-model.md: Depth). */
export interface Place {
  depth: number;
  path?: string;
}

/** The root folder's place. */
export const ROOT_PLACE = { depth: 0, path: '' } as const satisfies Place;

/** The path of a folder's children (undefined while the folder's own is unknown). */
export const childPath = (parent: { id: string; path?: string }) =>
  parent.path === undefined ? undefined : parent.path === '' ? parent.id : `${parent.path}/${parent.id}`;

/** Where a folder's children are. */
export const childPlace = (parent: { id: string } & Place): Place => ({ depth: parent.depth + 1, path: childPath(parent) });

/** Where a folder's parent was when the folder had this place. */
export const parentPlace = (folder: Place): Place => ({
  depth: folder.depth - 1,
  path: folder.path === undefined ? undefined : folder.path.includes('/') ? folder.path.slice(0, folder.path.lastIndexOf('/')) : '',
});

/** A path's ancestors, from the root down, each with the parent the path names for it (null for the root). */
export function ancestorLinks(path: string): { id: string; parentId: string | null }[] {
  const ids = path ? path.split('/') : [];
  return ids.map((id, i) => ({ id, parentId: ids[i - 1] ?? null }));
}

/** The folder's parent as its path names it (null for the root's children and the root). */
export const parentInPath = (path: string) => ancestorLinks(path).at(-1)?.id ?? null;
