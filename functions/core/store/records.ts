/**
 * Items and the resources they hold. An item is a resource's own fields plus its keys and the
 * store's bookkeeping (below); a response is the item without them. One mapping for every
 * resource: the contract tests check every answer against its strict schema, so an attribute
 * that leaked would fail them.
 */
import type { Role } from '../resources';
import type { Item } from './client';
import { accessKey, roleAttribute } from './keys';

/** Attributes that are never part of a resource: keys, and the name key names clash on. */
const bookkeeping: ReadonlySet<string> = new Set(['PK', 'SK', 'nameKey', 'userId']);

/** The resource an item holds. */
export function resourceOf<T>(item: Item): T {
  const resource: Item = {};
  for (const [name, value] of Object.entries(item)) if (!bookkeeping.has(name)) resource[name] = value;
  return resource as T;
}

/** The caller's role in a repository, from an ACCESS item read in the same batch. */
export function roleIn(lookup: (key: ReturnType<typeof accessKey>) => Item | undefined, userId: string, repositoryId: string) {
  return lookup(accessKey(userId))?.[roleAttribute(repositoryId)] as Role | undefined;
}
