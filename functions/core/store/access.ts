/**
 * Who may do what in a repository, as the store checks it: the caller's role is one attribute
 * of a small bucket item (keys.ts: ACL), read in the same request as the resource (the home
 * bucket), and re-checked inside every write's transaction (one of the caller's lanes, at
 * random), so a role changed or removed since the read is never used, and a user's parallel
 * writes do not all meet on one item (docs/data-model.md: Authorization).
 */
import { type Action, authorize, rolesFor } from '../auth';
import { repositoryOf } from '../ids';
import type { Caller, Role } from '../resources';
import { attributeIn, type ConditionFailed, check, getItems, type Item, rechosen, type TransactItem } from './client';
import { aclKey, aclKeyOfBucket, type Key, randomAclLane, roleAttribute } from './keys';

/** The caller's role in a repository, from its bucket item (undefined: not a member). */
export const roleInBucket = (bucket: Item | undefined, userId: string) => bucket?.[roleAttribute(userId)] as Role | undefined;

export interface Authorized {
  /** The item read, or undefined when it does not exist. */
  item: Item | undefined;
  /** The caller's role in the item's repository; undefined when not a member (or no item). */
  role: Role | undefined;
  /** Every item read, by key (the extra keys too). */
  lookup: (key: Key) => Item | undefined;
}

/**
 * Reads an item with the caller's role in its repository: one BatchGetItem when the id names
 * the repository (folders, service-made document ids, repositories), a second read of the
 * right bucket when it does not (a client-chosen document id). The role counts only when the
 * item really is in that repository.
 */
export async function readWithRole(caller: Caller, key: Key, id: string, extraKeys: Key[] = []): Promise<Authorized> {
  const guessed = repositoryOf(id);
  const keys = guessed ? [key, aclKey(guessed, caller.userId), ...extraKeys] : [key, ...extraKeys];
  const lookup = await getItems(keys);
  const item = lookup(key);
  if (!item) return { item, role: undefined, lookup };
  const repositoryId = (item.repositoryId ?? item.id) as string;
  if (repositoryId === guessed) return { item, role: roleInBucket(lookup(aclKey(guessed, caller.userId)), caller.userId), lookup };
  const bucket = (await getItems([aclKey(repositoryId, caller.userId)]))(aclKey(repositoryId, caller.userId));
  return { item, role: roleInBucket(bucket, caller.userId), lookup };
}

/**
 * A transaction step asserting the caller may still do `action` in the repository, on one of
 * their role lanes at random (another one on each retry after a conflict). `bucket` fixes it.
 */
export const roleCheck = (caller: Caller, repositoryId: string, action: Action, bucket?: number): TransactItem => {
  const make = (lane: number) =>
    check(aclKeyOfBucket(repositoryId, lane), attributeIn(roleAttribute(caller.userId), rolesFor[action]), { returnItem: true });
  return bucket === undefined ? rechosen(() => make(randomAclLane(caller.userId))) : make(bucket);
};

/** The step name transactions give roleCheck(), so refusals can be explained. */
export const ACCESS_STEP = 'access';

/**
 * When the transaction failed on the caller's role, throws what that means: no role (not a
 * member, or no longer one) is 404, a role that does not allow `action` is 403. Returns
 * otherwise, for the caller to explain its own steps.
 */
export function explainAccess(error: ConditionFailed, caller: Caller, action: Action, what: string): void {
  if (!error.failed.has(ACCESS_STEP)) return;
  authorize(roleInBucket(error.items[ACCESS_STEP], caller.userId), action, what);
}
