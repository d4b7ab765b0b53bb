/**
 * Role buckets (`ACL#<repoId>#<nn>`): who may do what in a repository, as the store checks it.
 * The caller's role is one attribute of a small bucket item (keys.ts: roles), read in the same
 * request as the resource (the home bucket), and re-checked inside every write's transaction
 * (one of the caller's lanes, at random), so a role changed or removed since the read is never
 * used, and a user's parallel writes do not all meet on one item (docs/data-model.md:
 * Authorization). A member's role is written to all of their lanes at once (roleSteps).
 */
import { type Action, authorize, rolesFor } from '../auth';
import { type ConditionFailed, check, getItems, type Item, rechosen, type TransactItem, update } from '../db/client';
import { attributeIn } from '../db/conditions';
import { notFound } from '../errors';
import { repositoryOf } from '../ids';
import type { Caller, Role } from '../resources';
import { aclKey, aclKeyOfBucket, aclLanes, type Key, randomAclLane, roleAttribute } from './keys';

/** The caller's role in a repository, from its bucket item (undefined: not a member). */
export const roleInBucket = (bucket: Item | undefined, userId: string) => bucket?.[roleAttribute(userId)] as Role | undefined;

/** Every item read, by key. */
export type Lookup = (key: Key) => Item | undefined;

/** An item read with the caller's role in its repository: no item, no role. */
export type ReadWithRole<T = Item> =
  | { item: undefined; role: undefined; lookup: Lookup }
  | { item: T; role: Role | undefined; lookup: Lookup };

/** Reads items by key at once (db/client.ts getItems: BatchGetItem). */
export type ReadItems = (keys: Key[]) => Promise<Lookup>;

/**
 * readWithRole over a way to read items: the store's (getItems), or a table in memory where the
 * fast tier tests which keys are read and which role counts (test/unit/access.test.ts).
 */
export const roleReader =
  (read: ReadItems) =>
  /**
   * Reads an item with the caller's role in its repository: one BatchGetItem when the id names
   * the repository (folders, service-made document ids, repositories), a second read of the
   * right bucket when it does not (a client-chosen document id). The role counts only when the
   * item really is in that repository.
   */
  async (caller: Caller, key: Key, id: string, extraKeys: Key[] = []): Promise<ReadWithRole> => {
    const guessed = repositoryOf(id);
    const keys = guessed ? [key, aclKey(guessed, caller.userId), ...extraKeys] : [key, ...extraKeys];
    const lookup = await read(keys);
    const item = lookup(key);
    if (!item) return { item, role: undefined, lookup };
    const repositoryId = (item.repositoryId ?? item.id) as string;
    if (repositoryId === guessed) return { item, role: roleInBucket(lookup(aclKey(guessed, caller.userId)), caller.userId), lookup };
    const bucket = (await read([aclKey(repositoryId, caller.userId)]))(aclKey(repositoryId, caller.userId));
    return { item, role: roleInBucket(bucket, caller.userId), lookup };
  };

/** An item read with the caller's role in its repository, from the table (roleReader). */
export const readWithRole = roleReader(getItems);

/**
 * The item read, once the caller's role allows `action` on it: 404 when there is no item or no
 * role (exactly as if it did not exist), 403 when the role does not allow it.
 */
export function authorized<T>(
  read: { item: T | undefined; role: Role | undefined },
  action: Action,
  what: string,
): { item: T; role: Role } {
  const { item, role } = read;
  if (item === undefined) throw notFound(what);
  authorize(role, action, what);
  return { item, role };
}

/** The condition that the caller's role allows `action` (`name`: its placeholder). */
const mayDo = (caller: Caller, action: Action, name?: string) => attributeIn(roleAttribute(caller.userId), rolesFor[action], name);

/**
 * A transaction step asserting the caller may still do `action` in the repository, on one of
 * their role lanes at random (another one on each retry after a conflict). `bucket` fixes it.
 */
export const roleCheck = (caller: Caller, repositoryId: string, action: Action, bucket?: number): TransactItem => {
  const make = (lane: number) => check(aclKeyOfBucket(repositoryId, lane), mayDo(caller, action), { returnItem: true });
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

/** A new repository's owner: their role in each of their lanes, unconditionally (the repository is new). */
export const ownerLaneSteps = (repositoryId: string, userId: string): Record<string, TransactItem> =>
  Object.fromEntries(
    aclLanes(userId).map((bucket, lane) => [
      `acl${lane}`,
      update(aclKeyOfBucket(repositoryId, bucket), 'SET #role = :owner', { '#role': roleAttribute(userId) }, { ':owner': 'owner' }),
    ]),
  );

/**
 * The transaction steps on roles: the member's role in each of their lanes (keys.ts: set, or
 * removed when `role` is undefined), asserting it is still `was` (absent when undefined), and
 * the caller still allowed `action` (one of their lanes). A transaction may touch an item once:
 * when the caller's lanes and the member's meet (the caller themselves, or neighbouring home
 * buckets), the caller's check is folded into the member's step on a shared bucket. The step
 * holding the caller's check is named ACCESS_STEP and hands back the bucket on failure, so
 * explainAccess() can tell a caller who lost their role (404, 403) from a member whose role
 * moved (read again).
 */
export function roleSteps(
  caller: Caller,
  repositoryId: string,
  userId: string,
  change: { role?: Role; was?: Role },
  action: Action,
): Record<string, TransactItem> {
  const lanes = aclLanes(userId);
  const shared = aclLanes(caller.userId).filter((bucket) => lanes.includes(bucket));
  const sharedLane = shared.length > 0 ? shared[Math.floor(Math.random() * shared.length)] : undefined;
  const callerLane = sharedLane ?? randomAclLane(caller.userId);
  const expression = change.role === undefined ? 'REMOVE #member' : 'SET #member = :role';
  const memberWas = change.was === undefined ? 'attribute_not_exists(#member)' : '#member = :was';
  const steps: Record<string, TransactItem> = {};
  for (const [lane, bucket] of lanes.entries()) {
    const names: Record<string, string> = { '#member': roleAttribute(userId) };
    const values: Record<string, unknown> = {};
    if (change.was !== undefined) values[':was'] = change.was;
    if (change.role !== undefined) values[':role'] = change.role;
    if (bucket !== callerLane) {
      steps[`acl${lane}`] = update(aclKeyOfBucket(repositoryId, bucket), expression, names, values, memberWas);
      continue;
    }
    let condition = memberWas;
    if (userId !== caller.userId) {
      // The caller's own check, folded into the one step on the bucket they share.
      const callerMay = mayDo(caller, action, '#caller');
      Object.assign(names, callerMay.names);
      Object.assign(values, callerMay.values);
      condition = `${memberWas} AND ${callerMay.expression}`;
    }
    const step = update(aclKeyOfBucket(repositoryId, bucket), expression, names, values, condition);
    steps[ACCESS_STEP] = { Update: { ...step.Update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } };
  }
  if (!(ACCESS_STEP in steps)) steps[ACCESS_STEP] = roleCheck(caller, repositoryId, action, callerLane);
  return steps;
}
