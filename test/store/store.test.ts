/**
 * The data layer against the real DynamoDB Local: what it stores, how many requests each
 * operation costs, and that racing writers cannot break uniqueness or versions.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { newId } from '#core/ids';
import { createDocument, getDocument, updateDocument } from '#core/items/document';
import { createFolder, getFolder, getRootFolder, listDocuments, listFolders } from '#core/items/folder';
import { contentKey, documentKey, entryKey, folderKey, revisionKey } from '#core/items/keys';
import { putMember } from '#core/items/member';
import { createRepository, getRepository, listRepositories } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { trashDocument } from '#core/use-cases/trash';
import { rawItem, recordStoreRequests } from '#test/support/dynamodb';
import { settledStatus } from '#test/support/errors';
import { useTable } from '#test/support/fixture';

const requests: string[] = [];
let n = 0;
const newCaller = (): Caller => ({ userId: `user-${Date.now()}-${n++}` });

useTable();
recordStoreRequests(requests);

beforeEach(() => {
  requests.length = 0;
});

/** Sort keys order by UTF-8 bytes; so does Buffer.compare. */
const byKey = (a: string, b: string) => Buffer.compare(Buffer.from(a.toLowerCase()), Buffer.from(b.toLowerCase()));

async function newDocument(caller: Caller, folderId: string, name: string, content = 'hello') {
  return createDocument(caller, { folderId, name, content, contentType: 'text/plain' });
}

describe('repositories', () => {
  it('creates a repository with its root folder and the owner membership in one transaction', async () => {
    const owner = newCaller();
    requests.length = 0;
    const repository = await createRepository(owner, { name: 'Specs', description: '' });
    expect(requests).toEqual(['TransactWriteItems']);
    expect(repository).toMatchObject({ name: 'Specs', role: 'owner', rootFolderId: repository.id, createdBy: owner.userId });

    requests.length = 0;
    // GET /{id} reads the usage with it (nothing yet) in the same BatchGetItem.
    expect(await getRepository(owner, repository.id)).toEqual({ ...repository, usage: { bytes: 0, quota: 10 * 1024 ** 3 } });
    expect(requests).toEqual(['BatchGetItem']);

    const root = await getRootFolder(owner, repository.id);
    expect(root).toMatchObject({ id: repository.id, repositoryId: repository.id, parentId: null, name: 'Specs' });
  });

  it('lists only the caller’s repositories, by name case-insensitively: a Query, then the page’s repositories', async () => {
    const owner = newCaller();
    const other = newCaller();
    for (const name of ['beta', 'Alpha', 'gamma']) await createRepository(owner, { name, description: '' });
    await createRepository(other, { name: 'Aardvark', description: '' });
    requests.length = 0;
    const page = await listRepositories(owner, { limit: 50 });
    expect(requests).toEqual(['Query', 'BatchGetItem']);
    expect(page.items.map((r) => r.name)).toEqual(['Alpha', 'beta', 'gamma']);
    expect(page.nextToken).toBeUndefined();
  });

  it('lists names up to 255 four-byte characters, past DynamoDB’s 1,024-byte sort key', async () => {
    const owner = newCaller();
    const long = '\u{1F600}'.repeat(255); // 1,020 bytes of UTF-8
    const names = [long, `${'\u{1F600}'.repeat(254)}\u{1F601}`, 'short'];
    for (const name of names) await createRepository(owner, { name, description: '' });
    const page = await listRepositories(owner, { limit: 50 });
    expect(page.items.map((r) => r.name).sort()).toEqual([...names].sort());
    expect(page.items[0]!.name).toBe('short');
  });

  it('hides a repository from non-members as if it did not exist', async () => {
    const repository = await createRepository(newCaller(), { name: 'Private', description: '' });
    const stranger = newCaller();
    expect(await settledStatus(getRepository(stranger, repository.id))).toBe(404);
    expect(await settledStatus(getRootFolder(stranger, repository.id))).toBe(404);
    expect(await settledStatus(getRepository(stranger, 'no-such-repository'))).toBe(404);
  });
});

describe('folders and documents', () => {
  it('costs one BatchGetItem to read, one transaction to create a document, a read and a transaction to change', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });

    requests.length = 0;
    // A folder's depth is its parent's plus one: read first.
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Docs' });
    expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);

    requests.length = 0;
    const document = await newDocument(owner, folder.id, 'a.txt');
    expect(requests).toEqual(['TransactWriteItems']);

    requests.length = 0;
    await getDocument(owner, document.id);
    await getFolder(owner, folder.id);
    expect(requests).toEqual(['BatchGetItem', 'BatchGetItem']);

    requests.length = 0;
    await listDocuments(owner, folder.id, { limit: 50 });
    expect(requests.sort()).toEqual(['BatchGetItem', 'Query']);

    requests.length = 0;
    await updateDocument(owner, { id: document.id, content: 'changed' }, {});
    expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);

    requests.length = 0;
    await updateDocument(owner, { id: document.id, name: 'b.txt' }, {});
    expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);

    requests.length = 0;
    await updateDocument(owner, { id: document.id, folderId: repository.rootFolderId }, {});
    expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);

    requests.length = 0;
    await trashDocument(owner, document.id, {});
    expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);
  });

  it('writes a document, its revision and its folder entry together; to the trash, the entry goes and the document is marked', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const document = await newDocument(owner, repository.rootFolderId, 'Notes.md', 'héllo');
    expect(document).toMatchObject({ size: 6, version: 1, folderId: repository.rootFolderId });

    // Small text is in the document item (one read unit), and nowhere else yet.
    const stored = await rawItem(documentKey(document.id));
    expect(stored).toMatchObject({ storage: 'inline', nameKey: 'notes.md', keptBytes: 6, contentVersion: 1, content: 'héllo' });
    const entry = await rawItem(entryKey('documents', repository.rootFolderId, 'notes.md'));
    expect(entry).toMatchObject({ id: document.id, version: 1 });
    expect(entry).not.toHaveProperty('content');
    // The current version's revision is the document item itself: no revision item yet.
    expect(await rawItem(revisionKey(document.id, 1))).toBeUndefined();
    expect(await rawItem(contentKey(document.id, 1))).toBeUndefined();

    // A rename writes the revision of the version it replaces, small, pointing at the content it shares: no copy.
    await updateDocument(owner, { id: document.id, name: 'Renamed.md' }, {});
    expect(await rawItem(revisionKey(document.id, 1))).toMatchObject({ version: 1, contentVersion: 1, name: 'Notes.md' });
    expect(await rawItem(revisionKey(document.id, 1))).not.toHaveProperty('content');
    expect(await rawItem(revisionKey(document.id, 2))).toBeUndefined();
    expect(await rawItem(contentKey(document.id, 1))).toBeUndefined();
    expect(await rawItem(contentKey(document.id, 2))).toBeUndefined();

    // New text: the replaced text goes to the item of the version that set it, the new one stays in the document item.
    await updateDocument(owner, { id: document.id, content: 'wörld' }, {});
    expect(await rawItem(documentKey(document.id))).toMatchObject({ content: 'wörld', contentVersion: 3 });
    expect(await rawItem(contentKey(document.id, 1))).toEqual({ ...contentKey(document.id, 1), content: 'héllo' });
    expect(await rawItem(contentKey(document.id, 3))).toBeUndefined();
    expect(await rawItem(revisionKey(document.id, 2))).toMatchObject({ version: 2, name: 'Renamed.md', contentVersion: 1 });

    await trashDocument(owner, document.id, {});
    expect(await rawItem(documentKey(document.id))).toMatchObject({ trash: { root: document.id } });
    expect(await rawItem(entryKey('documents', repository.rootFolderId, 'renamed.md'))).toBeUndefined();
    expect(await settledStatus(getDocument(owner, document.id))).toBe(404);
  });

  it('moves and renames a document’s folder entry with it', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const target = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Target' });
    const document = await newDocument(owner, repository.rootFolderId, 'old.txt');

    const moved = await updateDocument(owner, { id: document.id, folderId: target.id, name: 'New.txt' }, { ifMatch: [1] });
    expect(moved).toMatchObject({ folderId: target.id, name: 'New.txt', version: 2, content: 'hello' });
    expect((await listDocuments(owner, repository.rootFolderId, { limit: 50 })).items).toEqual([]);
    const listed = await listDocuments(owner, target.id, { limit: 50 });
    expect(listed.items).toEqual([expect.objectContaining({ id: document.id, name: 'New.txt', version: 2 })]);
  });

  it('refuses a name taken by a folder or a document, case-insensitively and across NFC forms', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const root = repository.rootFolderId;
    await createFolder(owner, { parentId: root, name: 'Résumé' });
    expect(await settledStatus(newDocument(owner, root, 'RE\u0301SUME\u0301'))).toBe(409);
    await newDocument(owner, root, 'plan.txt');
    expect(await settledStatus(createFolder(owner, { parentId: root, name: 'PLAN.TXT' }))).toBe(409);
    const other = await newDocument(owner, root, 'other.txt');
    expect(await settledStatus(updateDocument(owner, { id: other.id, name: 'Plan.txt' }, {}))).toBe(409);
    // Same name elsewhere is fine, and renaming to a different case of its own name is too.
    const sub = await createFolder(owner, { parentId: root, name: 'sub' });
    await newDocument(owner, sub.id, 'plan.txt');
    expect(await updateDocument(owner, { id: other.id, name: 'OTHER.txt' }, {})).toMatchObject({ name: 'OTHER.txt' });
  });

  it('enforces roles: strangers get 404 for reads and writes', async () => {
    const owner = newCaller();
    const stranger = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const document = await newDocument(owner, repository.rootFolderId, 'a');
    expect(await settledStatus(getDocument(stranger, document.id))).toBe(404);
    expect(await settledStatus(listDocuments(stranger, repository.rootFolderId, { limit: 5 }))).toBe(404);
    expect(await settledStatus(listFolders(stranger, repository.rootFolderId, { limit: 5 }))).toBe(404);
    expect(await settledStatus(newDocument(stranger, repository.rootFolderId, 'b'))).toBe(404);
    expect(await settledStatus(updateDocument(stranger, { id: document.id, content: 'x' }, {}))).toBe(404);
    expect(await settledStatus(trashDocument(stranger, document.id, {}))).toBe(404);
    expect((await getDocument(owner, document.id)).content).toBe('hello');
  });
});

describe('creates: one transaction whose conditions decide the answer', () => {
  /** Status of a create, and the requests it made (always at most the one transaction). */
  async function attempt(create: () => Promise<unknown>) {
    requests.length = 0;
    const status = await settledStatus(create());
    return { status, requests: [...requests] };
  }
  const one = (status: number | 'ok') => ({ status, requests: ['TransactWriteItems'] });

  async function repositoryWithRoles() {
    const owner = newCaller();
    const viewer = newCaller();
    const editor = newCaller();
    const stranger = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    await putMember(owner, repository.id, viewer.userId, 'viewer');
    await putMember(owner, repository.id, editor.userId, 'editor');
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'Sub' });
    await newDocument(owner, folder.id, 'taken.txt');
    return { owner, viewer, editor, stranger, repository, folder };
  }

  it('gives a folder an id that starts with its repository’s', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const folder = await createFolder(owner, { parentId: repository.rootFolderId, name: 'A' });
    const nested = await createFolder(owner, { parentId: folder.id, name: 'B' });
    for (const { id } of [folder, nested]) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{44}$/);
      expect(id.startsWith(repository.id)).toBe(true);
    }
    expect(nested).toMatchObject({ repositoryId: repository.id, parentId: folder.id });
    expect(await newDocument(owner, nested.id, 'deep.txt')).toMatchObject({ repositoryId: repository.id, folderId: nested.id });
  });

  it('answers 404 before 403 before 409, for documents and folders alike', async () => {
    const { viewer, editor, stranger, repository, folder } = await repositoryWithRoles();
    const missing = `${repository.id}${newId()}`; // shaped like a folder of this repository
    const document = (caller: Caller, folderId: string, name = 'taken.txt') => newDocument(caller, folderId, name);
    const subFolder = (caller: Caller, parentId: string, name = 'taken.txt') => createFolder(caller, { parentId, name });

    // A document is created by its one transaction; a folder reads its parent first (its depth),
    // so it refuses a stranger, a viewer and a missing folder from that read, without writing.
    const kinds = [
      { create: document, refused: (status: number) => one(status), clash: one(409) },
      {
        create: subFolder,
        refused: (status: number) => ({ status, requests: ['BatchGetItem'] }),
        clash: { status: 409, requests: ['BatchGetItem', 'TransactWriteItems'] },
      },
    ];
    for (const { create, refused, clash } of kinds) {
      expect(await attempt(() => create(stranger, folder.id))).toEqual(refused(404)); // not a member, though the name is taken
      expect(await attempt(() => create(viewer, missing))).toEqual(refused(404)); // a member, but no such folder
      expect(await attempt(() => create(viewer, folder.id))).toEqual(refused(403)); // may not write, though the name is taken
      expect(await attempt(() => create(editor, missing))).toEqual(refused(404));
      expect(await attempt(() => create(editor, folder.id, 'TAKEN.TXT'))).toEqual(clash);
      // Ids that cannot be a folder's are refused without asking DynamoDB.
      for (const id of ['nope', 'x'.repeat(64), newId().slice(1)]) {
        expect(await attempt(() => create(editor, id))).toEqual({ status: 404, requests: [] });
      }
    }
    // A 22-character id that is not a repository's root folder (e.g. a folder made before ids
    // carried their repository) fails the folder condition: 404, not a write elsewhere.
    expect(await attempt(() => document(editor, newId()))).toEqual(one(404));
    const otherRepository = repository.id.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    expect(await attempt(() => subFolder(editor, otherRepository))).toEqual({ status: 404, requests: ['BatchGetItem'] });
  });

  it('refuses a client id that exists with 409, but never tells a stranger', async () => {
    const { owner, stranger, repository, folder } = await repositoryWithRoles();
    const existing = await newDocument(owner, folder.id, 'mine.txt');
    const withId = (caller: Caller, folderId: string, name: string) =>
      createDocument(caller, { folderId, name, content: 'x', contentType: 'text/plain', id: existing.id });
    expect(await attempt(() => withId(owner, repository.rootFolderId, 'other.txt'))).toEqual(one(409));
    const theirs = await createRepository(stranger, { name: 'Theirs', description: '' });
    expect(await attempt(() => withId(stranger, theirs.rootFolderId, 'x.txt'))).toEqual(one(409));
    expect(await attempt(() => withId(stranger, folder.id, 'x.txt'))).toEqual(one(404));
    expect((await getDocument(owner, existing.id)).name).toBe('mine.txt');
  });

  it('leaves no trace of a refused create', async () => {
    const { viewer, editor, folder } = await repositoryWithRoles();
    expect(await settledStatus(newDocument(viewer, folder.id, 'fresh.txt'))).toBe(403);
    expect(await settledStatus(createFolder(editor, { parentId: folder.id, name: 'Taken.txt' }))).toBe(409);
    expect(await rawItem(entryKey('documents', folder.id, 'fresh.txt'))).toBeUndefined();
    expect(await rawItem(entryKey('folders', folder.id, 'taken.txt'))).toBeUndefined();
    const listed = await listDocuments(editor, folder.id, { limit: 10 });
    expect(listed.items.map((d) => d.name)).toEqual(['taken.txt']);
    expect((await listFolders(editor, folder.id, { limit: 10 })).items).toEqual([]);
  });

  it('renames onto a taken name: 409 from the transaction, nothing changed', async () => {
    const { editor, folder } = await repositoryWithRoles();
    const document = await newDocument(editor, folder.id, 'mine.txt');
    await createFolder(editor, { parentId: folder.id, name: 'Folder' });
    for (const name of ['TAKEN.txt', 'folder']) {
      requests.length = 0;
      expect(await settledStatus(updateDocument(editor, { id: document.id, name }, {}))).toBe(409);
      expect(requests).toEqual(['BatchGetItem', 'TransactWriteItems']);
    }
    expect(await getDocument(editor, document.id)).toMatchObject({ name: 'mine.txt', version: 1 });
    expect(await rawItem(folderKey(folder.id))).toMatchObject({ id: folder.id });
  });
});

describe('concurrency', () => {
  it('lets exactly one of eight racing creates of one name succeed', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const names = ['race.txt', 'RACE.txt', 'Race.TXT', 'race.txt', 'rAce.txt', 'race.TXT', 'RACE.TXT', 'race.txt'];
    const results = await Promise.all(names.map((name) => settledStatus(newDocument(owner, repository.rootFolderId, name))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 409)).toHaveLength(7);
    expect((await listDocuments(owner, repository.rootFolderId, { limit: 50 })).items).toHaveLength(1);
  });

  it('lets exactly one of eight racing updates of one version succeed', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const document = await newDocument(owner, repository.rootFolderId, 'doc');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => settledStatus(updateDocument(owner, { id: document.id, content: `v${i}` }, { version: 1 }))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 412)).toHaveLength(7);
    expect((await getDocument(owner, document.id)).version).toBe(2);
  });

  it('applies every unconditional update, each on the version it found', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const document = await newDocument(owner, repository.rootFolderId, 'doc');
    await Promise.all(Array.from({ length: 6 }, (_, i) => updateDocument(owner, { id: document.id, content: `v${i}` }, {})));
    const final = await getDocument(owner, document.id);
    expect(final.version).toBe(7);
    const [entry] = (await listDocuments(owner, repository.rootFolderId, { limit: 5 })).items;
    expect(entry).toMatchObject({ version: 7, size: final.size });
  });
});

describe('paging', () => {
  it('walks a folder in name order, one Query per page, with tamper-proof tokens', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const names = Array.from({ length: 23 }, (_, i) => `Doc ${String(i).padStart(2, '0')}${i % 2 ? '' : ' (Draft)'}`);
    for (const name of [...names].reverse()) await newDocument(owner, repository.rootFolderId, name);

    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      requests.length = 0;
      const page = await listDocuments(owner, repository.rootFolderId, { limit: 5, nextToken });
      expect(requests.filter((r) => r === 'Query')).toHaveLength(1);
      seen.push(...page.items.map((d) => d.name));
      nextToken = page.nextToken;
      pages++;
    } while (nextToken);
    expect(pages).toBe(5);
    expect(seen).toEqual([...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));

    const first = await listDocuments(owner, repository.rootFolderId, { limit: 5 });
    expect(await settledStatus(listFolders(owner, repository.rootFolderId, { limit: 5, nextToken: first.nextToken }))).toBe(400);
  });

  it('keeps each list to its own kind on every page, whatever the names', async () => {
    const owner = newCaller();
    const repository = await createRepository(owner, { name: 'R', description: '' });
    const root = repository.rootFolderId;
    // Names at the edges of the sort order: the first and last characters a name may hold.
    const names = ['a', 'zz', '\u00ff', '\u{10FFFF}', '\u{1F600} smile', '~'];
    for (const name of names) await newDocument(owner, root, `${name}.txt`);
    for (const name of names) await createFolder(owner, { parentId: root, name: `${name} folder` });
    const walk = async (list: typeof listDocuments | typeof listFolders) => {
      const seen: string[] = [];
      let nextToken: string | undefined;
      do {
        const page = await list(owner, root, { limit: 1, nextToken });
        seen.push(...page.items.map((item) => item.name));
        nextToken = page.nextToken;
      } while (nextToken);
      return seen;
    };
    expect(await walk(listDocuments)).toEqual(names.map((n) => `${n}.txt`).sort(byKey));
    expect(await walk(listFolders)).toEqual(names.map((n) => `${n} folder`).sort(byKey));
  });
});
