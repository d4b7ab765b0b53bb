/**
 * The member and repository limits, end to end (docs/api.md: Limits): moved here from
 * members.test.ts so that they can run with the limits lowered to 5 (vitest.config.ts: the
 * `limits` project sets DOCUMENTS_TEST_LIMITS for this file alone), seeding 4 members or
 * repositories through the API instead of 999. The production values are held to docs/api.md by
 * test/unit/limits.test.ts. Every answer is held to openapi.json by the client.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_MEMBERS, MAX_REPOSITORIES_PER_USER } from '#core/limits';
import type { Member } from '#core/resources';
import { useService } from '#test/support/fixture';
import { ensure, expectProblem, inBatches, listAll, newRepository, newUser, removeMember, setRole } from '#test/support/http';
import { byCodePoint, listed, putMember as put, deleteMember as remove } from '#test/support/members';

const problem = (kind: string) => `urn:problem-type:documents:${kind}`;
/** Pages of this size list the members: several pages at the lowered limit, as 100 were at 1,000. */
const PAGE = 2;

// The lowered limits are in force (vitest.config.ts), not the production ones.
beforeAll(() => {
  expect([MAX_MEMBERS, MAX_REPOSITORIES_PER_USER]).toEqual([5, 5]);
});
const ctx = useService({ seed: async (svc) => ({ alice: await newUser(svc) }) });

describe('limits', () => {
  it(`a repository has at most ${MAX_MEMBERS} members: the next is 409 member-limit`, async () => {
    const repo = await newRepository(ctx.alice.api);
    const ids = Array.from({ length: MAX_MEMBERS - 1 }, (_, i) => `member-${String(i).padStart(4, '0')}`);
    await inBatches(ids, 4, (id) => setRole(ctx.alice.api, repo.id, id, 'viewer'));
    expectProblem(await put(ctx.alice.api, repo.id, 'one-too-many', 'viewer'), 409, problem('member-limit'));
    // Members there may still change; one leaving makes room.
    ensure(await put(ctx.alice.api, repo.id, ids[0]!, 'editor'), 200);
    const { items, pages } = await listAll<Member>(ctx.alice.api, `/${repo.id}/members`, PAGE);
    expect(pages).toHaveLength(Math.ceil(MAX_MEMBERS / PAGE));
    expect(items.map((m) => m.userId)).toEqual([...ids, ctx.alice.sub].sort(byCodePoint));
    await removeMember(ctx.alice.api, repo.id, ids[1]!);
    ensure(await put(ctx.alice.api, repo.id, 'one-too-many', 'viewer'), 201);
    expectProblem(await put(ctx.alice.api, repo.id, 'and-another', 'owner'), 409, problem('member-limit'));
  }, 240_000);

  it(`a user is in at most ${MAX_REPOSITORIES_PER_USER} repositories: being added to one more is 409 repository-limit`, async () => {
    const carol = await newUser(ctx.svc);
    await inBatches(Array.from({ length: MAX_REPOSITORIES_PER_USER - 1 }), 4, () => newRepository(carol.api));
    const [first, second] = [await newRepository(ctx.alice.api), await newRepository(ctx.alice.api)];
    ensure(await put(ctx.alice.api, first.id, carol.sub, 'viewer'), 201);
    expectProblem(await put(ctx.alice.api, second.id, carol.sub, 'viewer'), 409, problem('repository-limit'));
    expectProblem(await carol.api.post('/', { name: 'one more' }), 409, problem('repository-limit'));
    ensure(await put(ctx.alice.api, first.id, carol.sub, 'editor'), 200); // a role change is no new repository
    ensure(await remove(carol.api, first.id, carol.sub), 204);
    ensure(await put(ctx.alice.api, second.id, carol.sub, 'viewer'), 201);
    expect((await listed(carol.api)).size).toBe(MAX_REPOSITORIES_PER_USER);
  }, 240_000);
});
