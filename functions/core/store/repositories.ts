/** Repositories: create (with root folder and owner membership), read, list the caller's. */
import { authorize } from '#core/auth';
import { notFound } from '#core/errors';
import { newId, now } from '#core/ids';
import { nameKey } from '#core/names';
import type { Caller, Folder, Page, Repository, Role } from '#core/resources';
import type { PageQuery } from '#core/schemas';
import { getItems, itemIsAbsent, optimistically, put, transactWrite, update } from './client';
import { accessKey, folderKey, MEMBERSHIP_PREFIX, membershipKey, repositoryKey, roleAttribute, userPartition } from './keys';
import { pageRequest, readPage } from './pages';
import { resourceOf, roleIn } from './records';

/** One transaction: the repository, its root folder, the owner's membership and role. */
export function createRepository(caller: Caller, input: { name: string; description: string }): Promise<Repository> {
  return optimistically(async () => {
    const id = newId();
    const at = now();
    const { userId } = caller;
    // The root folder shares the repository's id, so GET /{id}/folder is one read.
    const repository: Repository = {
      id,
      name: input.name,
      description: input.description,
      rootFolderId: id,
      role: 'owner',
      createdAt: at,
      createdBy: userId,
      updatedAt: at,
    };
    const root: Folder = {
      id,
      repositoryId: id,
      parentId: null,
      name: input.name,
      createdAt: at,
      createdBy: userId,
      updatedAt: at,
      updatedBy: userId,
    };
    const { role: _role, ...stored } = repository;
    await transactWrite({
      repository: put({ ...repositoryKey(id), ...stored }, itemIsAbsent),
      root: put({ ...folderKey(id), ...root }, itemIsAbsent),
      membership: put({ ...membershipKey(userId, nameKey(input.name), id), ...repository, userId }, itemIsAbsent),
      access: update(accessKey(userId), 'SET #role = :role', { '#role': roleAttribute(id) }, { ':role': 'owner' }),
    });
    return repository;
  });
}

export async function getRepository(caller: Caller, id: string): Promise<Repository> {
  const lookup = await getItems([repositoryKey(id), accessKey(caller.userId)]);
  const item = lookup(repositoryKey(id));
  const role = item && roleIn(lookup, caller.userId, id);
  authorize(role, 'read', 'Repository');
  return { ...resourceOf<Omit<Repository, 'role'>>(item!), role };
}

/** The caller's memberships carry the repository, so one Query is the whole page. */
export async function listRepositories(caller: Caller, query: PageQuery): Promise<Page<Repository>> {
  const request = pageRequest(`repositories:${caller.userId}`, userPartition(caller.userId), MEMBERSHIP_PREFIX, query);
  const page = await readPage(request);
  return { items: page.items.map(resourceOf<Repository>), nextToken: page.nextToken };
}

/**
 * Makes `userId` a member of a repository with `role`: the membership (for their GET /) and
 * the role in their ACCESS item, in one transaction. No endpoint shares repositories yet;
 * this is the write a sharing endpoint will make, and tests use it to exercise roles.
 */
export function addMember(repositoryId: string, userId: string, role: Role): Promise<void> {
  return optimistically(async () => {
    const lookup = await getItems([repositoryKey(repositoryId)]);
    const item = lookup(repositoryKey(repositoryId));
    if (!item) throw notFound('Repository');
    const repository: Repository = { ...resourceOf<Omit<Repository, 'role'>>(item), role };
    await transactWrite({
      membership: put({ ...membershipKey(userId, nameKey(repository.name), repositoryId), ...repository, userId }),
      access: update(accessKey(userId), 'SET #role = :role', { '#role': roleAttribute(repositoryId) }, { ':role': role }),
    });
  });
}
