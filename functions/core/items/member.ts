/**
 * Members of a repository (`REPO#<repoId>` / `M#<userId>`). A member is kept in items that
 * change together, in one transaction each time: the member item (the list, by user id), the
 * role in each of their ACL lanes (./role.ts: what every request checks), the user's
 * membership and their repository count (./membership.ts), and the repository item's counts of
 * members and owners (the limits and "at least one owner" are conditions on them). Every write
 * re-checks the caller's role in its transaction, so a role changed or removed since the read
 * is never used (docs/api.md: Sharing).
 */
import { type Action, authorize } from '../auth';
import {
  ConditionFailed,
  check,
  getItems,
  type Item,
  optimistically,
  put,
  remove,
  type TransactItem,
  transactWrite,
  update,
} from '../db/client';
import { type Condition, itemIsAbsent } from '../db/conditions';
import { pageRequest, prefixRange, readPage, readRange } from '../db/queries';
import { HttpError, notFound } from '../errors';
import { now } from '../ids';
import { formatCount, MAX_MEMBERS } from '../limits';
import type { PageQuery } from '../requests';
import type { Caller, Member, Page, Role } from '../resources';
import { recordChange } from './change';
import {
  aclKey,
  aclLanes,
  type Key,
  MEMBER_PREFIX,
  memberKey,
  membershipKey,
  membershipKeyOfSortKey,
  repositoryKey,
  repositoryPartition,
} from './keys';
import {
  joinRepositoryStep,
  leaveRepositoryStep,
  PROFILE_STEP,
  putMembership,
  removeMembership,
  repositoryLimitReached,
} from './membership';
import { resourceOf } from './resource-of';
import { authorized, explainAccess, type Lookup, readWithRole, roleInBucket, roleSteps } from './role';
import { nextPageOf, type TaskStep } from './task';

/** A member item: the resource, and the sort key of the user's membership (where their GET / lists it). */
export type StoredMember = Member & { listingKey: string };

/** What a member write needs of the repository item. */
interface Counts {
  nameKey: string;
  memberCount: number;
  ownerCount: number;
}

const lastOwner = (userId: string, doing: string) =>
  new HttpError('last-owner', `${userId} is the repository's only owner and cannot be ${doing}; make another member owner first.`);
const memberLimitReached = () =>
  new HttpError('member-limit', `The repository already has ${formatCount(MAX_MEMBERS)} members, the most one may have.`);

/**
 * The steps that make `member` a member: their member item (pointing at `listing`, a
 * membershipKey()), their membership there, and their repository count (PROFILE_STEP: 409 past
 * the limit).
 */
export const joinSteps = (repositoryId: string, member: Member, listing: Key, membershipCondition?: Condition) => ({
  member: put({ ...memberKey(repositoryId, member.userId), ...member, listingKey: listing.SK }, itemIsAbsent),
  membership: putMembership(listing, repositoryId, member.role, membershipCondition),
  [PROFILE_STEP]: joinRepositoryStep(member.userId),
});

/** The steps that end a membership: the member item (if `condition` holds), their membership, their repository count. */
export const leaveSteps = (repositoryId: string, userId: string, listingKey: string, condition?: Condition) => ({
  member: remove(memberKey(repositoryId, userId), condition),
  membership: removeMembership(userId, listingKey),
  profile: leaveRepositoryStep(userId),
});

/** A member item of the caller, read with the repository (a role without it is not a member). */
export const callersMember = (lookup: Lookup, repositoryId: string, caller: Caller): StoredMember => {
  const member = lookup(memberKey(repositoryId, caller.userId)) as StoredMember | undefined;
  if (!member) throw notFound('Repository');
  return member;
};

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

/**
 * The repository (once the caller may do `action` in it: 404, 403) and the member `userId` if
 * they are one: one BatchGetItem.
 */
async function readMember(caller: Caller, repositoryId: string, userId: string, action: Action) {
  const read = await readWithRole(caller, repositoryKey(repositoryId), repositoryId, [memberKey(repositoryId, userId)]);
  const { item: repository } = authorized(read, action, 'Repository');
  return {
    repository: repository as Item & Counts,
    member: read.lookup(memberKey(repositoryId, userId)) as (Item & StoredMember) | undefined,
  };
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
    const { repository, member: stored } = await readMember(caller, repositoryId, userId, 'manage');
    if (stored?.role === role) return { member: resourceOf<Member>(stored), created: false };
    const at = now();
    const by = caller.userId;
    try {
      if (stored) {
        const was = stored.role;
        if (was === 'owner' && repository.ownerCount <= 1) throw lastOwner(userId, 'made a member of another role');
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
            membershipKeyOfSortKey(userId, stored.listingKey),
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
      if (repository.memberCount >= MAX_MEMBERS) throw memberLimitReached();
      const listing = membershipKey(userId, repository.nameKey, repositoryId);
      const member: Member = { userId, role, addedAt: at, addedBy: by, updatedAt: at, updatedBy: by };
      const owner = role === 'owner';
      await transactWrite({
        ...joinSteps(repositoryId, member, listing),
        // The member's lanes join the set a repository delete removes; the name the listing was
        // written under must still be the repository's (a rename moves listings after it).
        repository: update(
          repositoryKey(repositoryId),
          `ADD #members :one, #buckets :bucket${owner ? ', #owners :one' : ''}`,
          { '#members': 'memberCount', '#buckets': 'aclBuckets', '#nameKey': 'nameKey', ...(owner ? { '#owners': 'ownerCount' } : {}) },
          { ':one': 1, ':bucket': new Set(aclLanes(userId)), ':max': MAX_MEMBERS, ':key': repository.nameKey },
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
    const { repository, member: stored } = await readMember(caller, repositoryId, userId, action);
    if (!stored) throw notFound('Member');
    const was = stored.role;
    if (was === 'owner' && repository.ownerCount <= 1) throw lastOwner(userId, 'removed');
    const owner = was === 'owner';
    try {
      await transactWrite({
        ...leaveSteps(repositoryId, userId, stored.listingKey, {
          expression: '#role = :was AND #listing = :listing',
          names: { '#role': 'role', '#listing': 'listingKey' },
          values: { ':was': was, ':listing': stored.listingKey },
        }),
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

/** Members a step of the rename task moves. */
const RENAME_PAGE = 30;

/** The task step after a repository's rename: each member's membership moves to the new name (GET / order). */
export const renameMemberships: TaskStep<'rename-memberships'> = async (task) => {
  const { repositoryId, nameKey } = task;
  const repository = (await getItems([repositoryKey(repositoryId)]))(repositoryKey(repositoryId));
  // Deleted, or renamed again (a newer task moves the memberships there): nothing left to do.
  if (repository?.nameKey !== nameKey) return { next: 'done' };
  const members = await readRange(repositoryPartition(repositoryId), {
    ...prefixRange(MEMBER_PREFIX),
    after: task.cursor,
    limit: RENAME_PAGE,
  });
  const writes: Record<string, TransactItem> = {
    repository: check(repositoryKey(repositoryId), {
      expression: '#nameKey = :key',
      names: { '#nameKey': 'nameKey' },
      values: { ':key': nameKey },
    }),
  };
  members.forEach((member, i) => {
    const userId = member.userId as string;
    const listing = membershipKey(userId, nameKey, repositoryId);
    if (listing.SK === member.listingKey) return;
    writes[`old${i}`] = removeMembership(userId, member.listingKey as string);
    writes[`new${i}`] = putMembership(listing, repositoryId, member.role as Role);
    writes[`member${i}`] = update(
      memberKey(repositoryId, userId),
      'SET #listing = :listing',
      { '#listing': 'listingKey', '#role': 'role' },
      { ':listing': listing.SK, ':old': member.listingKey, ':role': member.role },
      '#listing = :old AND #role = :role',
    );
  });
  return { writes, next: nextPageOf(members, RENAME_PAGE) };
};
