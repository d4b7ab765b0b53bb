/**
 * Documents. A document is two items written together: the document with its content
 * (keyed by id, for reads) and its entry in the folder (without content, for lists).
 */
import { authorize } from '#core/auth';
import { conflict, invalidField, notFound } from '#core/errors';
import { newId, now } from '#core/ids';
import { nameKey } from '#core/names';
import { checkPrecondition, type Precondition } from '#core/preconditions';
import type { Caller, Document, DocumentSummary } from '#core/resources';
import { ConditionFailed, check, getItems, idIs, itemIsAbsent, optimistically, put, remove, transactWrite, versionIs } from './client';
import { intoFolder, nameClash, whyRefused } from './folders';
import { accessKey, documentKey, entryKey, folderKey } from './keys';
import { resourceOf, roleIn } from './records';

type StoredDocument = Document & { nameKey: string };

/** The two items of a document, as a transaction writes them. */
function documentItems(document: Document) {
  const key = nameKey(document.name);
  const { content: _, ...summary } = document;
  return {
    key,
    document: { ...documentKey(document.id), ...document, nameKey: key },
    entry: { ...entryKey('documents', document.folderId, key), ...(summary satisfies DocumentSummary), nameKey: key },
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
  return resourceOf<Document>(item!);
}

export interface NewDocument {
  folderId: string;
  name: string;
  content: string;
  contentType: string;
  id?: string;
}

/**
 * One transaction, no read: the folder and role conditions (intoFolder) decide 404 and 403,
 * the name entry's and the document's absence 409.
 */
export function createDocument(caller: Caller, input: NewDocument): Promise<Document> {
  const key = nameKey(input.name);
  return optimistically(async () => {
    const { repositoryId, conditions } = intoFolder(caller, input.folderId);
    const at = now();
    const document: Document = {
      id: input.id ?? newId(),
      repositoryId,
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
    try {
      await transactWrite({
        ...conditions,
        document: put(items.document, itemIsAbsent),
        entry: put(items.entry, itemIsAbsent),
        otherName: check(entryKey('folders', input.folderId, key), itemIsAbsent),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      whyRefused(error, repositoryId);
      if (nameClash(error)) throw conflict(`The folder already has an item named "${input.name}".`);
      if (input.id && error.failed.has('document')) throw conflict(`A document with id "${input.id}" already exists.`);
      throw error; // a service-made id clashed (2^-128): try again with a new one
    }
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
    const { item: current, role, lookup } = await readDocument(caller, changes.id, changes.folderId ? [folderKey(changes.folderId)] : []);
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
      ...resourceOf<Document>(stored),
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
      await transactWrite({ document: put(items.document, versionIs(stored.version)), entry: put(items.entry, idIs(stored.id)) });
      return next;
    }
    // A new name or folder: the entry moves, and the name must be free where it lands. The
    // transaction's conditions say so; no read of the target's names first.
    try {
      await transactWrite({
        document: put(items.document, versionIs(stored.version)),
        oldEntry: remove(entryKey('documents', stored.folderId, stored.nameKey), idIs(stored.id)),
        entry: put(items.entry, itemIsAbsent),
        otherName: check(entryKey('folders', folderId, items.key), itemIsAbsent),
      });
    } catch (error) {
      // Only a clash with the name decides here; a changed document means read it again.
      const changed = error instanceof ConditionFailed && (error.failed.has('document') || error.failed.has('oldEntry'));
      if (error instanceof ConditionFailed && !changed) throw conflict(`The folder already has an item named "${next.name}".`);
      throw error;
    }
    return next;
  });
}

export function deleteDocument(caller: Caller, id: string, precondition: Precondition): Promise<void> {
  return optimistically(async () => {
    const { item: stored, role } = await readDocument(caller, id);
    authorize(role, 'write', 'Document');
    checkPrecondition(precondition, stored!.version);
    await transactWrite({
      document: remove(documentKey(id), versionIs(stored!.version)),
      entry: remove(entryKey('documents', stored!.folderId, stored!.nameKey), idIs(id)),
    });
  });
}
