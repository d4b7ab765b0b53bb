/**
 * The data every scenario works on, made in the service process with the store's own calls;
 * plain ids, so it travels to the runner over IPC. Also what the calls of a run change (one
 * target each: makeTargets), and the folder trees of the life-cycle scenario (makeTree).
 */

import { readChanges } from '#core/items/change';
import { createDocument } from '#core/items/document';
import { createFolder } from '#core/items/folder';
import { createRepository } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { trashDocument, trashFolder } from '#core/use-cases/trash';
import { oneKb, seedDocuments } from './seed';

export interface Fixture {
  caller: Caller;
  repositoryId: string;
  /** A 1 KB document and 99 more: the list the throughput runs read. */
  folderId: string;
  documentId: string;
  /** Ten sub folders, for GET /folder/{id}/folders. */
  parentId: string;
  /** Where writes go: creates land here, updates and deletes take documents seeded here. */
  writeFolderId: string;
  /** Where PUT /folder (move) moves folders made in the write folder: beside it, so at the same depth. */
  moveTargetId: string;
  /** Empty until the scale scenario seeds it. */
  bigFolderId: string;
  /** The repository's change feed before any of the fixture's changes (a cursor from `latest`). */
  feedCursor: string;
}

/** Documents the fixture deletes, so that GET /{id}/trash reads a full page of 10 from the start. */
const TRASHED = 10;

export async function makeFixture(caller: Caller): Promise<Fixture> {
  for (const name of ['Archive', 'Zeta']) await createRepository(caller, { name, description: '' });
  const repository = await createRepository(caller, { name: 'Bench', description: 'Benchmark data' });
  const { cursor: feedCursor } = await readChanges(caller, repository.id, { cursor: 'latest', limit: 1 });
  const folder = (name: string, parentId = repository.rootFolderId) => createFolder(caller, { parentId, name });
  const read = await folder('Read');
  const parent = await folder('Parent');
  for (let i = 0; i < 10; i++) await folder(`Child ${i}`, parent.id);
  const document = await createDocument(caller, { folderId: read.id, name: 'one-kb.txt', content: oneKb(), contentType: 'text/plain' });
  await seedDocuments(caller, read.id, 99, 'listed-');
  const writeFolderId = (await folder('Write')).id;
  for (const id of await seedDocuments(caller, writeFolderId, TRASHED, 'trashed-')) await trashDocument(caller, id, {});
  return {
    caller,
    repositoryId: repository.id,
    folderId: read.id,
    documentId: document.id,
    parentId: parent.id,
    writeFolderId,
    moveTargetId: (await folder('Moved here')).id,
    bigFolderId: (await folder('Big')).id,
    feedCursor,
  };
}

/** What one call of an endpoint changes (endpoints.ts: `targets`). */
export type TargetKind =
  /** A 1 KB document in the write folder. */
  | 'document'
  /** A repository of the caller's, its only member. */
  | 'repository'
  /** An empty folder in the write folder. */
  | 'folder'
  /** A folder in the write folder holding one 1 KB document. */
  | 'folder with a document'
  /** A 1 KB document of the write folder, in the fixture repository's trash. */
  | 'trashed document'
  /** A folder of the write folder holding one 1 KB document, in the trash (the document marked by the worker). */
  | 'trashed folder'
  /** A repository of the caller's with one 1 KB document in its trash. */
  | 'repository with a trashed document';

let made = 0;
const unique = () => `${process.hrtime.bigint().toString(36)}-${made++}`;

/** `count` targets of `kind`, each made with the store's own calls (documents seeded in bulk: seed.ts); their ids. */
export async function makeTargets(f: Fixture, kind: TargetKind, count: number): Promise<string[]> {
  const { caller } = f;
  const documents = (n: number, folderId = f.writeFolderId) => seedDocuments(caller, folderId, n, `t${unique()}-`);
  const ids: string[] = [];
  const each = async (make: () => Promise<string>) => {
    for (let n = 0; n < count; n++) ids.push(await make());
    return ids;
  };
  switch (kind) {
    case 'document':
      return documents(count);
    case 'repository':
      return each(async () => (await createRepository(caller, { name: `Target ${unique()}`, description: '' })).id);
    case 'folder':
      return each(async () => (await createFolder(caller, { parentId: f.writeFolderId, name: `Folder ${unique()}` })).id);
    case 'folder with a document':
    case 'trashed folder':
      return each(async () => {
        const { id } = await createFolder(caller, { parentId: f.writeFolderId, name: `Folder ${unique()}` });
        await documents(1, id);
        if (kind === 'trashed folder') await trashFolder(caller, id, {}, { recursive: true });
        return id;
      });
    case 'trashed document':
      for (const id of await documents(count)) {
        await trashDocument(caller, id, {});
        ids.push(id);
      }
      return ids;
    case 'repository with a trashed document':
      return each(async () => {
        const { id } = await createRepository(caller, { name: `Target ${unique()}`, description: '' });
        const [document] = await documents(1, id);
        await trashDocument(caller, document!, {});
        return id;
      });
  }
}

/**
 * A folder tree of the life-cycle scenario, in a repository of its own: two folders side by side
 * under the root (`parents`), and in the first the tree (`root`: `fanOut` sub folders, each with
 * `fanOut` sub folders when `levels` is 2, each leaf holding `perLeaf` 1 KB documents) and an
 * empty folder (`empty`). Moving a folder between the parents keeps its depth.
 */
export interface Tree {
  repositoryId: string;
  parents: [string, string];
  root: string;
  empty: string;
  /** The folders below the root, and the documents. */
  folders: string[];
  documents: string[];
}

export async function makeTree(caller: Caller, name: string, shape: { levels: 1 | 2; fanOut: number; perLeaf: number }): Promise<Tree> {
  const repository = await createRepository(caller, { name, description: 'Folder life cycle' });
  const folder = async (parentId: string, folderName: string) => (await createFolder(caller, { parentId, name: folderName })).id;
  const parents: [string, string] = [await folder(repository.rootFolderId, 'Left'), await folder(repository.rootFolderId, 'Right')];
  const root = await folder(parents[0], 'Tree');
  const empty = await folder(parents[0], 'Empty');
  const folders: string[] = [];
  let leaves: string[] = [root];
  for (let level = 0; level < shape.levels; level++) {
    const next: string[] = [];
    for (const parentId of leaves) for (let i = 0; i < shape.fanOut; i++) next.push(await folder(parentId, `Level ${level + 1} ${i}`));
    folders.push(...next);
    leaves = next;
  }
  const documents = await seedDocuments(caller, (n) => leaves[Math.floor(n / shape.perLeaf)]!, leaves.length * shape.perLeaf, 'doc-');
  return { repositoryId: repository.id, parents, root, empty, folders, documents };
}
