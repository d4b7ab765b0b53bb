/**
 * A caller who is not a member of a repository learns nothing about it: every read and every
 * write is a 404 exactly like the one for an id that does not exist (docs/api.md), never a 403,
 * 409 or 412, and nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { useService } from '#test/support/fixture';
import {
  expectProblem,
  getDocument,
  type HttpResponse,
  listAll,
  namesIn,
  newDocument,
  newFolder,
  newRepository,
  newUser,
  type Repository,
  randomId,
} from '#test/support/http';

const ctx = useService({
  seed: async (svc) => {
    const alice = await newUser(svc);
    const bob = await newUser(svc);
    const aliceRepo = await newRepository(alice.api, { name: 'Alice private' });
    const aliceFolder = await newFolder(alice.api, aliceRepo.rootFolderId, 'secrets');
    const aliceDoc = await newDocument(alice.api, aliceFolder.id, { name: 'diary', content: 'dear diary' });
    const bobRepo = await newRepository(bob.api, { name: 'Bob' });
    const bobDoc = await newDocument(bob.api, bobRepo.rootFolderId, { name: 'bob notes' });
    return { alice, bob, aliceRepo, aliceFolder, aliceDoc, bobRepo, bobDoc };
  },
});

/** A 404 that reads exactly like the 404 for an id that names nothing. */
async function expectHidden(res: HttpResponse, lookalike: () => Promise<HttpResponse>): Promise<void> {
  expectProblem(res, 404);
  const control = await lookalike();
  expectProblem(control, 404);
  expect({ type: res.body.type, title: res.body.title }).toEqual({ type: control.body.type, title: control.body.title });
}

/** Alice's data is exactly as she made it. */
async function expectAliceUnchanged(): Promise<void> {
  expect(await getDocument(ctx.alice.api, ctx.aliceDoc.id)).toEqual(ctx.aliceDoc);
  expect(await namesIn(ctx.alice.api, ctx.aliceFolder.id, 'documents')).toEqual(['diary']);
  expect(await namesIn(ctx.alice.api, ctx.aliceFolder.id, 'folders')).toEqual([]);
  expect(await namesIn(ctx.alice.api, ctx.aliceRepo.rootFolderId, 'folders')).toEqual(['secrets']);
  expect(await namesIn(ctx.alice.api, ctx.aliceRepo.rootFolderId, 'documents')).toEqual([]);
}

describe("another user's repository", () => {
  it('is not listed', async () => {
    const { items } = await listAll<Repository>(ctx.bob.api, '/');
    expect(items.map((r) => r.id)).toEqual([ctx.bobRepo.id]);
    const mine = await listAll<Repository>(ctx.alice.api, '/');
    expect(mine.items.map((r) => r.id)).toEqual([ctx.aliceRepo.id]);
  });

  it('cannot be read: 404 for the repository, its folders, its documents and its lists', async () => {
    const unknown = randomId();
    const reads: [string, string][] = [
      [`/${ctx.aliceRepo.id}`, `/${unknown}`],
      [`/${ctx.aliceRepo.id}/folder`, `/${unknown}/folder`],
      [`/folder/${ctx.aliceRepo.rootFolderId}`, `/folder/${unknown}`],
      [`/folder/${ctx.aliceFolder.id}`, `/folder/${unknown}`],
      [`/folder/${ctx.aliceRepo.rootFolderId}/folders`, `/folder/${unknown}/folders`],
      [`/folder/${ctx.aliceFolder.id}/documents`, `/folder/${unknown}/documents`],
      [`/folder/${ctx.aliceFolder.id}/documents?limit=1`, `/folder/${unknown}/documents?limit=1`],
      [`/document/${ctx.aliceDoc.id}`, `/document/${unknown}`],
    ];
    for (const [path, lookalike] of reads) {
      await expectHidden(await ctx.bob.api.get(path), () => ctx.bob.api.get(lookalike));
    }
  });

  it("cannot be written to: 404 for creating in Alice's folders", async () => {
    const unknown = randomId();
    await expectHidden(await ctx.bob.api.post('/folder', { parentId: ctx.aliceFolder.id, name: 'intruder' }), () =>
      ctx.bob.api.post('/folder', { parentId: unknown, name: 'intruder' }),
    );
    await expectHidden(await ctx.bob.api.post('/document', { folderId: ctx.aliceFolder.id, name: 'intruder' }), () =>
      ctx.bob.api.post('/document', { folderId: unknown, name: 'intruder' }),
    );
    // a clash that would be a 409 for Alice is still a 404 for Bob
    expectProblem(await ctx.bob.api.post('/document', { folderId: ctx.aliceFolder.id, name: 'DIARY' }), 404);
    expectProblem(await ctx.bob.api.post('/folder', { parentId: ctx.aliceRepo.rootFolderId, name: 'secrets' }), 404);
    await expectAliceUnchanged();
  });

  it("cannot update or delete Alice's documents: 404, whatever the preconditions", async () => {
    const unknown = randomId();
    const control = () => ctx.bob.api.put('/document', { id: unknown, content: 'x' });
    await expectHidden(await ctx.bob.api.put('/document', { id: ctx.aliceDoc.id, content: 'hacked' }), control);
    await expectHidden(await ctx.bob.api.put('/document', { id: ctx.aliceDoc.id }), control);
    await expectHidden(await ctx.bob.api.put('/document', { id: ctx.aliceDoc.id, content: 'hacked' }, { 'If-Match': '"1"' }), control);
    await expectHidden(await ctx.bob.api.put('/document', { id: ctx.aliceDoc.id, content: 'hacked' }, { 'If-Match': '"7"' }), control); // not 412
    await expectHidden(await ctx.bob.api.put('/document', { id: ctx.aliceDoc.id, version: 7 }), control); // not 412
    await expectHidden(await ctx.bob.api.put('/document', { id: ctx.aliceDoc.id, folderId: ctx.bobRepo.rootFolderId }), control);

    const controlDelete = () => ctx.bob.api.delete(`/document/${unknown}`);
    await expectHidden(await ctx.bob.api.delete(`/document/${ctx.aliceDoc.id}`, { 'If-Match': '"7"' }), controlDelete); // not 412
    await expectHidden(await ctx.bob.api.delete(`/document/${ctx.aliceDoc.id}`), controlDelete);
    await expectAliceUnchanged();
  });

  it("cannot take over Alice's document id: 409 (ids are global), and her document stays hers", async () => {
    expectProblem(
      await ctx.bob.api.post('/document', {
        id: ctx.aliceDoc.id,
        folderId: ctx.bobRepo.rootFolderId,
        name: 'takeover',
        content: 'mine now',
      }),
      409,
    );
    expect(await namesIn(ctx.bob.api, ctx.bobRepo.rootFolderId, 'documents')).toEqual(['bob notes']);
    await expectAliceUnchanged();
  });

  it("cannot move his own document into Alice's folder: 404", async () => {
    expectProblem(await ctx.bob.api.put('/document', { id: ctx.bobDoc.id, folderId: ctx.aliceFolder.id }), 404);
    expect(await getDocument(ctx.bob.api, ctx.bobDoc.id)).toEqual(ctx.bobDoc);
    await expectAliceUnchanged();
  });
});
