/**
 * The limit for this stack: each endpoint's DynamoDB requests, made directly with the
 * handlers' own DynamoDB client (`db()`) against the same DynamoDB Local, without HTTP, JWT,
 * middy or validation. Reads replay the exact requests the service was recorded making;
 * writes build theirs with the store's own request builders, fresh each time (a replayed
 * conditional write would fail its condition). The capacity scenario checks that both sides
 * send the same sequence of operations.
 */
import { writerRoles } from '#core/auth';
import { newId, now } from '#core/ids';
import { nameKey } from '#core/names';
import {
  attributeIn,
  attributeIs,
  check,
  db,
  getItems,
  idIs,
  itemIsAbsent,
  put,
  remove,
  transactWrite,
  versionIs,
} from '#core/store/client';
import { documentItems } from '#core/store/documents';
import { accessKey, documentKey, entryKey, folderKey, roleAttribute } from '#core/store/keys';
import type { StoredDocument } from '#core/store/records';
import type { Document } from '#core/types';
import type { Recorded } from './recorder';

export { inWaves } from './recorder';

/** Sends the same requests again, in the same waves. */
export async function replay(waves: readonly Recorded[][]): Promise<void> {
  for (const wave of waves) {
    await Promise.all(wave.map((request) => db().send(request.operation, request.input)));
  }
}

export interface WriteContext {
  userId: string;
  repositoryId: string;
  folderId: string;
}

/** POST /document's one transaction (store/documents.ts createDocument). */
export async function createDocument(context: WriteContext, name: string, content: string): Promise<void> {
  const at = now();
  const document: Document = {
    id: newId(),
    repositoryId: context.repositoryId,
    folderId: context.folderId,
    name,
    contentType: 'text/plain',
    content,
    size: Buffer.byteLength(content),
    version: 1,
    createdAt: at,
    createdBy: context.userId,
    updatedAt: at,
    updatedBy: context.userId,
  };
  const items = documentItems(document);
  await transactWrite({
    folder: check(folderKey(context.folderId), attributeIs('repositoryId', context.repositoryId)),
    access: check(accessKey(context.userId), attributeIn(roleAttribute(context.repositoryId), writerRoles), { returnItem: true }),
    document: put(items.document, itemIsAbsent),
    entry: put(items.entry, itemIsAbsent),
    otherName: check(entryKey('folders', context.folderId, nameKey(name)), itemIsAbsent),
  });
}

/** The read every change of a document starts with: the document and the caller's ACCESS. */
async function readDocument(userId: string, id: string): Promise<StoredDocument> {
  const lookup = await getItems([documentKey(id), accessKey(userId)]);
  const stored = lookup(documentKey(id)) as StoredDocument | undefined;
  if (!stored) throw new Error(`baseline: document ${id} is gone`);
  return stored;
}

/** PUT /document with new content: read, then one transaction (store/documents.ts updateDocument). */
export async function updateContent(userId: string, id: string, content: string): Promise<void> {
  const stored = await readDocument(userId, id);
  const { nameKey: _key, ...current } = stored;
  const items = documentItems({ ...current, content, size: Buffer.byteLength(content), version: stored.version + 1, updatedAt: now() });
  await transactWrite({ document: put(items.document, versionIs(stored.version)), entry: put(items.entry, idIs(stored.id)) });
}

/** DELETE /document/{id}: read, then one transaction (store/documents.ts deleteDocument). */
export async function deleteDocument(userId: string, id: string): Promise<void> {
  const stored = await readDocument(userId, id);
  await transactWrite({
    document: remove(documentKey(id), versionIs(stored.version)),
    entry: remove(entryKey('documents', stored.folderId, stored.nameKey), idIs(id)),
  });
}
