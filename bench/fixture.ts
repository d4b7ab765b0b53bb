/**
 * The data every scenario works on, made in the service process with the store's own calls;
 * plain ids, so it travels to the runner over IPC.
 */
import type { Caller } from '#core/resources';
import { createDocument } from '#core/store/documents';
import { createFolder } from '#core/store/folders';
import { createRepository } from '#core/store/repositories';
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
  /** Empty until the scale scenario seeds it. */
  bigFolderId: string;
}

export async function makeFixture(caller: Caller): Promise<Fixture> {
  for (const name of ['Archive', 'Zeta']) await createRepository(caller, { name, description: '' });
  const repository = await createRepository(caller, { name: 'Bench', description: 'Benchmark data' });
  const folder = (name: string, parentId = repository.rootFolderId) => createFolder(caller, { parentId, name });
  const read = await folder('Read');
  const parent = await folder('Parent');
  for (let i = 0; i < 10; i++) await folder(`Child ${i}`, parent.id);
  const document = await createDocument(caller, { folderId: read.id, name: 'one-kb.txt', content: oneKb(), contentType: 'text/plain' });
  await seedDocuments(caller, read.id, 99, 'listed-');
  return {
    caller,
    repositoryId: repository.id,
    folderId: read.id,
    documentId: document.id,
    parentId: parent.id,
    writeFolderId: (await folder('Write')).id,
    bigFolderId: (await folder('Big')).id,
  };
}
