/**
 * Sharing (docs/api.md: Sharing): members listed by user id, given a role, changed, removed or
 * leaving; at least one owner always, also when owners race to step down (the member and
 * repository limits: limits.test.ts); user ids that are any JWT `sub`, percent-encoded in the path;
 * GET / with shared repositories; and revocation that holds from the moment it is answered,
 * raced on DynamoDB Local. Every answer is held to openapi.json by the client.
 */
import { describe, expect, it } from 'vitest';
import type { Change, Member } from '#core/resources';
import { useService } from '#test/support/fixture';
import {
  Api,
  ensure,
  expectJson,
  expectProblem,
  expectRecentTime,
  expectValidationError,
  getDocument,
  type HttpResponse,
  listAll,
  locationPath,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  type Repository,
  removeMember,
  setRole,
  type User,
} from '#test/support/http';
import { byCodePoint, listed, memberPath, putMember as put, deleteMember as remove } from '#test/support/members';

type Role = Member['role'];
const problem = (kind: string) => `urn:problem-type:documents:${kind}`;

/** Every change the worker published, by repository (the change feed, in order). */
const feed = new Map<string, (Change & { seq: number })[]>();

const ctx = useService({
  seed: async (svc) => {
    svc.worker.onEvent((event) => {
      const change = JSON.parse(event.Detail) as Change & { repositoryId: string; seq: number };
      feed.set(change.repositoryId, [...(feed.get(change.repositoryId) ?? []), change]);
    });
    return { alice: await newUser(svc) };
  },
});

/** A caller whose token has this `sub`. */
const userWithSub = async (sub: string): Promise<User> => ({ sub, api: new Api(ctx.svc.url, await ctx.svc.issueToken(sub)) });
const membersOf = async (api: Api, repositoryId: string) => (await listAll<Member>(api, `/${repositoryId}/members`, 100)).items;
const memberChanges = async (repositoryId: string) => {
  await ctx.svc.worker.settled();
  return (feed.get(repositoryId) ?? []).filter((c) => c.kind === 'member');
};

describe('PUT /{id}/members/{userId}', () => {
  it('adds a member (201, Location, the Member); the same again is 200 and writes nothing; another role is 200', async () => {
    const repo = await newRepository(ctx.alice.api);
    const bob = await newUser(ctx.svc);

    const added = await put(ctx.alice.api, repo.id, bob.sub, 'viewer');
    expectJson(added, 201);
    expect(locationPath(added)).toBe(memberPath(repo.id, bob.sub));
    expect(added.body).toEqual({
      userId: bob.sub,
      role: 'viewer',
      addedAt: added.body.addedAt,
      addedBy: ctx.alice.sub,
      updatedAt: added.body.addedAt,
      updatedBy: ctx.alice.sub,
    });
    expectRecentTime(added.body.addedAt);

    const again = await put(ctx.alice.api, repo.id, bob.sub, 'viewer');
    expectJson(again, 200);
    expect(again.headers.get('location')).toBeNull();
    expect(again.body).toEqual(added.body);
    expect((await memberChanges(repo.id)).map((c) => [c.type, c.id, c.role, c.by])).toEqual([
      ['member-added', bob.sub, 'viewer', ctx.alice.sub],
    ]);

    const changed = await put(ctx.alice.api, repo.id, bob.sub, 'editor');
    expectJson(changed, 200);
    expect(changed.body).toMatchObject({ userId: bob.sub, role: 'editor', addedAt: added.body.addedAt, addedBy: ctx.alice.sub });
    expect(changed.body.updatedAt >= added.body.addedAt).toBe(true);
    expect(await membersOf(bob.api, repo.id)).toEqual(
      [
        {
          userId: ctx.alice.sub,
          role: 'owner',
          addedAt: repo.createdAt,
          addedBy: ctx.alice.sub,
          updatedAt: repo.createdAt,
          updatedBy: ctx.alice.sub,
        },
        changed.body,
      ].sort((a, b) => byCodePoint(a.userId, b.userId)),
    );
    expect((await memberChanges(repo.id)).map((c) => [c.type, c.role])).toEqual([
      ['member-added', 'viewer'],
      ['member-changed', 'editor'],
    ]);
  });

  it('shows a shared repository in GET / with the caller’s role, and every change of it at once', async () => {
    const repo = await newRepository(ctx.alice.api);
    const bob = await newUser(ctx.svc);
    expect((await listed(bob.api)).has(repo.id)).toBe(false);
    for (const role of ['viewer', 'editor', 'owner', 'viewer'] as const) {
      await setRole(ctx.alice.api, repo.id, bob.sub, role);
      expect((await listed(bob.api)).get(repo.id)).toBe(role);
      expect(ensure(await bob.api.get(`/${repo.id}`), 200).body.role).toBe(role);
    }
    expect((await listed(ctx.alice.api)).get(repo.id)).toBe('owner');
    await removeMember(ctx.alice.api, repo.id, bob.sub);
    expect((await listed(bob.api)).has(repo.id)).toBe(false);
  });

  it('validates the role and the user id: 400 naming the field, and nothing changes', async () => {
    const repo = await newRepository(ctx.alice.api);
    for (const body of [{ role: 'admin' }, { role: 'Owner' }, {}, { role: null }, { role: 1 }]) {
      expectValidationError(await ctx.alice.api.put(memberPath(repo.id, 'bob'), body), 'role');
    }
    expectValidationError(await ctx.alice.api.put(memberPath(repo.id, 'bob'), { role: 'viewer', extra: 1 }), 'extra');
    for (const userId of ['a'.repeat(256), '\u{1F600}'.repeat(256), 'a\u0007b', 'tab\there', 'nel\u0085', 'del\u007f']) {
      expectValidationError(await put(ctx.alice.api, repo.id, userId, 'viewer'), 'userId');
      expectValidationError(await remove(ctx.alice.api, repo.id, userId), 'userId');
    }
    expectValidationError(await put(ctx.alice.api, 'not an id', 'bob', 'viewer'), 'id');
    expectValidationError(await ctx.alice.api.get('/not%20an%20id/members'), 'id');
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => m.userId)).toEqual([ctx.alice.sub]);
  });

  it('names any JWT sub: | @ : spaces, non-ASCII, reserved characters, 255 characters; that user then has the role', async () => {
    const repo = await newRepository(ctx.alice.api);
    const subs = [
      'auth0|5f7c8ec7c33c6c004bbafe82',
      'bob@example.com',
      'urn:example:user:42',
      'Mary Ann Smith',
      ' padded ',
      'Zoë Ünïcødé',
      '用户',
      '\u{1F600} emoji',
      '100% sure',
      'a+b',
      'what?#fragment',
      "it's;a,b=c&d$e!f*(g)",
      '.hidden',
      '...',
      'e\u0301', // not normalised: a different user from 'é'
      '\u00e9',
      'x'.repeat(255),
      '\u{1F600}'.repeat(255), // 1,020 bytes of UTF-8: the longest key a user id makes
    ];
    for (const sub of subs) ensure(await put(ctx.alice.api, repo.id, sub, 'viewer'), 201);
    const members = await membersOf(ctx.alice.api, repo.id);
    expect(members.map((m) => m.userId)).toEqual([...subs, ctx.alice.sub].sort(byCodePoint));
    for (const sub of subs) {
      const user = await userWithSub(sub);
      expect((await listed(user.api)).get(repo.id), sub).toBe('viewer');
      expect(ensure(await user.api.get(`/${repo.id}/folder`), 200).body.id).toBe(repo.rootFolderId);
      ensure(await remove(user.api, repo.id, sub), 204); // leaves, by the same encoded path
      expectProblem(await user.api.get(`/${repo.id}`), 404);
    }
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => m.userId)).toEqual([ctx.alice.sub]);
  });

  it('takes characters a path may hold as they are, and one user id however its characters are encoded', async () => {
    const repo = await newRepository(ctx.alice.api);
    // Not percent-encoded (the client leaves | @ : as they are) and percent-encoded: one user.
    ensure(await ctx.alice.api.put(`/${repo.id}/members/auth0|x@y:z`, { role: 'viewer' }), 201);
    ensure(await ctx.alice.api.put(`/${repo.id}/members/auth0%7Cx%40y%3Az`, { role: 'viewer' }), 200);
    ensure(await ctx.alice.api.put(`/${repo.id}/members/%61uth0|x@y:z`, { role: 'editor' }), 200);
    expect(await membersOf(ctx.alice.api, repo.id)).toEqual(
      expect.arrayContaining([expect.objectContaining({ userId: 'auth0|x@y:z', role: 'editor' })]),
    );
    // `+` is a plus in a path, never a space.
    ensure(await ctx.alice.api.put(`/${repo.id}/members/a+b`, { role: 'viewer' }), 201);
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => m.userId)).toContain('a+b');
    // API Gateway decodes the path before it routes: `%2F` is a `/`, so no user id holds one.
    expectProblem(await ctx.alice.api.put(`/${repo.id}/members/a%2Fb`, { role: 'viewer' }), 404);
    expectProblem(await ctx.alice.api.delete(`/${repo.id}/members/a%2Fb`), 404);
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => m.userId).sort()).toEqual(['a+b', ctx.alice.sub, 'auth0|x@y:z'].sort());
  });

  it('is the owner’s: 403 for an editor or viewer, 404 for a stranger, a removed member, an unknown repository', async () => {
    const repo = await newRepository(ctx.alice.api);
    const [editor, viewer, stranger, removed] = await Promise.all([newUser(ctx.svc), newUser(ctx.svc), newUser(ctx.svc), newUser(ctx.svc)]);
    await setRole(ctx.alice.api, repo.id, editor.sub, 'editor');
    await setRole(ctx.alice.api, repo.id, viewer.sub, 'viewer');
    await setRole(ctx.alice.api, repo.id, removed.sub, 'owner');
    await removeMember(ctx.alice.api, repo.id, removed.sub);
    for (const user of [editor, viewer]) {
      expectProblem(await put(user.api, repo.id, stranger.sub, 'viewer'), 403);
      expectProblem(await put(user.api, repo.id, user.sub, 'owner'), 403); // no promoting oneself
      expectProblem(await put(user.api, repo.id, ctx.alice.sub, 'viewer'), 403);
    }
    for (const user of [stranger, removed]) {
      expectProblem(await put(user.api, repo.id, user.sub, 'viewer'), 404);
      expectProblem(await user.api.get(`/${repo.id}/members`), 404);
    }
    expectProblem(await put(ctx.alice.api, 'AAAAAAAAAAAAAAAAAAAAAA', stranger.sub, 'viewer'), 404);
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [ctx.alice.sub, 'owner'],
        [editor.sub, 'editor'],
        [viewer.sub, 'viewer'],
      ].sort(),
    );
  });
});

describe('DELETE /{id}/members/{userId}', () => {
  it('an owner removes a member: 204, then 404 for everything in the repository; again is 404', async () => {
    const repo = await newRepository(ctx.alice.api);
    const folder = await newFolder(ctx.alice.api, repo.rootFolderId);
    const doc = await newDocument(ctx.alice.api, folder.id, { content: 'secret' });
    const bob = await newUser(ctx.svc);
    await setRole(ctx.alice.api, repo.id, bob.sub, 'editor');
    expect((await getDocument(bob.api, doc.id)).content).toBe('secret');

    const res = await remove(ctx.alice.api, repo.id, bob.sub);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    for (const path of [
      `/${repo.id}`,
      `/${repo.id}/folder`,
      `/${repo.id}/members`,
      `/folder/${folder.id}`,
      `/folder/${folder.id}/folders`,
      `/folder/${folder.id}/documents`,
      `/document/${doc.id}`,
    ]) {
      expectProblem(await bob.api.get(path), 404);
    }
    expectProblem(await bob.api.put('/document', { id: doc.id, content: 'mine' }), 404);
    expectProblem(await bob.api.delete(`/document/${doc.id}`), 404);
    expectProblem(await bob.api.post('/document', { folderId: folder.id, name: 'x.txt' }), 404);
    expect((await listed(bob.api)).has(repo.id)).toBe(false);
    expect((await getDocument(ctx.alice.api, doc.id)).version).toBe(1);

    expectProblem(await remove(ctx.alice.api, repo.id, bob.sub), 404);
    expectProblem(await remove(ctx.alice.api, repo.id, 'never-a-member'), 404);
    expect((await memberChanges(repo.id)).map((c) => [c.type, c.id, c.role])).toEqual([
      ['member-added', bob.sub, 'editor'],
      ['member-removed', bob.sub, 'editor'],
    ]);
  });

  it('any member leaves; only an owner removes others (403), a non-member nobody (404)', async () => {
    const repo = await newRepository(ctx.alice.api);
    const [editor, viewer, stranger] = await Promise.all([newUser(ctx.svc), newUser(ctx.svc), newUser(ctx.svc)]);
    await setRole(ctx.alice.api, repo.id, editor.sub, 'editor');
    await setRole(ctx.alice.api, repo.id, viewer.sub, 'viewer');
    expectProblem(await remove(editor.api, repo.id, viewer.sub), 403);
    expectProblem(await remove(viewer.api, repo.id, editor.sub), 403);
    expectProblem(await remove(viewer.api, repo.id, ctx.alice.sub), 403);
    expectProblem(await remove(viewer.api, repo.id, stranger.sub), 403); // the role is checked before the member
    expectProblem(await remove(stranger.api, repo.id, stranger.sub), 404);
    expectProblem(await remove(stranger.api, repo.id, viewer.sub), 404);

    ensure(await remove(viewer.api, repo.id, viewer.sub), 204);
    ensure(await remove(editor.api, repo.id, editor.sub), 204);
    expectProblem(await viewer.api.get(`/${repo.id}`), 404);
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => m.userId)).toEqual([ctx.alice.sub]);
  });
});

describe('a repository keeps at least one owner', () => {
  it('its only owner can neither step down nor leave (409 last-owner); after a transfer they can', async () => {
    const repo = await newRepository(ctx.alice.api);
    const bob = await newUser(ctx.svc);
    await setRole(ctx.alice.api, repo.id, bob.sub, 'editor');
    for (const role of ['editor', 'viewer'])
      expectProblem(await put(ctx.alice.api, repo.id, ctx.alice.sub, role), 409, problem('last-owner'));
    expectProblem(await remove(ctx.alice.api, repo.id, ctx.alice.sub), 409, problem('last-owner'));
    expect((await listed(ctx.alice.api)).get(repo.id)).toBe('owner');

    // Ownership passes by making another member owner, then stepping down (or leaving).
    await setRole(ctx.alice.api, repo.id, bob.sub, 'owner');
    expect(ensure(await put(ctx.alice.api, repo.id, ctx.alice.sub, 'editor'), 200).body.role).toBe('editor');
    expectProblem(await put(bob.api, repo.id, bob.sub, 'viewer'), 409, problem('last-owner'));
    expectProblem(await remove(bob.api, repo.id, bob.sub), 409, problem('last-owner'));
    expectProblem(await put(ctx.alice.api, repo.id, ctx.alice.sub, 'owner'), 403); // no longer an owner
    await setRole(bob.api, repo.id, ctx.alice.sub, 'owner');
    ensure(await remove(bob.api, repo.id, bob.sub), 204);
    expect((await membersOf(ctx.alice.api, repo.id)).map((m) => [m.userId, m.role])).toEqual([[ctx.alice.sub, 'owner']]);
  });

  it('when two owners race to step down, leave, or demote or remove each other, exactly one succeeds', async () => {
    type Move = (me: User, other: User, repo: Repository) => Promise<HttpResponse>;
    const stepDown: Move = (me, _, repo) => put(me.api, repo.id, me.sub, 'editor');
    const leave: Move = (me, _, repo) => remove(me.api, repo.id, me.sub);
    const demoteOther: Move = (me, other, repo) => put(me.api, repo.id, other.sub, 'viewer');
    const removeOther: Move = (me, other, repo) => remove(me.api, repo.id, other.sub);
    const pairs: [Move, Move][] = [
      [stepDown, stepDown],
      [leave, leave],
      [stepDown, leave],
      [leave, stepDown],
      [demoteOther, demoteOther],
      [removeOther, removeOther],
      [demoteOther, removeOther],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [first, second] of pairs) {
        const repo = await newRepository(ctx.alice.api);
        const bob = await newUser(ctx.svc);
        await setRole(ctx.alice.api, repo.id, bob.sub, 'owner');
        const answers = await Promise.all([first(ctx.alice, bob, repo), second(bob, ctx.alice, repo)]);
        const what = answers.map((a) => `${a.request} → ${a.status} ${a.text.slice(0, 120)}`).join('\n');
        expect(
          answers.filter((a) => a.status < 300),
          what,
        ).toHaveLength(1);
        // The loser asked for something that is no longer allowed: the last owner (409), or it
        // is no owner any more itself (403), or no member (404).
        for (const a of answers.filter((x) => x.status >= 300)) expect([403, 404, 409], what).toContain(a.status);
        const owners = (await membersOf(ctx.alice.api, repo.id).catch(() => membersOf(bob.api, repo.id))).filter((m) => m.role === 'owner');
        expect(owners, what).toHaveLength(1);
      }
    }
  });
});

// The member and repository limits: test/repositories/limits.test.ts (run with the limits lowered, so they seed 4, not 999).

describe('GET /{id}/members', () => {
  it('pages by user id in code point order (not UTF-16 order); a token of another list is 400', async () => {
    const repo = await newRepository(ctx.alice.api);
    const ids = ['Z', 'a', '\u00e9', '\uff5e', '\u{1F600}', '\u{10000}', 'A b', 'a\u00a0', '~'];
    for (const id of ids) await setRole(ctx.alice.api, repo.id, id, 'viewer');
    const expected = [...ids, ctx.alice.sub].sort(byCodePoint);
    expect(expected).not.toEqual([...ids, ctx.alice.sub].sort()); // the two orders differ here
    const viewer = await userWithSub('a');
    const { items, pages, tokens } = await listAll<Member>(viewer.api, `/${repo.id}/members`, 3);
    expect(items.map((m) => m.userId)).toEqual(expected);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 3, 1]);

    const other = await newRepository(ctx.alice.api);
    expectValidationError(await ctx.alice.api.get(`/${other.id}/members?nextToken=${tokens[0]}`), 'nextToken');
    const folders = ensure(await ctx.alice.api.get(`/folder/${repo.rootFolderId}/folders?nextToken=${tokens[0]}`), 400);
    expectValidationError(folders, 'nextToken');
    expectValidationError(await ctx.alice.api.get(`/${repo.id}/members?limit=0`), 'limit');
  });
});

describe('revocation is immediate', () => {
  const LOOPS = 4;
  /**
   * An editor updates documents from several loops at once (one document each, so they never
   * race each other) while the owner demotes them to viewer, or removes them. After the
   * revocation's answer no update is accepted: every request sent after it is refused, and in
   * the change feed, which is in commit order, every accepted update comes before the
   * revocation. Each document's version is 1 + the 200s its loop got (no update lost, none
   * applied twice, none refused that changed something).
   *
   * A 200 may be *received* a moment after the revocation's answer: an update that committed
   * just before the revocation (DynamoDB Local runs the two one after the other) has its answer
   * in flight alongside it. That is allowed (it was sent before), and only such a 200 is.
   */
  it.each([
    ['demoted to viewer', 'viewer', 403],
    ['removed', undefined, 404],
  ] as const)(
    'an editor %s while updating documents',
    async (_label, role: Role | undefined, refused) => {
      const repo = await newRepository(ctx.alice.api);
      // Two rounds: each revocation lands at another moment of the loops; a new seed of timing every run.
      for (let round = 0; round < 2; round++) {
        const editor = await newUser(ctx.svc);
        await setRole(ctx.alice.api, repo.id, editor.sub, 'editor');
        const docs = await Promise.all(
          Array.from({ length: LOOPS }, () => newDocument(ctx.alice.api, repo.rootFolderId, { content: 'v1' })),
        );
        const answers: { doc: string; sentAt: number; receivedAt: number; status: number; version?: number }[] = [];
        let answeredAt = Number.POSITIVE_INFINITY;
        const loop = async (doc: string) => {
          let late = 0;
          for (let n = 0; late < 5; n++) {
            const sentAt = performance.now();
            const res = await editor.api.put('/document', { id: doc, content: `update ${n}` });
            answers.push({ doc, sentAt, receivedAt: performance.now(), status: res.status, version: res.body?.version });
            if (sentAt > answeredAt) late++;
          }
        };
        const loops = Promise.all(docs.map((d) => loop(d.id)));
        // Revoke at a different moment each round, with every loop in full swing.
        const threshold = LOOPS * (3 + Math.floor(Math.random() * 8));
        while (answers.filter((a) => a.status === 200).length < threshold) await new Promise((r) => setTimeout(r, 1));
        const revocation = role ? await put(ctx.alice.api, repo.id, editor.sub, role) : await remove(ctx.alice.api, repo.id, editor.sub);
        answeredAt = performance.now();
        expect(revocation.status).toBe(role ? 200 : 204);
        await loops;

        const ok = answers.filter((a) => a.status === 200);
        expect(new Set(answers.map((a) => a.status)), 'only 200 and the refusal').toEqual(new Set([200, refused]));
        for (const a of answers.filter((x) => x.sentAt > answeredAt))
          expect(a.status, 'sent after the revocation was answered').toBe(refused);
        for (const a of ok) expect(a.sentAt, 'a 200 for a request sent after the revocation was answered').toBeLessThan(answeredAt);
        for (const doc of docs) {
          const versions = ok.filter((a) => a.doc === doc.id).map((a) => a.version);
          expect(versions).toEqual(versions.map((_, i) => i + 2));
          expect((await getDocument(ctx.alice.api, doc.id)).version).toBe(1 + versions.length);
        }

        await ctx.svc.worker.settled();
        const changes = feed.get(repo.id) ?? [];
        const revoked = changes.find((c) => c.kind === 'member' && c.id === editor.sub && c.type !== 'member-added')!;
        expect(revoked).toMatchObject(role ? { type: 'member-changed', role } : { type: 'member-removed', role: 'editor' });
        const updates = changes.filter((c) => c.type === 'updated' && c.by === editor.sub);
        expect(updates).toHaveLength(ok.length);
        for (const u of updates) expect(u.seq, 'an update committed after the revocation').toBeLessThan(revoked.seq);
      }
    },
    120_000,
  );

  it('a reader removed mid-loop reads nothing after the answer', async () => {
    const repo = await newRepository(ctx.alice.api);
    const doc = await newDocument(ctx.alice.api, repo.rootFolderId, { content: 'secret' });
    const reader = await newUser(ctx.svc);
    await setRole(ctx.alice.api, repo.id, reader.sub, 'viewer');
    const answers: { sentAt: number; receivedAt: number; status: number }[] = [];
    let answeredAt = Number.POSITIVE_INFINITY;
    const loop = async () => {
      for (let late = 0; late < 10; ) {
        const sentAt = performance.now();
        const res = await reader.api.get(`/document/${doc.id}`);
        answers.push({ sentAt, receivedAt: performance.now(), status: res.status });
        if (sentAt > answeredAt) late++;
      }
    };
    const loops = Promise.all([loop(), loop(), loop()]);
    while (answers.length < 20) await new Promise((r) => setTimeout(r, 1));
    await removeMember(ctx.alice.api, repo.id, reader.sub);
    answeredAt = performance.now();
    await loops;
    // A read in flight when the removal was answered may still show the document; none sent after it.
    for (const a of answers.filter((x) => x.sentAt > answeredAt)) expect(a.status).toBe(404);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200, 404]));
  });
});
