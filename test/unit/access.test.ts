/**
 * Who may do what (functions/core/auth.ts, functions/core/items/role.ts), in the fast tier: every
 * role against every action, the answers for no role and for too little, and the transaction
 * steps that re-check a role (which lane, which roles, what a failure means).
 */
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Action, authorize, isUserId, MAX_USER_ID_LENGTH, requestCaller, rolesFor } from '#core/auth';
import type { Item } from '#core/db/client';
import { ConditionFailed } from '#core/db/client';
import { HttpError } from '#core/errors';
import { newDocumentId, newFolderId, newId } from '#core/ids';
import { aclKey, aclKeyOfBucket, aclLanes, documentKey, folderKey, type Key, repositoryKey, roleAttribute } from '#core/items/keys';
import { ACCESS_STEP, authorized, explainAccess, ownerLaneSteps, roleCheck, roleInBucket, roleReader, roleSteps } from '#core/items/role';
import type { Role } from '#core/resources';

beforeEach(() => {
  process.env.TABLE_NAME = 'documents-unit';
});

const ROLES: readonly Role[] = ['owner', 'editor', 'viewer'];
/** The table of who may do what, as docs/api.md says it (Roles and visibility). */
const MAY: Record<Action, readonly Role[]> = { read: ['owner', 'editor', 'viewer'], write: ['owner', 'editor'], manage: ['owner'] };

/** The problem `work` throws (status and detail), or 'ok'. */
function outcome(work: () => unknown): 'ok' | { status: number; detail: string } {
  try {
    work();
    return 'ok';
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { status: error.status, detail: error.detail };
  }
}

describe('a role against an action', () => {
  it.each((['read', 'write', 'manage'] as const).flatMap((action) => ROLES.map((role) => [role, action] as const)))(
    '%s, %s',
    (role, action) => {
      const result = outcome(() => authorize(role, action, 'Folder'));
      if (MAY[action].includes(role)) expect(result).toBe('ok');
      else {
        expect(result).toEqual({
          status: 403,
          detail:
            action === 'manage'
              ? `Your role "${role}" in this repository does not allow managing it; only an owner may.`
              : `Your role "${role}" in this repository does not allow changes.`,
        });
      }
    },
  );

  it('no role is 404 for every action, as if the resource did not exist', () => {
    for (const action of ['read', 'write', 'manage'] as const)
      expect(outcome(() => authorize(undefined, action, 'Folder'))).toMatchObject({ status: 404 });
  });

  it('rolesFor is the table', () => {
    expect(rolesFor).toEqual(MAY);
  });
});

describe('a user id', () => {
  it('is 1 to 255 code points of well-formed text without control characters', () => {
    expect(MAX_USER_ID_LENGTH).toBe(255);
    expect(isUserId('a')).toBe(true);
    expect(isUserId('')).toBe(false);
    expect(isUserId('x'.repeat(255))).toBe(true);
    expect(isUserId('x'.repeat(256))).toBe(false);
    expect(isUserId('\u{1F600}'.repeat(255))).toBe(true);
    expect(isUserId('\ud800')).toBe(false);
    expect(isUserId('a\u0001')).toBe(false);
  });

  it('of a request: from the authorizer’s claims; under sam local without them, from the bearer token', async () => {
    const withClaims = {
      requestContext: { authorizer: { jwt: { claims: { sub: 'alice' } } } },
    } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
    expect(requestCaller(withClaims)).toEqual({ userId: 'alice' });
    process.env.AWS_SAM_LOCAL = 'true';
    try {
      expect(requestCaller(withClaims)).toEqual({ userId: 'alice' });
      const without = { headers: {}, requestContext: {} } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
      const caller = requestCaller(without);
      expect(caller).toBeInstanceOf(Promise);
      await expect(caller).rejects.toMatchObject({ status: 401 });
    } finally {
      delete process.env.AWS_SAM_LOCAL;
    }
    const without = { requestContext: {} } as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;
    expect(outcome(() => requestCaller(without))).toMatchObject({ status: 401 });
  });
});

describe('a role as read with an item', () => {
  it('is the attribute of the caller in the bucket', () => {
    expect(roleInBucket({ [roleAttribute('u1')]: 'editor', [roleAttribute('u2')]: 'viewer' }, 'u1')).toBe('editor');
    expect(roleInBucket({ [roleAttribute('u2')]: 'viewer' }, 'u1')).toBeUndefined();
    expect(roleInBucket(undefined, 'u1')).toBeUndefined();
  });

  it('lets the item through when the role allows the action: 404 without item or role, 403 for too little', () => {
    const item = { id: 'f1' };
    expect(authorized({ item, role: 'viewer' }, 'read', 'Folder')).toEqual({ item, role: 'viewer' });
    expect(outcome(() => authorized({ item: undefined, role: 'owner' }, 'read', 'Folder'))).toMatchObject({ status: 404 });
    expect(outcome(() => authorized({ item, role: undefined }, 'read', 'Folder'))).toMatchObject({ status: 404 });
    expect(outcome(() => authorized({ item, role: 'viewer' }, 'write', 'Folder'))).toMatchObject({ status: 403 });
  });
});

describe('an item read with the caller’s role (roleReader)', () => {
  const caller = { userId: 'reader-1' };
  const repository = newId();
  const other = newId();
  const keyId = (key: Key) => `${key.PK} ${key.SK}`;

  /** A table in memory holding `items`; `reads` is each batch of keys asked for. */
  function table(items: [Key, Item][]) {
    const held = new Map(items.map(([key, item]) => [keyId(key), item]));
    const reads: Key[][] = [];
    const read = roleReader(async (keys) => {
      reads.push(keys);
      return (key) => held.get(keyId(key));
    });
    return { read, reads };
  }
  const bucketWith = (role: string) => ({ [roleAttribute(caller.userId)]: role });

  it('whose id names its repository: the item, the role and the extra keys in one read', async () => {
    const folderId = newFolderId(repository);
    const extra = documentKey('extra');
    const { read, reads } = table([
      [folderKey(folderId), { id: folderId, repositoryId: repository }],
      [aclKey(repository, caller.userId), bucketWith('editor')],
      [extra, { id: 'extra' }],
    ]);
    const found = await read(caller, folderKey(folderId), folderId, [extra]);
    expect(reads).toEqual([[folderKey(folderId), aclKey(repository, caller.userId), extra]]);
    expect(found.item).toEqual({ id: folderId, repositoryId: repository });
    expect(found.role).toBe('editor');
    expect(found.lookup(extra)).toEqual({ id: 'extra' });
  });

  it('of a repository (its own id): the role from its bucket, no extra keys unless asked', async () => {
    const { read, reads } = table([
      [repositoryKey(repository), { id: repository }],
      [aclKey(repository, caller.userId), bucketWith('viewer')],
    ]);
    expect((await read(caller, repositoryKey(repository), repository)).role).toBe('viewer');
    expect(reads).toEqual([[repositoryKey(repository), aclKey(repository, caller.userId)]]);
  });

  it('that does not exist: no item and no role, from the one read', async () => {
    const documentId = newDocumentId(repository);
    const { read, reads } = table([[aclKey(repository, caller.userId), bucketWith('owner')]]);
    const found = await read(caller, documentKey(documentId), documentId);
    expect(found).toMatchObject({ item: undefined, role: undefined });
    expect(reads).toHaveLength(1);
  });

  it('with a client-chosen id: the role read from the bucket of the repository the item says', async () => {
    const { read, reads } = table([
      [documentKey('my-notes'), { id: 'my-notes', repositoryId: repository }],
      [aclKey(repository, caller.userId), bucketWith('editor')],
    ]);
    const found = await read(caller, documentKey('my-notes'), 'my-notes');
    expect(found.role).toBe('editor');
    expect(reads).toEqual([[documentKey('my-notes')], [aclKey(repository, caller.userId)]]);
  });

  it('whose id looks like another repository’s: the role in the repository the item is in, never the guessed one', async () => {
    // A client-chosen document id of 44 characters that starts like the caller's own repository.
    const lookalike = newDocumentId(repository);
    const { read, reads } = table([
      [documentKey(lookalike), { id: lookalike, repositoryId: other }],
      [aclKey(repository, caller.userId), bucketWith('owner')],
    ]);
    const found = await read(caller, documentKey(lookalike), lookalike);
    expect(found.item).toEqual({ id: lookalike, repositoryId: other });
    expect(found.role).toBeUndefined();
    expect(reads).toEqual([[documentKey(lookalike), aclKey(repository, caller.userId)], [aclKey(other, caller.userId)]]);
  });
});

/** The roles a condition of the form `#x IN (:value0, …)` allows. */
const allowedBy = (condition: { expression?: string; values?: Record<string, unknown> }) =>
  [...(condition.expression ?? '').matchAll(/:value\d+/g)].map((m) => condition.values?.[m[0]]).sort();

describe('the re-check of a role in a transaction', () => {
  const caller = { userId: 'caller-1' };

  it.each(['read', 'write', 'manage'] as const)(
    'asserts the roles that may %s, on one of the caller’s lanes, handing back the bucket',
    (action) => {
      const step = roleCheck(caller, 'r1', action).ConditionCheck!;
      expect(aclLanes(caller.userId).map((lane) => aclKeyOfBucket('r1', lane))).toContainEqual(step.Key);
      expect(step.ExpressionAttributeNames).toEqual({ '#attribute': roleAttribute(caller.userId) });
      expect(allowedBy({ expression: step.ConditionExpression, values: step.ExpressionAttributeValues })).toEqual([...MAY[action]].sort());
      expect(step.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
      expect(roleCheck(caller, 'r1', action, 7).ConditionCheck?.Key).toEqual(aclKeyOfBucket('r1', 7));
    },
  );

  it('explains a failure of the access step: no role 404, too little 403; another step’s failure is the caller’s to explain', () => {
    const failed = (bucket: Record<string, unknown> | undefined, steps = [ACCESS_STEP]) =>
      new ConditionFailed(new Set(steps), { [ACCESS_STEP]: bucket });
    expect(ACCESS_STEP).toBe('access');
    expect(outcome(() => explainAccess(failed(undefined), caller, 'write', 'Folder'))).toMatchObject({ status: 404 });
    expect(outcome(() => explainAccess(failed({ [roleAttribute(caller.userId)]: 'viewer' }), caller, 'write', 'Folder'))).toMatchObject({
      status: 403,
    });
    expect(outcome(() => explainAccess(failed({ [roleAttribute(caller.userId)]: 'editor' }), caller, 'write', 'Folder'))).toBe('ok');
    expect(outcome(() => explainAccess(failed(undefined, ['target']), caller, 'write', 'Folder'))).toBe('ok');
  });

  it('makes a new repository’s owner in each of their lanes', () => {
    const steps = ownerLaneSteps('r1', 'u1');
    const lanes = aclLanes('u1');
    expect(Object.keys(steps)).toEqual(lanes.map((_, lane) => `acl${lane}`));
    for (const [lane, bucket] of lanes.entries()) {
      expect(steps[`acl${lane}`]?.Update).toMatchObject({
        Key: aclKeyOfBucket('r1', bucket),
        UpdateExpression: 'SET #role = :owner',
        ExpressionAttributeNames: { '#role': roleAttribute('u1') },
        ExpressionAttributeValues: { ':owner': 'owner' },
      });
      expect(steps[`acl${lane}`]?.Update?.ConditionExpression).toBeUndefined();
    }
  });
});

describe('a change of a member’s role', () => {
  /** Users whose lanes do not meet the caller's, and one whose do. */
  const caller = { userId: 'caller-1' };
  const apart = ['m-0', 'm-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6', 'm-7'].find(
    (u) => !aclLanes(u).some((b) => aclLanes(caller.userId).includes(b)),
  )!;

  it('sets the role in each of the member’s lanes, asserting what it was, and checks the caller on a lane of theirs', () => {
    const steps = roleSteps(caller, 'r1', apart, { role: 'editor', was: 'viewer' }, 'manage');
    const lanes = aclLanes(apart);
    for (const [lane, bucket] of lanes.entries()) {
      expect(steps[`acl${lane}`]?.Update).toMatchObject({
        Key: aclKeyOfBucket('r1', bucket),
        UpdateExpression: 'SET #member = :role',
        ExpressionAttributeNames: { '#member': roleAttribute(apart) },
        ExpressionAttributeValues: { ':role': 'editor', ':was': 'viewer' },
        ConditionExpression: '#member = :was',
      });
    }
    const access = steps[ACCESS_STEP]!.ConditionCheck!;
    expect(aclLanes(caller.userId).map((b) => aclKeyOfBucket('r1', b))).toContainEqual(access.Key);
    expect(allowedBy({ expression: access.ConditionExpression, values: access.ExpressionAttributeValues })).toEqual(['owner']);
  });

  it('adds a member asserting they had no role, and removes one', () => {
    const added = roleSteps(caller, 'r1', apart, { role: 'viewer' }, 'manage');
    expect(added.acl0?.Update).toMatchObject({
      UpdateExpression: 'SET #member = :role',
      ConditionExpression: 'attribute_not_exists(#member)',
      ExpressionAttributeValues: { ':role': 'viewer' },
    });
    expect(added.acl0?.Update?.ExpressionAttributeValues).not.toHaveProperty(':was');
    const removed = roleSteps(caller, 'r1', apart, { was: 'editor' }, 'manage');
    expect(removed.acl0?.Update).toMatchObject({ UpdateExpression: 'REMOVE #member', ConditionExpression: '#member = :was' });
    expect(removed.acl0?.Update?.ExpressionAttributeValues).toStrictEqual({ ':was': 'editor' });
  });

  it('folds the caller’s check into the step on a lane they share, which hands back the bucket', () => {
    // The caller themselves: every lane is shared; leaving needs only that they are a member.
    const self = roleSteps(caller, 'r1', caller.userId, { was: 'editor' }, 'read');
    const lanes = aclLanes(caller.userId);
    expect(Object.keys(self)).toHaveLength(lanes.length);
    expect(Object.keys(self)).toContain(ACCESS_STEP);
    const folded = self[ACCESS_STEP]!.Update!;
    expect(folded.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(folded.ConditionExpression).toBe('#member = :was');
    expect(lanes.map((b) => aclKeyOfBucket('r1', b))).toContainEqual(folded.Key);

    // Someone whose lanes meet the caller's: the shared step carries both conditions.
    const neighbour = ['n-0', 'n-1', 'n-2', 'n-3', 'n-4', 'n-5', 'n-6', 'n-7', 'n-8', 'n-9']
      .map((u) => `${u}-${caller.userId}`)
      .concat(Array.from({ length: 400 }, (_, i) => `user-${i}`))
      .find((u) => u !== caller.userId && aclLanes(u).some((b) => lanes.includes(b)));
    expect(neighbour).toBeDefined();
    const steps = roleSteps(caller, 'r1', neighbour!, { role: 'viewer' }, 'manage');
    const shared = steps[ACCESS_STEP]!.Update!;
    expect(shared.ConditionExpression).toBe('attribute_not_exists(#member) AND #caller IN (:value0)');
    expect(shared.ExpressionAttributeNames).toEqual({ '#member': roleAttribute(neighbour!), '#caller': roleAttribute(caller.userId) });
    expect(shared.ExpressionAttributeValues).toEqual({ ':role': 'viewer', ':value0': 'owner' });
    expect(shared.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(Object.keys(steps)).toHaveLength(aclLanes(neighbour!).length);
  });

  it('always folds it into a lane both share, each of them in turn (a random one, so parallel changes spread)', () => {
    const lanes = aclLanes(caller.userId);
    // A member whose lanes meet the caller's on several buckets, not all.
    const member = Array.from({ length: 2000 }, (_, i) => `member-${i}`).find((u) => {
      const meet = aclLanes(u).filter((b) => lanes.includes(b)).length;
      return meet >= 3 && meet < lanes.length;
    })!;
    const shared = aclLanes(member).filter((b) => lanes.includes(b));
    const chosen = new Set<number>();
    for (let trial = 0; trial < 200; trial++) {
      const steps = roleSteps(caller, 'r1', member, { role: 'editor', was: 'viewer' }, 'manage');
      // One step per lane of the member's, the access step among them: no separate check.
      expect(Object.keys(steps)).toHaveLength(aclLanes(member).length);
      const folded = steps[ACCESS_STEP]!.Update!;
      expect(folded.ConditionExpression).toBe('#member = :was AND #caller IN (:value0)');
      const bucket = shared.find((b) => JSON.stringify(aclKeyOfBucket('r1', b)) === JSON.stringify(folded.Key));
      expect(bucket, 'a bucket both share').toBeDefined();
      chosen.add(bucket!);
    }
    expect([...chosen].sort()).toEqual([...shared].sort());
  });
});
