/**
 * Repositories (`REPO#<repoId>` / `REPO`): create (with its root folder and the creator as
 * owner), read, list the caller's, rename or describe, delete. The repository item counts its
 * members and owners (./member.ts changes those) and lists the role buckets in use.
 */

import { ConditionFailed, getItems, type Item, optimistically, put, remove, transactWrite, update } from '../db/client';
import { type Condition, itemIsAbsent } from '../db/conditions';
import { pageRequest, readPage } from '../db/queries';
import { newId, now } from '../ids';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { PageQuery } from '../requests';
import type { Caller, Folder, Page, Repository } from '../resources';
import { recordChange } from './change';
import { renameRootStep, rootFolderStep } from './folder';
import {
  aclKey,
  aclKeyOfBucket,
  aclLanes,
  bucketOfAclKey,
  type Key,
  MEMBERSHIP_PREFIX,
  memberKey,
  membershipKey,
  repositoryKey,
  roleAttribute,
  usageKey,
  userPartition,
} from './keys';
import { callersMember, joinSteps, leaveSteps } from './member';
import { PROFILE_STEP, putMembership, removeMembership, repositoryLimitReached } from './membership';
import { firstVersion, resourceOf } from './resource-of';
import { ACCESS_STEP, authorized, ownerLaneSteps, readWithRole, roleCheck } from './role';
import { newTask } from './task';
import { usageOf } from './usage';

/** The repository item as stored: the resource without the caller's role, and bookkeeping. */
type StoredRepository = Omit<Repository, 'role'> & {
  nameKey: string;
  memberCount: number;
  ownerCount: number;
  /** The ACL buckets that ever held a member (keys.ts): what a delete must remove. */
  aclBuckets: Set<number>;
};

/**
 * One transaction: the repository, its root folder (same id, so GET /{id}/folder is one read),
 * the creator's owner role, member item and membership, and their repository count. No usage
 * item: the first version written makes it (./usage.ts).
 */
export async function createRepository(caller: Caller, input: { name: string; description: string }): Promise<Repository> {
  return optimistically(async () => {
    const id = newId();
    const at = now();
    const { userId } = caller;
    const key = nameKey(input.name);
    const listing = membershipKey(userId, key, id);
    const repository: Omit<Repository, 'role'> = {
      id,
      name: input.name,
      description: input.description,
      rootFolderId: id,
      ...firstVersion(at, userId),
    };
    const root: Folder = {
      id,
      repositoryId: id,
      parentId: null,
      name: input.name,
      ...firstVersion(at, userId),
    };
    const owner = { userId, role: 'owner' as const, addedAt: at, addedBy: userId, updatedAt: at, updatedBy: userId };
    try {
      await transactWrite({
        repository: put(
          { ...repositoryKey(id), ...repository, nameKey: key, memberCount: 1, ownerCount: 1, aclBuckets: new Set(aclLanes(userId)) },
          itemIsAbsent,
        ),
        root: rootFolderStep(root, key),
        // The owner's role in each of their lanes (keys.ts).
        ...ownerLaneSteps(id, userId),
        ...joinSteps(id, owner, listing, itemIsAbsent),
      });
    } catch (error) {
      if (error instanceof ConditionFailed && error.failed.has(PROFILE_STEP)) throw repositoryLimitReached(userId);
      throw error; // an id clash (2^-128): try again with a new one
    }
    return { ...repository, role: 'owner' };
  });
}

async function readRepository(caller: Caller, id: string, extraKeys: Key[] = []) {
  const read = await readWithRole(caller, repositoryKey(id), id, extraKeys);
  return read.item ? { ...read, item: read.item as Item & StoredRepository } : read;
}

/** GET /{id}: the repository, its usage and the caller's role, in one BatchGetItem. */
export async function getRepository(caller: Caller, id: string): Promise<Repository> {
  const read = await readRepository(caller, id, [usageKey(id)]);
  const { item: stored, role } = authorized(read, 'read', 'Repository');
  return { ...resourceOf<Omit<Repository, 'role'>>(stored), role, usage: usageOf(read.lookup, id) };
}

/**
 * A page of the caller's memberships, by name, then the repositories themselves in one
 * strongly consistent BatchGetItem: names and descriptions are always current, and a
 * repository deleted a moment ago is gone from every member's list at once, even before the
 * background work has removed its memberships (docs/data-model.md: GET /).
 */
export async function listRepositories(caller: Caller, query: PageQuery): Promise<Page<Repository>> {
  const request = pageRequest(`repositories:${caller.userId}`, userPartition(caller.userId), MEMBERSHIP_PREFIX, query);
  const page = await readPage(request);
  const lookup = page.items.length === 0 ? () => undefined : await getItems(page.items.map((m) => repositoryKey(m.repositoryId as string)));
  const items = page.items.flatMap((membership) => {
    const stored = lookup(repositoryKey(membership.repositoryId as string));
    return stored ? [{ ...resourceOf<Omit<Repository, 'role'>>(stored), role: membership.role as Repository['role'] }] : [];
  });
  return { items, nextToken: page.nextToken };
}

export interface RepositoryChanges {
  name?: string;
  description?: string;
}

/**
 * PUT /{id} (owner): name and description. A new name renames the root folder too, and moves
 * the caller's membership to the new name at once; other members' lists (GET /) show the new
 * name at once as well (they read the repository), and list it in its new place once the
 * background task has moved their memberships (docs/api.md).
 */
export async function updateRepository(
  caller: Caller,
  id: string,
  changes: RepositoryChanges,
  precondition: Precondition,
): Promise<Repository> {
  return optimistically(async () => {
    const read = await readRepository(caller, id, [memberKey(id, caller.userId)]);
    const { item: stored, role } = authorized(read, 'manage', 'Repository');
    checkPrecondition(precondition, stored.version);
    const at = now();
    const next: Omit<Repository, 'role'> = {
      ...resourceOf<Omit<Repository, 'role'>>(stored),
      name: changes.name ?? stored.name,
      description: changes.description ?? stored.description,
      version: stored.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const key = nameKey(next.name);
    const renamed = key !== stored.nameKey || next.name !== stored.name;
    const member = callersMember(read.lookup, id, caller);
    const listing = membershipKey(caller.userId, key, id);
    const steps = {
      repository: update(
        repositoryKey(id),
        'SET #name = :name, #description = :description, #version = :next, #updatedAt = :at, #updatedBy = :by, #nameKey = :key',
        {
          '#name': 'name',
          '#description': 'description',
          '#version': 'version',
          '#updatedAt': 'updatedAt',
          '#updatedBy': 'updatedBy',
          '#nameKey': 'nameKey',
        },
        {
          ':name': next.name,
          ':description': next.description,
          ':next': next.version,
          ':at': at,
          ':by': caller.userId,
          ':key': key,
          ':read': stored.version,
        },
        '#version = :read',
      ),
      [ACCESS_STEP]: roleCheck(caller, id, 'manage'),
      change: recordChange(id, {
        type: 'repository-updated',
        kind: 'repository',
        id,
        name: next.name,
        version: next.version,
        at,
        by: caller.userId,
      }),
    };
    if (renamed) {
      Object.assign(steps, {
        root: renameRootStep(id, next.name, key, at, caller.userId),
        ...(listing.SK === member.listingKey
          ? {}
          : {
              oldListing: removeMembership(caller.userId, member.listingKey),
              listing: putMembership(listing, id, role),
              member: update(
                memberKey(id, caller.userId),
                'SET #listing = :listing',
                { '#listing': 'listingKey' },
                { ':listing': listing.SK, ':old': member.listingKey },
                '#listing = :old',
              ),
            }),
        // Everyone else's membership moves to the new name in the background.
        ...(stored.memberCount > 1 ? { task: newTask({ kind: 'rename-memberships', repositoryId: id, nameKey: key }) } : {}),
      });
    }
    // A failed condition (the repository, the caller's role or membership changed since the
    // read) is decided again on a fresh read: optimistically() retries.
    await transactWrite(steps);
    return { ...next, role };
  });
}

/**
 * DELETE /{id} (owner): permanent. One transaction removes the repository and every role
 * bucket it ever used, so from its answer on every member gets 404 for everything in it, and
 * it is gone from every member's GET /. The caller's own membership goes with it (their
 * repository count drops at once), and so does its usage item (./usage.ts: a purge of its
 * documents afterwards must not make it again). Everything else (folders, documents, trash, other members and
 * their memberships, the feed) is reclaimed in the background (../use-cases/reclaim-repository.ts).
 */
export async function deleteRepository(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const read = await readRepository(caller, id, [memberKey(id, caller.userId)]);
    const { item: stored } = authorized(read, 'manage', 'Repository');
    checkPrecondition(precondition, stored.version);
    const { version, aclBuckets } = stored;
    const member = callersMember(read.lookup, id, caller);
    const callersBucket = bucketOfAclKey(aclKey(id, caller.userId));
    // The bucket set can only grow while the repository exists, so its size as read proves it
    // is the whole set (a member added and another removed since leave the member count as it was).
    const wholeSet: Condition = {
      expression: '#version = :version AND size(#buckets) = :buckets',
      names: { '#version': 'version', '#buckets': 'aclBuckets' },
      values: { ':version': version, ':buckets': aclBuckets.size },
    };
    const steps: Parameters<typeof transactWrite>[0] = {
      repository: remove(repositoryKey(id), wholeSet),
      [ACCESS_STEP]: remove(aclKeyOfBucket(id, callersBucket), {
        expression: '#role = :owner',
        names: { '#role': roleAttribute(caller.userId) },
        values: { ':owner': 'owner' },
      }),
      ...leaveSteps(id, caller.userId, member.listingKey),
      usage: remove(usageKey(id)),
      task: newTask({ kind: 'reclaim-repository', repositoryId: id }),
    };
    for (const bucket of aclBuckets) if (bucket !== callersBucket) steps[`acl${bucket}`] = remove(aclKeyOfBucket(id, bucket));
    await transactWrite(steps); // a failed condition is decided again on a fresh read
  });
}
