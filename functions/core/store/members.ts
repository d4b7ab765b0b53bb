/**
 * Sharing: a repository's members. A member is kept in four items that change together, in one
 * transaction each time (keys.ts): the member item (the list, by user id), the role in its ACL
 * bucket (what every request checks), the user's membership (their GET /) and their repository
 * count (PROFILE, the limit). The repository item counts members and owners and lists the
 * buckets in use. Every write re-checks the caller's role in its transaction, so a role changed
 * or removed since the read is never used (docs/api.md: Sharing).
 */
import { type Action, authorize } from '../auth';
import { HttpError, notFound } from '../errors';
import { now } from '../ids';
import { MAX_MEMBERS } from '../limits';
import type { Caller, Member, Page, Role } from '../resources';
import type { PageQuery } from '../schemas';
import { ACCESS_STEP, explainAccess, readWithRole, roleCheck, roleInBucket } from './access';
import { recordChange } from './changes';
import {
  ConditionFailed,
  getItems,
  type Item,
  itemIsAbsent,
  optimistically,
  put,
  remove,
  type TransactItem,
  transactWrite,
  update,
} from './client';
import {
  aclKey,
  aclKeyOfBucket,
  aclLanes,
  MEMBER_PREFIX,
  memberKey,
  membershipKey,
  randomAclLane,
  repositoryKey,
  repositoryPartition,
  roleAttribute,
  userPartition,
} from './keys';
import { pageRequest, readPage } from './pages';
import { resourceOf } from './records';
import { joinRepositoryStep, leaveRepositoryStep, PROFILE_STEP, repositoryLimitReached } from './repositories';

/** What a member write needs of the repository item. */
interface Counts {
  nameKey: string;
  memberCount: number;
  ownerCount: number;
}

const lastOwner = (userId: string, doing: string) =>
  new HttpError('last-owner', `${userId} is the repository's only owner and cannot be ${doing}; make another member owner first.`);
const memberLimitReached = () => new HttpError('member-limit', `The repository already has ${MAX_MEMBERS} members, the most one may have.`);

/**
 * GET /{id}/members (any member): a page of members by user id (code points: the sort key's
 * UTF-8 order). The page is read beside the caller's role bucket, in one round trip; a
 * non-member's page is dropped. The repository item is not read: a role in its bucket proves it
 * exists (deleting a repository deletes its buckets in the same transaction).
 */
export async function listMembers(caller: Caller, repositoryId: string, query: PageQuery): Promise<Page<Member>> {
  const request = pageRequest(`members:${repositoryId}`, repositoryPartition(repositoryId), MEMBER_PREFIX, query);
  const bucket = aclKey(repositoryId, caller.userId);
  const [lookup, page] = await Promise.all([getItems([bucket]), readPage(request)]);
  authorize(roleInBucket(lookup(bucket), caller.userId), 'read', 'Repository');
  return { items: page.items.map((item) => resourceOf<Member>(item)), nextToken: page.nextToken };
}

/** The repository, the caller's role in it, and the member `userId` if they are one: one BatchGetItem. */
async function readMember(caller: Caller, repositoryId: string, userId: string) {
  const { item, role, lookup } = await readWithRole(caller, repositoryKey(repositoryId), repositoryId, [memberKey(repositoryId, userId)]);
  return { repository: item as (Item & Counts) | undefined, role, member: lookup(memberKey(repositoryId, userId)) };
}

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
function roleSteps(
  caller: Caller,
  repositoryId: string,
  userId: string,
  change: { role?: Role; was?: Role },
  action: Action,
): Record<string, TransactItem> {
  const lanes = aclLanes(userId);
  const shared = aclLanes(caller.userId).filter((bucket) => lanes.includes(bucket));
  const callerLane = shared.length > 0 ? shared[Math.floor(Math.random() * shared.length)]! : randomAclLane(caller.userId);
  const expression = change.role === undefined ? 'REMOVE #member' : 'SET #member = :role';
  const steps: Record<string, TransactItem> = {};
  for (const [lane, bucket] of lanes.entries()) {
    const names: Record<string, string> = { '#member': roleAttribute(userId) };
    const values: Record<string, unknown> = {};
    const conditions = [change.was === undefined ? 'attribute_not_exists(#member)' : '#member = :was'];
    if (change.was !== undefined) values[':was'] = change.was;
    if (change.role !== undefined) values[':role'] = change.role;
    if (bucket !== callerLane) {
      steps[`acl${lane}`] = update(aclKeyOfBucket(repositoryId, bucket), expression, names, values, conditions.join(' AND '));
      continue;
    }
    if (userId !== caller.userId) {
      // The caller's own check, folded into the one step on the bucket they share.
      const check = roleCheck(caller, repositoryId, action, bucket).ConditionCheck!;
      Object.assign(names, { '#caller': roleAttribute(caller.userId) });
      Object.assign(values, check.ExpressionAttributeValues);
      conditions.push(check.ConditionExpression!.replace('#attribute', '#caller'));
    }
    const step = update(aclKeyOfBucket(repositoryId, bucket), expression, names, values, conditions.join(' AND '));
    steps[ACCESS_STEP] = { Update: { ...step.Update!, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } };
  }
  if (!(ACCESS_STEP in steps)) steps[ACCESS_STEP] = roleCheck(caller, repositoryId, action, callerLane);
  return steps;
}

/**
 * PUT /{id}/members/{userId} (owner): gives `userId` the role, adding them when they are not a
 * member (`created`). The same role again changes nothing and writes nothing.
 */
export async function putMember(
  caller: Caller,
  repositoryId: string,
  userId: string,
  role: Role,
): Promise<{ member: Member; created: boolean }> {
  return optimistically(async () => {
    const { repository, role: callerRole, member: stored } = await readMember(caller, repositoryId, userId);
    authorize(callerRole, 'manage', 'Repository');
    if (stored?.role === role) return { member: resourceOf<Member>(stored), created: false };
    const at = now();
    const by = caller.userId;
    try {
      if (stored) {
        const was = stored.role as Role;
        if (was === 'owner' && repository!.ownerCount <= 1) throw lastOwner(userId, 'made a member of another role');
        const ownerDelta = (role === 'owner' ? 1 : 0) - (was === 'owner' ? 1 : 0);
        const member: Member = { ...resourceOf<Member>(stored), role, updatedAt: at, updatedBy: by };
        await transactWrite({
          member: update(
            memberKey(repositoryId, userId),
            'SET #role = :role, #updatedAt = :at, #updatedBy = :by',
            { '#role': 'role', '#updatedAt': 'updatedAt', '#updatedBy': 'updatedBy', '#listing': 'listingKey' },
            { ':role': role, ':at': at, ':by': by, ':was': was, ':listing': stored.listingKey },
            '#role = :was AND #listing = :listing',
          ),
          // The listing is where the member item says (a rename moves both together).
          membership: update(
            { PK: userPartition(userId), SK: stored.listingKey as string },
            'SET #role = :role',
            { '#role': 'role' },
            { ':role': role },
            'attribute_exists(PK)',
          ),
          ...roleSteps(caller, repositoryId, userId, { role, was }, 'manage'),
          // Two owners stepping down at once: the count allows one of them.
          ...(ownerDelta === 0
            ? {}
            : {
                repository: update(
                  repositoryKey(repositoryId),
                  'ADD #owners :delta',
                  { '#owners': 'ownerCount' },
                  ownerDelta < 0 ? { ':delta': -1, ':one': 1 } : { ':delta': 1 },
                  ownerDelta < 0 ? '#owners > :one' : 'attribute_exists(PK)',
                ),
              }),
          change: recordChange(repositoryId, { type: 'member-changed', kind: 'member', id: userId, role, at, by }),
        });
        return { member, created: false };
      }
      if (repository!.memberCount >= MAX_MEMBERS) throw memberLimitReached();
      const listing = membershipKey(userId, repository!.nameKey, repositoryId);
      const member: Member = { userId, role, addedAt: at, addedBy: by, updatedAt: at, updatedBy: by };
      const owner = role === 'owner';
      await transactWrite({
        member: put({ ...memberKey(repositoryId, userId), ...member, listingKey: listing.SK }, itemIsAbsent),
        membership: put({ ...listing, repositoryId, role }),
        [PROFILE_STEP]: joinRepositoryStep(userId),
        // The member's lanes join the set a repository delete removes; the name the listing was
        // written under must still be the repository's (a rename moves listings after it).
        repository: update(
          repositoryKey(repositoryId),
          `ADD #members :one, #buckets :bucket${owner ? ', #owners :one' : ''}`,
          { '#members': 'memberCount', '#buckets': 'aclBuckets', '#nameKey': 'nameKey', ...(owner ? { '#owners': 'ownerCount' } : {}) },
          { ':one': 1, ':bucket': new Set(aclLanes(userId)), ':max': MAX_MEMBERS, ':key': repository!.nameKey },
          '#members < :max AND #nameKey = :key',
        ),
        ...roleSteps(caller, repositoryId, userId, { role }, 'manage'),
        change: recordChange(repositoryId, { type: 'member-added', kind: 'member', id: userId, role, at, by }),
      });
      return { member, created: true };
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'manage', 'Repository');
      if (error.failed.has(PROFILE_STEP)) throw repositoryLimitReached(userId);
      throw error; // the repository, the member or a count moved since the read: decide again
    }
  });
}

/**
 * DELETE /{id}/members/{userId}: an owner removes anyone, any member removes themselves
 * (leaves). The change records the role the member had.
 */
export async function removeMember(caller: Caller, repositoryId: string, userId: string): Promise<void> {
  const action: Action = userId === caller.userId ? 'read' : 'manage';
  return optimistically(async () => {
    const { repository, role: callerRole, member: stored } = await readMember(caller, repositoryId, userId);
    authorize(callerRole, action, 'Repository');
    if (!stored) throw notFound('Member');
    const was = stored.role as Role;
    if (was === 'owner' && repository!.ownerCount <= 1) throw lastOwner(userId, 'removed');
    const owner = was === 'owner';
    try {
      await transactWrite({
        member: remove(memberKey(repositoryId, userId), {
          expression: '#role = :was AND #listing = :listing',
          names: { '#role': 'role', '#listing': 'listingKey' },
          values: { ':was': was, ':listing': stored.listingKey },
        }),
        membership: remove({ PK: userPartition(userId), SK: stored.listingKey as string }),
        profile: leaveRepositoryStep(userId),
        repository: update(
          repositoryKey(repositoryId),
          `ADD #members :minus${owner ? ', #owners :minus' : ''}`,
          { '#members': 'memberCount', ...(owner ? { '#owners': 'ownerCount' } : {}) },
          owner ? { ':minus': -1, ':one': 1 } : { ':minus': -1 },
          owner ? '#owners > :one' : 'attribute_exists(PK)',
        ),
        ...roleSteps(caller, repositoryId, userId, { was }, action),
        change: recordChange(repositoryId, { type: 'member-removed', kind: 'member', id: userId, role: was, at: now(), by: caller.userId }),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, action, 'Repository');
      throw error; // the member or a count moved since the read: decide again
    }
  });
}
