/**
 * A caller who is not a member of a repository learns nothing about it: every read and every
 * write is a 404 exactly like the one for an id that does not exist (docs/api.md), never a 403,
 * 409 or 412, and nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Document,
  expectProblem,
  type Folder,
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
  type User,
} from '#test/support/http';
import { startTestService } from '#test/support/service';

let svc: Awaited<ReturnType<typeof startTestService>>;
let alice: User;
let bob: User;
let aliceRepo: Repository;
let aliceFolder: Folder;
let aliceDoc: Document;
let bobRepo: Repository;
let bobDoc: Document;
beforeAll(async () => {
  svc = await startTestService();
  alice = await newUser(svc);
  bob = await newUser(svc);
  aliceRepo = await newRepository(alice.api, { name: 'Alice private' });
  aliceFolder = await newFolder(alice.api, aliceRepo.rootFolderId, 'secrets');
  aliceDoc = await newDocument(alice.api, aliceFolder.id, { name: 'diary', content: 'dear diary' });
  bobRepo = await newRepository(bob.api, { name: 'Bob' });
  bobDoc = await newDocument(bob.api, bobRepo.rootFolderId, { name: 'bob notes' });
}, 60_000);
afterAll(() => svc.stop());

/** A 404 that reads exactly like the 404 for an id that names nothing. */
async function expectHidden(res: HttpResponse, lookalike: () => Promise<HttpResponse>): Promise<void> {
  expectProblem(res, 404);
  const control = await lookalike();
  expectProblem(control, 404);
  expect({ type: res.body.type, title: res.body.title }).toEqual({ type: control.body.type, title: control.body.title });
}

/** Alice's data is exactly as she made it. */
async function expectAliceUnchanged(): Promise<void> {
  expect(await getDocument(alice.api, aliceDoc.id)).toEqual(aliceDoc);
  expect(await namesIn(alice.api, aliceFolder.id, 'documents')).toEqual(['diary']);
  expect(await namesIn(alice.api, aliceFolder.id, 'folders')).toEqual([]);
  expect(await namesIn(alice.api, aliceRepo.rootFolderId, 'folders')).toEqual(['secrets']);
  expect(await namesIn(alice.api, aliceRepo.rootFolderId, 'documents')).toEqual([]);
}

describe("another user's repository", () => {
  it('is not listed', async () => {
    const { items } = await listAll<Repository>(bob.api, '/');
    expect(items.map((r) => r.id)).toEqual([bobRepo.id]);
    const mine = await listAll<Repository>(alice.api, '/');
    expect(mine.items.map((r) => r.id)).toEqual([aliceRepo.id]);
  });

  it('cannot be read: 404 for the repository, its folders, its documents and its lists', async () => {
    const unknown = randomId();
    const reads: [string, string][] = [
      [`/${aliceRepo.id}`, `/${unknown}`],
      [`/${aliceRepo.id}/folder`, `/${unknown}/folder`],
      [`/folder/${aliceRepo.rootFolderId}`, `/folder/${unknown}`],
      [`/folder/${aliceFolder.id}`, `/folder/${unknown}`],
      [`/folder/${aliceRepo.rootFolderId}/folders`, `/folder/${unknown}/folders`],
      [`/folder/${aliceFolder.id}/documents`, `/folder/${unknown}/documents`],
      [`/folder/${aliceFolder.id}/documents?limit=1`, `/folder/${unknown}/documents?limit=1`],
      [`/document/${aliceDoc.id}`, `/document/${unknown}`],
    ];
    for (const [path, lookalike] of reads) {
      await expectHidden(await bob.api.get(path), () => bob.api.get(lookalike));
    }
  });

  it("cannot be written to: 404 for creating in Alice's folders", async () => {
    const unknown = randomId();
    await expectHidden(await bob.api.post('/folder', { parentId: aliceFolder.id, name: 'intruder' }), () =>
      bob.api.post('/folder', { parentId: unknown, name: 'intruder' }),
    );
    await expectHidden(await bob.api.post('/document', { folderId: aliceFolder.id, name: 'intruder' }), () =>
      bob.api.post('/document', { folderId: unknown, name: 'intruder' }),
    );
    // a clash that would be a 409 for Alice is still a 404 for Bob
    expectProblem(await bob.api.post('/document', { folderId: aliceFolder.id, name: 'DIARY' }), 404);
    expectProblem(await bob.api.post('/folder', { parentId: aliceRepo.rootFolderId, name: 'secrets' }), 404);
    await expectAliceUnchanged();
  });

  it("cannot update or delete Alice's documents: 404, whatever the preconditions", async () => {
    const unknown = randomId();
    const control = () => bob.api.put('/document', { id: unknown, content: 'x' });
    await expectHidden(await bob.api.put('/document', { id: aliceDoc.id, content: 'hacked' }), control);
    await expectHidden(await bob.api.put('/document', { id: aliceDoc.id }), control);
    await expectHidden(await bob.api.put('/document', { id: aliceDoc.id, content: 'hacked' }, { 'If-Match': '"1"' }), control);
    await expectHidden(await bob.api.put('/document', { id: aliceDoc.id, content: 'hacked' }, { 'If-Match': '"7"' }), control); // not 412
    await expectHidden(await bob.api.put('/document', { id: aliceDoc.id, version: 7 }), control); // not 412
    await expectHidden(await bob.api.put('/document', { id: aliceDoc.id, folderId: bobRepo.rootFolderId }), control);

    const controlDelete = () => bob.api.delete(`/document/${unknown}`);
    await expectHidden(await bob.api.delete(`/document/${aliceDoc.id}`, { 'If-Match': '"7"' }), controlDelete); // not 412
    await expectHidden(await bob.api.delete(`/document/${aliceDoc.id}`), controlDelete);
    await expectAliceUnchanged();
  });

  it("cannot take over Alice's document id: 409 (ids are global), and her document stays hers", async () => {
    expectProblem(
      await bob.api.post('/document', { id: aliceDoc.id, folderId: bobRepo.rootFolderId, name: 'takeover', content: 'mine now' }),
      409,
    );
    expect(await namesIn(bob.api, bobRepo.rootFolderId, 'documents')).toEqual(['bob notes']);
    await expectAliceUnchanged();
  });

  it("cannot move his own document into Alice's folder: 404", async () => {
    expectProblem(await bob.api.put('/document', { id: bobDoc.id, folderId: aliceFolder.id }), 404);
    expect(await getDocument(bob.api, bobDoc.id)).toEqual(bobDoc);
    await expectAliceUnchanged();
  });
});
