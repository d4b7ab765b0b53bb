/**
 * Documents. A document is two items written together: the document with its content
 * (keyed by id, for reads) and its entry in the folder (without content, for lists).
 */
import { authorize } from '../auth';
import { conflict, invalidField, notFound } from '../errors';
import { newId, now } from '../ids';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, Document } from '../types';
import { check, getItems, idIs, itemIsAbsent, optimistically, put, remove, transactWrite, versionIs } from './client';
import { nameTaken } from './folders';
import { accessKey, documentKey, entryKey, folderKey } from './keys';
import { roleIn, toDocument, toDocumentSummary, type StoredDocument } from './records';

/** The two items of a document, as a transaction writes them. */
function documentItems(document: Document) {
  const key = nameKey(document.name);
  return {
    key,
    document: { ...documentKey(document.id), ...document, nameKey: key },
    entry: { ...entryKey('documents', document.folderId, key), ...toDocumentSummary(document), nameKey: key },
  };
}

/** A document and the caller's role in its repository, in one BatchGetItem. */
async function readDocument(caller: Caller, id: string, extraKeys: ReturnType<typeof folderKey>[] = []) {
  const lookup = await getItems([documentKey(id), accessKey(caller.userId), ...extraKeys]);
  const item = lookup(documentKey(id)) as StoredDocument | undefined;
  const role = item ? roleIn(lookup, caller.userId, item.repositoryId) : undefined;
  return { item, role, lookup };
}

export async function getDocument(caller: Caller, id: string): Promise<Document> {
  const { item, role } = await readDocument(caller, id);
  authorize(role, 'read', 'Document');
  return toDocument(item!);
}

export interface NewDocument {
  folderId: string;
  name: string;
  content: string;
  contentType: string;
  id?: string;
}

export function createDocument(caller: Caller, input: NewDocument): Promise<Document> {
  const key = nameKey(input.name);
  return optimistically(async () => {
    const id = input.id ?? newId();
    const lookup = await getItems([
      folderKey(input.folderId),
      accessKey(caller.userId),
      entryKey('folders', input.folderId, key),
      entryKey('documents', input.folderId, key),
      ...(input.id ? [documentKey(input.id)] : []),
    ]);
    const folder = lookup(folderKey(input.folderId));
    authorize(folder && roleIn(lookup, caller.userId, folder.repositoryId as string), 'write', 'Folder');
    if (nameTaken(lookup, input.folderId, key)) throw conflict(`The folder already has an item named "${input.name}".`);
    if (input.id && lookup(documentKey(input.id))) throw conflict(`A document with id "${input.id}" already exists.`);
    const at = now();
    const document: Document = {
      id,
      repositoryId: folder!.repositoryId as string,
      folderId: input.folderId,
      name: input.name,
      contentType: input.contentType,
      content: input.content,
      size: Buffer.byteLength(input.content, 'utf8'),
      version: 1,
      createdAt: at,
      createdBy: caller.userId,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const items = documentItems(document);
    await transactWrite([
      put(items.document, itemIsAbsent),
      put(items.entry, itemIsAbsent),
      check(entryKey('folders', input.folderId, key), itemIsAbsent),
    ]);
    return document;
  });
}

export interface DocumentUpdate {
  id: string;
  name?: string;
  content?: string;
  contentType?: string;
  folderId?: string;
}

export function updateDocument(caller: Caller, changes: DocumentUpdate, precondition: Precondition): Promise<Document> {
  return optimistically(async () => {
    const { item: current, role, lookup } = await readDocument(
      caller,
      changes.id,
      changes.folderId ? [folderKey(changes.folderId)] : [],
    );
    authorize(role, 'write', 'Document');
    const stored = current!;
    checkPrecondition(precondition, stored.version);

    const folderId = changes.folderId ?? stored.folderId;
    if (folderId !== stored.folderId) {
      const target = lookup(folderKey(folderId));
      if (!target || !roleIn(lookup, caller.userId, target.repositoryId as string)) throw notFound('Folder');
      if (target.repositoryId !== stored.repositoryId) {
        throw invalidField('folderId', 'must be a folder of the same repository');
      }
    }
    const content = changes.content ?? stored.content;
    const next: Document = {
      ...toDocument(stored),
      name: changes.name ?? stored.name,
      content,
      contentType: changes.contentType ?? stored.contentType,
      folderId,
      size: Buffer.byteLength(content, 'utf8'),
      version: stored.version + 1,
      updatedAt: now(),
      updatedBy: caller.userId,
    };
    const items = documentItems(next);
    const entryMoves = folderId !== stored.folderId || items.key !== stored.nameKey;

    if (!entryMoves) {
      await transactWrite([put(items.document, versionIs(stored.version)), put(items.entry, idIs(stored.id))]);
      return next;
    }
    // A new name or folder: the name must be free there (a second read, only for renames and moves).
    const target = await getItems([entryKey('folders', folderId, items.key), entryKey('documents', folderId, items.key)]);
    if (nameTaken(target, folderId, items.key)) throw conflict(`The folder already has an item named "${next.name}".`);
    await transactWrite([
      put(items.document, versionIs(stored.version)),
      remove(entryKey('documents', stored.folderId, stored.nameKey), idIs(stored.id)),
      put(items.entry, itemIsAbsent),
      check(entryKey('folders', folderId, items.key), itemIsAbsent),
    ]);
    return next;
  });
}

export function deleteDocument(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const { item: stored, role } = await readDocument(caller, id);
    authorize(role, 'write', 'Document');
    checkPrecondition(precondition, stored!.version);
    await transactWrite([
      remove(documentKey(id), versionIs(stored!.version)),
      remove(entryKey('documents', stored!.folderId, stored!.nameKey), idIs(id)),
    ]);
  });
}
