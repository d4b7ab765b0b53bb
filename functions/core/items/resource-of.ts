/**
 * Items and the resources they hold. An item is a resource's own fields plus its keys and the
 * store's bookkeeping (below); a response is the item without them. One mapping for every
 * resource: the contract tests check every answer against its strict schema, so an attribute
 * that leaked would fail them.
 */
import type { Item } from '../db/client';

/**
 * Attributes that are never part of a resource: keys, the name key names clash on, a folder's
 * depth and path, trash marks, counters and links the store keeps on repositories and members, a
 * revision's pointer to the content it shares, a document's request to prune its revisions, the
 * bytes its kept revisions hold and the object of a file's bytes.
 */
const bookkeeping: ReadonlySet<string> = new Set([
  'PK',
  'SK',
  'nameKey',
  'depth',
  'path',
  'trash',
  'memberCount',
  'ownerCount',
  'aclBuckets',
  'trashEmptiedAt',
  'listingKey',
  'token',
  'expiresAt',
  'contentVersion',
  'pruneRevisions',
  'keptBytes',
  'objectKey',
]);

/** What a resource's first version says of when and by whom it was made (it is also its last update). */
export const firstVersion = (at: string, by: string) => ({ version: 1, createdAt: at, createdBy: by, updatedAt: at, updatedBy: by });

/** The resource an item holds; `also` names attributes this kind of item keeps besides. */
export function resourceOf<T>(item: Item, also: readonly string[] = []): T {
  const resource: Item = {};
  for (const [name, value] of Object.entries(item)) if (!bookkeeping.has(name) && !also.includes(name)) resource[name] = value;
  return resource as T;
}
