/**
 * Repositories: create (with its root folder and the creator as owner), read, list the
 * caller's, rename or describe, delete.
 */
import { authorize } from '../auth';
import { HttpError } from '../errors';
import { newId, now } from '../ids';
import { MAX_REPOSITORIES_PER_USER } from '../limits';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, Folder, Page, Repository } from '../resources';
import type { PageQuery } from '../schemas';
import { ACCESS_STEP, readWithRole, roleCheck } from './access';
import { recordChange } from './changes';
import { ConditionFailed, getItems, type Item, itemIsAbsent, optimistically, put, remove, transactWrite, update } from './client';
import {
  aclKey,
  aclKeyOfBucket,
  aclLanes,
  folderKey,
  MEMBERSHIP_PREFIX,
  memberKey,
  membershipKey,
  profileKey,
  repositoryKey,
  roleAttribute,
  userPartition,
} from './keys';
import { pageRequest, readPage } from './pages';
import { resourceOf } from './records';
import { newTask } from './tasks';

/** The repository item as stored: the resource without the caller's role, and bookkeeping. */
type StoredRepository = Omit<Repository, 'role'> & {
  nameKey: string;
  memberCount: number;
  ownerCount: number;
  /** The ACL buckets that ever held a member (keys.ts): what a delete must remove. */
  aclBuckets: Set<number>;
};

/**
 * The step that counts the user into one more repository, within the limit (409 past it).
 * Named so a transaction can tell that refusal from the others.
 */
export const PROFILE_STEP = 'profile';
export const joinRepositoryStep = (userId: string) =>
  update(
    profileKey(userId),
    'ADD #count :one',
    { '#count': 'repositoryCount' },
    { ':one': 1, ':max': MAX_REPOSITORIES_PER_USER },
    'attribute_not_exists(#count) OR #count < :max',
  );
export const leaveRepositoryStep = (userId: string) =>
  update(profileKey(userId), 'ADD #count :minus', { '#count': 'repositoryCount' }, { ':minus': -1 });
export const repositoryLimitReached = (userId: string) =>
  new HttpError(
    'repository-limit',
    `${userId} is already a member of ${MAX_REPOSITORIES_PER_USER} repositories, the most one user may be in.`,
  );

/**
 * One transaction: the repository, its root folder (same id, so GET /{id}/folder is one read),
 * the creator's owner role, member item and membership, and their repository count.
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
      version: 1,
      createdAt: at,
      createdBy: userId,
      updatedAt: at,
      updatedBy: userId,
    };
    const root: Folder = {
      id,
      repositoryId: id,
      parentId: null,
      name: input.name,
      version: 1,
      createdAt: at,
      createdBy: userId,
      updatedAt: at,
      updatedBy: userId,
    };
    const lanes = aclLanes(userId);
    try {
      await transactWrite({
        repository: put(
          { ...repositoryKey(id), ...repository, nameKey: key, memberCount: 1, ownerCount: 1, aclBuckets: new Set(lanes) },
          itemIsAbsent,
        ),
        root: put({ ...folderKey(id), ...root, nameKey: key, depth: 0, path: '' }, itemIsAbsent),
        // The owner's role in each of their lanes (keys.ts).
        ...Object.fromEntries(
          lanes.map((bucket, lane) => [
            `acl${lane}`,
            update(aclKeyOfBucket(id, bucket), 'SET #role = :owner', { '#role': roleAttribute(userId) }, { ':owner': 'owner' }),
          ]),
        ),
        member: put(
          {
            ...memberKey(id, userId),
            userId,
            role: 'owner',
            addedAt: at,
            addedBy: userId,
            updatedAt: at,
            updatedBy: userId,
            listingKey: listing.SK,
          },
          itemIsAbsent,
        ),
        membership: put({ ...listing, repositoryId: id, role: 'owner' }, itemIsAbsent),
        [PROFILE_STEP]: joinRepositoryStep(userId),
      });
    } catch (error) {
      if (error instanceof ConditionFailed && error.failed.has(PROFILE_STEP)) throw repositoryLimitReached(userId);
      throw error; // an id clash (2^-128): try again with a new one
    }
    return { ...repository, role: 'owner' };
  });
}

/** The bucket number of an ACL key (`ACL#<repo>#<nn>`). */
const bucketOf = (key: { PK: string }) => Number.parseInt(key.PK.slice(key.PK.lastIndexOf('#') + 1), 16);

async function readRepository(caller: Caller, id: string) {
  const { item, role } = await readWithRole(caller, repositoryKey(id), id);
  return { stored: item as (Item & StoredRepository) | undefined, role };
}

export async function getRepository(caller: Caller, id: string): Promise<Repository> {
  const { stored, role } = await readRepository(caller, id);
  authorize(role, 'read', 'Repository');
  return { ...resourceOf<Omit<Repository, 'role'>>(stored!), role };
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
    const { item, role, lookup } = await readWithRole(caller, repositoryKey(id), id, [memberKey(id, caller.userId)]);
    authorize(role, 'manage', 'Repository');
    const stored = item as Item & StoredRepository;
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
    const member = lookup(memberKey(id, caller.userId))!;
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
        // The root folder carries the repository's name (it has no entry in a parent to move).
        root: update(
          folderKey(id),
          'SET #name = :name, #nameKey = :key, #version = #version + :one, #updatedAt = :at, #updatedBy = :by',
          { '#name': 'name', '#nameKey': 'nameKey', '#version': 'version', '#updatedAt': 'updatedAt', '#updatedBy': 'updatedBy' },
          { ':name': next.name, ':key': key, ':one': 1, ':at': at, ':by': caller.userId },
        ),
        ...(listing.SK === member.listingKey
          ? {}
          : {
              oldListing: remove({ PK: userPartition(caller.userId), SK: member.listingKey as string }),
              listing: put({ ...listing, repositoryId: id, role }),
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
 * repository count drops at once). Everything else (folders, documents, trash, other members and
 * their memberships, the feed) is reclaimed in the background (functions/worker/task-kinds/purge.ts).
 */
export async function deleteRepository(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const { item, role, lookup } = await readWithRole(caller, repositoryKey(id), id, [memberKey(id, caller.userId)]);
    authorize(role, 'manage', 'Repository');
    const stored = item as Item & StoredRepository;
    checkPrecondition(precondition, stored.version);
    const { version, aclBuckets } = stored;
    const member = lookup(memberKey(id, caller.userId))!;
    const callersBucket = bucketOf(aclKey(id, caller.userId));
    const steps: Parameters<typeof transactWrite>[0] = {
      // The bucket set can only grow while the repository exists, so its size as read proves it
      // is the whole set (a member added and another removed since leave the member count as it was).
      repository: remove(repositoryKey(id), {
        expression: '#version = :version AND size(#buckets) = :buckets',
        names: { '#version': 'version', '#buckets': 'aclBuckets' },
        values: { ':version': version, ':buckets': aclBuckets.size },
      }),
      [ACCESS_STEP]: remove(aclKeyOfBucket(id, callersBucket), {
        expression: '#role = :owner',
        names: { '#role': roleAttribute(caller.userId) },
        values: { ':owner': 'owner' },
      }),
      member: remove(memberKey(id, caller.userId)),
      membership: remove({ PK: userPartition(caller.userId), SK: member.listingKey as string }),
      profile: leaveRepositoryStep(caller.userId),
      task: newTask({ kind: 'reclaim-repository', repositoryId: id }),
    };
    for (const bucket of aclBuckets) if (bucket !== callersBucket) steps[`acl${bucket}`] = remove(aclKeyOfBucket(id, bucket));
    await transactWrite(steps); // a failed condition is decided again on a fresh read
  });
}
