/**
 * The member store (functions/core/items/member.ts) on DynamoDB Local, where the end-to-end
 * tests cannot aim: a member whose role lives in the caller's own ACL bucket (one transaction
 * step for both), the items a member is kept in staying in step, and a repository delete that
 * races member changes leaving no role bucket behind.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '#core/db/client';
import { ACL_BUCKETS, aclBucket, aclKeyOfBucket, aclLanes, memberKey, profileKey, repositoryKey, roleAttribute } from '#core/items/keys';
import { listMembers, putMember, removeMember } from '#core/items/member';
import { createRepository, deleteRepository, listRepositories } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { rawItem } from '#test/support/dynamodb';
import { settledStatus } from '#test/support/errors';
import { useTable } from '#test/support/fixture';

useTable();

const newCaller = (): Caller => ({ userId: `user-${randomUUID()}` });
/** A user id whose role lives in the same bucket as `of`'s. */
function sameBucketAs(of: string): string {
  for (let i = 0; ; i++) if (aclBucket(`neighbour-${i}`) === aclBucket(of) && `neighbour-${i}` !== of) return `neighbour-${i}`;
}
/** The member's role, the same in each of their lanes (keys.ts: ACL_LANES). */
const roleIn = async (repositoryId: string, userId: string) => {
  const lanes = await Promise.all(aclLanes(userId).map((bucket) => rawItem(aclKeyOfBucket(repositoryId, bucket))));
  const roles = new Set(lanes.map((lane) => lane?.[roleAttribute(userId)]));
  expect(roles.size, `${userId}'s lanes disagree`).toBe(1);
  return [...roles][0];
};
/** The buckets a repository of these members uses, as counts() lists them. */
const bucketsOf = (...userIds: string[]) => [...new Set(userIds.flatMap(aclLanes))].sort();
const counts = async (repositoryId: string) => {
  const repository = (await rawItem(repositoryKey(repositoryId)))!;
  return { members: repository.memberCount, owners: repository.ownerCount, buckets: [...(repository.aclBuckets as Set<number>)].sort() };
};

describe('a member in the caller’s own role bucket', () => {
  it('is added, changed and removed in one step on the shared bucket, the caller re-checked in it', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const neighbour = sameBucketAs(owner.userId);
    expect(aclBucket(neighbour)).toBe(aclBucket(owner.userId));

    expect((await putMember(owner, repository.id, neighbour, 'editor')).created).toBe(true);
    expect(await roleIn(repository.id, neighbour)).toBe('editor');
    expect(await roleIn(repository.id, owner.userId)).toBe('owner');
    expect(await counts(repository.id)).toEqual({ members: 2, owners: 1, buckets: bucketsOf(owner.userId) });

    expect((await putMember(owner, repository.id, neighbour, 'owner')).member.role).toBe('owner');
    expect(await counts(repository.id)).toMatchObject({ owners: 2 });
    // The neighbour steps the first owner down: both in one bucket, one step.
    await putMember({ userId: neighbour }, repository.id, owner.userId, 'viewer');
    expect(await roleIn(repository.id, owner.userId)).toBe('viewer');
    expect(await settledStatus(putMember(owner, repository.id, neighbour, 'viewer'))).toBe(403);
    expect(await settledStatus(removeMember(owner, repository.id, neighbour))).toBe(403);
    await removeMember({ userId: neighbour }, repository.id, owner.userId);
    expect(await roleIn(repository.id, owner.userId)).toBeUndefined();
    expect(await settledStatus(removeMember(owner, repository.id, neighbour))).toBe(404);
    expect(await counts(repository.id)).toEqual({ members: 1, owners: 1, buckets: bucketsOf(owner.userId) });
  });
});

describe('the items of a member', () => {
  it('stay in step: member item, role, membership (with the role), repository count, counts', async () => {
    const owner = newCaller();
    const bob = newCaller();
    const repository = await createRepository(owner, { name: 'Shared', description: '' });
    await putMember(owner, repository.id, bob.userId, 'viewer');
    const member = (await rawItem(memberKey(repository.id, bob.userId)))!;
    expect(await rawItem({ PK: `USER#${bob.userId}`, SK: member.listingKey as string })).toMatchObject({
      repositoryId: repository.id,
      role: 'viewer',
    });
    expect((await rawItem(profileKey(bob.userId)))?.repositoryCount).toBe(1);
    expect((await listRepositories(bob, { limit: 10 })).items).toEqual([expect.objectContaining({ id: repository.id, role: 'viewer' })]);

    await putMember(owner, repository.id, bob.userId, 'editor');
    expect((await rawItem({ PK: `USER#${bob.userId}`, SK: member.listingKey as string }))?.role).toBe('editor');
    expect(await roleIn(repository.id, bob.userId)).toBe('editor');

    await removeMember(bob, repository.id, bob.userId);
    expect(await rawItem(memberKey(repository.id, bob.userId))).toBeUndefined();
    expect(await rawItem({ PK: `USER#${bob.userId}`, SK: member.listingKey as string })).toBeUndefined();
    expect((await rawItem(profileKey(bob.userId)))?.repositoryCount).toBe(0);
    expect(await roleIn(repository.id, bob.userId)).toBeUndefined();
    expect((await listMembers(owner, repository.id, { limit: 10 })).items.map((m) => m.userId)).toEqual([owner.userId]);
  });
});

describe('deleting a repository while its members change', () => {
  it('removes every role bucket it ever used, also when a member was added to a new bucket and another removed meanwhile', async () => {
    for (let round = 0; round < 5; round++) {
      const owner = newCaller();
      const repository = await createRepository(owner, { name: 'Doomed', description: '' });
      const leaving = newCaller();
      await putMember(owner, repository.id, leaving.userId, 'viewer');
      // Members in buckets the repository has not used yet, added and removed while it is deleted.
      const used = new Set([aclBucket(owner.userId), aclBucket(leaving.userId)]);
      const fresh = Array.from({ length: 40 }, (_, i) => `fresh-${round}-${i}`).filter((id) => !used.has(aclBucket(id)));
      const outcomes = await Promise.allSettled([
        deleteRepository(owner, repository.id, {}),
        ...fresh.slice(0, 4).map((id) => putMember(owner, repository.id, id, 'viewer')),
        removeMember(leaving, repository.id, leaving.userId),
      ]);
      expect(outcomes[0]!.status, JSON.stringify(outcomes[0])).toBe('fulfilled');
      const buckets = await Promise.all(Array.from({ length: ACL_BUCKETS }, (_, b) => rawItem(aclKeyOfBucket(repository.id, b))));
      expect(buckets.filter(Boolean), `round ${round}: role buckets left behind`).toEqual([]);
    }
  }, 120_000);
});

describe('GET /{id}/members reads', () => {
  it('the caller’s bucket beside the page, and nothing of a repository they are not in', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    expect(await settledStatus(listMembers(newCaller(), repository.id, { limit: 10 }))).toBe(404);
    const { Items } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': `REPO#${repository.id}` },
      }),
    );
    // No usage item: the first version written makes it.
    expect(Items!.map((item) => item.SK)).toEqual([`M#${owner.userId}`, 'REPO']);
  });
});
