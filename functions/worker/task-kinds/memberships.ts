/** A repository was renamed: each member's membership moves to the new name (GET / order). */
import { check, getItems, type TransactItem, update } from '#core/db/client';
import { prefixRange, readRange } from '#core/db/queries';
import { MEMBER_PREFIX, memberKey, membershipKey, repositoryKey, repositoryPartition } from '#core/items/keys';
import { putMembership, removeMembership } from '#core/items/membership';
import type { Role } from '#core/resources';
import type { TaskStep } from '../tasks';

const PAGE = 30;

export const renameMemberships: TaskStep<'rename-memberships'> = async (task) => {
  const { repositoryId, nameKey } = task;
  const repository = (await getItems([repositoryKey(repositoryId)]))(repositoryKey(repositoryId));
  // Deleted, or renamed again (a newer task moves the memberships there): nothing left to do.
  if (repository?.nameKey !== nameKey) return { next: 'done' };
  const members = await readRange(repositoryPartition(repositoryId), { ...prefixRange(MEMBER_PREFIX), after: task.cursor, limit: PAGE });
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
  return { writes, next: members.length < PAGE ? 'done' : { cursor: members.at(-1)!.SK as string } };
};
