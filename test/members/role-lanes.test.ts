/**
 * Role lanes (keys.ts: ACL_LANES) on DynamoDB Local in conflict mode: a member's role is in each
 * of their lanes, a write checks one at random, and a role change or removal reaches every lane
 * in its one transaction, so whatever lane a later write picks, the old role is gone.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDocument, updateDocument } from '#core/items/document';
import { createFolder } from '#core/items/folder';
import { ACL_LANES, aclKeyOfBucket, aclLanes, roleAttribute } from '#core/items/keys';
import { putMember, removeMember } from '#core/items/member';
import { createRepository } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { rawItem } from '#test/support/dynamodb';
import { settledStatus } from '#test/support/errors';
import { useTable } from '#test/support/fixture';

useTable();

const newCaller = (): Caller => ({ userId: `user-${randomUUID()}` });
const lanesOf = async (repositoryId: string, userId: string) =>
  Promise.all(aclLanes(userId).map(async (bucket) => (await rawItem(aclKeyOfBucket(repositoryId, bucket)))?.[roleAttribute(userId)]));

describe('role lanes', () => {
  it('hold the role in every lane; after a demotion or a removal no lane lets a write through', async () => {
    const owner = newCaller();
    const editor = newCaller();
    const repository = await createRepository(owner, { name: 'Lanes', description: '' });
    expect(await lanesOf(repository.id, owner.userId)).toEqual(Array(ACL_LANES).fill('owner'));
    await putMember(owner, repository.id, editor.userId, 'editor');
    expect(await lanesOf(repository.id, editor.userId)).toEqual(Array(ACL_LANES).fill('editor'));
    const document = await createDocument(editor, {
      folderId: repository.rootFolderId,
      name: 'a.txt',
      content: 'a',
      contentType: 'text/plain',
    });

    await putMember(owner, repository.id, editor.userId, 'viewer');
    expect(await lanesOf(repository.id, editor.userId)).toEqual(Array(ACL_LANES).fill('viewer'));
    // Writes one after another, each checking a lane at random: every lane refuses.
    const demoted: (number | 'ok')[] = [];
    for (let i = 0; i < 3 * ACL_LANES; i++)
      demoted.push(await settledStatus(updateDocument(editor, { id: document.id, content: 'b' }, {})));
    expect(new Set(demoted)).toEqual(new Set([403]));

    await removeMember(owner, repository.id, editor.userId);
    expect(await lanesOf(repository.id, editor.userId)).toEqual(Array(ACL_LANES).fill(undefined));
    const removed: (number | 'ok')[] = [];
    for (let i = 0; i < 3 * ACL_LANES; i++) {
      removed.push(
        await settledStatus(
          createDocument(editor, { folderId: repository.rootFolderId, name: `x${i}.txt`, content: 'x', contentType: 'text/plain' }),
        ),
      );
    }
    expect(new Set(removed)).toEqual(new Set([404]));
  });

  it("let one user's parallel writes in different folders all succeed, however they meet on lanes", async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'Parallel', description: '' });
    const folders = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createFolder(owner, { parentId: repository.rootFolderId, name: `f${i}` })),
    );
    for (let round = 0; round < 3; round++) {
      const outcomes = await Promise.all(
        folders.map((folder) =>
          settledStatus(createDocument(owner, { folderId: folder.id, name: `d${round}.txt`, content: 'x', contentType: 'text/plain' })),
        ),
      );
      expect(outcomes).toEqual(Array(8).fill('ok'));
    }
  });
});
