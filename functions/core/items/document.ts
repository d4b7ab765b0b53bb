/**
 * Documents (`DOC#<id>` / `DOC`). A document is written with its entry in the folder (without
 * content, for lists) and the revision of its version (./revision.ts), in one transaction: no
 * version ever exists without its revision. Content goes into an item of its own only at a
 * version that changed it, so a rename or a move copies nothing. Deleting (to the trash):
 * ../use-cases/trash.ts; restoring a revision: ../use-cases/revisions.ts.
 */

import { ConditionFailed, check, deleteItems, type Item, optimistically, put, transactWrite } from '../db/client';
import { itemIsAbsent } from '../db/conditions';
import { queryPage } from '../db/queries';
import { conflict, notFound } from '../errors';
import { newDocumentId, now } from '../ids';
import { REVISIONS_KEPT } from '../limits';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, ChangeType, Document, DocumentSummary } from '../resources';
import { recordChange } from './change';
import { claimName, entrySteps, nameConflict, nameTaken } from './entry';
import { checkMoveTarget, liveFolderIn, repositoryOfFolder, targetKeys } from './folder';
import { documentKey, documentPartition, folderKey, ITEM_SORT_KEY, type Key, keyOf } from './keys';
import { firstVersion, resourceOf } from './resource-of';
import { revisionSteps } from './revision';
import { ACCESS_STEP, authorized, explainAccess, type Lookup, readWithRole, roleCheck } from './role';
import { liveAtVersion, type TrashMark } from './trash';

/** A document item: the resource, its name key, where its content's revision is, and a trash mark. */
export type StoredDocument = Document & { nameKey: string; contentVersion: number; trash?: TrashMark };

/** The document's entry in its folder: the resource without content. */
export const documentSummary = (document: Document): DocumentSummary => {
  const { content: _, ...summary } = document;
  return summary;
};

/** A document and the caller's role in its repository. A document in the trash is missing. */
export async function readDocument(caller: Caller, id: string, extraKeys: Key[] = []) {
  const { item, role, lookup } = await readWithRole(caller, documentKey(id), id, extraKeys);
  const document = item && !item.trash ? (item as Item & StoredDocument) : undefined;
  return document ? { item: document, role, lookup } : { item: undefined, role: undefined, lookup };
}

export async function getDocument(caller: Caller, id: string): Promise<Document> {
  const { item: stored } = authorized(await readDocument(caller, id), 'read', 'Document');
  return resourceOf<Document>(stored);
}

export interface NewDocument {
  folderId: string;
  name: string;
  content: string;
  contentType: string;
  id?: string;
}

/**
 * One transaction, no read: the folder's condition (there, in the repository its id names, not
 * in the trash) and the caller's role decide 404 and 403, the name entry and a client-chosen
 * id 409.
 */
export async function createDocument(caller: Caller, input: NewDocument): Promise<Document> {
  const key = nameKey(input.name);
  const repositoryId = repositoryOfFolder(input.folderId);
  return optimistically(async () => {
    const at = now();
    const document: Document = {
      id: input.id ?? newDocumentId(repositoryId),
      repositoryId,
      folderId: input.folderId,
      name: input.name,
      contentType: input.contentType,
      content: input.content,
      size: Buffer.byteLength(input.content, 'utf8'),
      ...firstVersion(at, caller.userId),
    };
    try {
      await transactWrite({
        folder: check(folderKey(input.folderId), liveFolderIn(repositoryId)),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        document: put({ ...documentKey(document.id), ...document, nameKey: key, contentVersion: 1 }, itemIsAbsent),
        ...revisionSteps(document, 1),
        ...claimName('documents', input.folderId, key, documentSummary(document)),
        change: recordChange(repositoryId, changeOf('created', document, at, caller)),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      if (error.failed.has('folder')) throw notFound('Folder');
      explainAccess(error, caller, 'write', 'Folder');
      if (nameTaken(error)) throw nameConflict(input.name);
      if (input.id && error.failed.has('document')) throw conflict(`A document with id "${input.id}" already exists.`);
      throw error; // a service-made id clashed (2^-128): try again with a new one
    }
    return document;
  });
}

const changeOf = (type: ChangeType, document: Document, at: string, caller: Caller, previousFolderId?: string) => ({
  type,
  kind: 'document' as const,
  id: document.id,
  folderId: document.folderId,
  ...(previousFolderId ? { previousFolderId } : {}),
  name: document.name,
  version: document.version,
  at,
  by: caller.userId,
});

export interface DocumentUpdate {
  id: string;
  name?: string;
  content?: string;
  contentType?: string;
  folderId?: string;
}

/**
 * Changes that depend on what is read (a revision restore): more items to read with the
 * document, and the changes made from them, decided before the caller's role and the
 * precondition (a missing revision is 404 like a missing document).
 */
export interface DerivedUpdate {
  keys: Key[];
  changes: (stored: StoredDocument, lookup: Lookup) => Promise<Pick<DocumentUpdate, 'content' | 'contentType'>>;
}

/**
 * PUT /document (and a revision restore): one read (the document, the caller's role, the
 * target folder of a move), then one transaction asserting what was read: the version, the
 * entry, the caller still a writer, the folders still there and not in the trash.
 */
export function updateDocument(
  caller: Caller,
  changes: DocumentUpdate,
  precondition: Precondition,
  options: { changeType?: ChangeType; derive?: DerivedUpdate } = {},
): Promise<Document> {
  const { derive } = options;
  return optimistically(async () => {
    const targets = changes.folderId ? targetKeys(caller, changes.folderId) : [];
    const read = await readDocument(caller, changes.id, [...targets, ...(derive?.keys ?? [])]);
    const { lookup } = read;
    const update = derive && read.item && read.role ? { ...changes, ...(await derive.changes(read.item, lookup)) } : changes;
    const { item: stored } = authorized(read, 'write', 'Document');
    checkPrecondition(precondition, stored.version);
    const { repositoryId } = stored;
    const folderId = update.folderId ?? stored.folderId;
    const moving = folderId !== stored.folderId;
    if (moving) checkMoveTarget(caller, lookup, folderId, repositoryId);
    const contentChanged = update.content !== undefined && update.content !== stored.content;
    const content = update.content ?? stored.content;
    const at = now();
    const next: Document = {
      ...resourceOf<Document>(stored),
      name: update.name ?? stored.name,
      content,
      contentType: update.contentType ?? stored.contentType,
      folderId,
      size: Buffer.byteLength(content, 'utf8'),
      version: stored.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const contentVersion = contentChanged ? next.version : stored.contentVersion;
    // Past the revisions it must keep, each write asks the worker to reclaim older ones (filters.ts).
    const prune = next.version > REVISIONS_KEPT ? { pruneRevisions: true } : {};
    const key = nameKey(next.name);
    const renamed = key !== stored.nameKey || next.name !== stored.name;
    const type = options.changeType ?? (moving ? 'moved' : renamed ? 'renamed' : 'updated');
    try {
      await transactWrite({
        document: put({ ...documentKey(next.id), ...next, nameKey: key, contentVersion, ...prune }, liveAtVersion(stored.version)),
        ...revisionSteps(next, contentVersion),
        // The folder it is in (and, for a move, the one it goes to) must not be in the trash.
        folder: check(folderKey(stored.folderId), liveFolderIn(repositoryId)),
        ...(moving ? { target: check(folderKey(folderId), liveFolderIn(repositoryId)) } : {}),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        ...entrySteps('documents', stored, { folderId, nameKey: key, entry: documentSummary(next) }),
        change: recordChange(repositoryId, changeOf(type, next, at, caller, moving ? stored.folderId : undefined)),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      explainAccess(error, caller, 'write', 'Document');
      if (nameTaken(error)) throw nameConflict(next.name);
      // Its folder went to the trash (so did it, even before it is marked), or the target did.
      if (error.failed.has('folder')) throw notFound('Document');
      if (error.failed.has('target')) throw notFound('Folder');
      throw error; // the document or its entry changed since the read: read again
    }
    return next;
  });
}

/** A document's items (the document, its revisions and their content), up to `limit`, and whether that was all. */
export async function readDocumentItems(documentId: string, limit: number) {
  const { items, lastKey } = await queryPage({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': documentPartition(documentId) },
    Limit: limit,
  });
  return { items, complete: lastKey === undefined };
}

/** Whether an item of a document's partition is the document item itself. */
export const isDocumentItem = (item: Item) => item.SK === ITEM_SORT_KEY.document;

/**
 * Deletes documents' items (a purge), each document item last: while it exists its id stays
 * taken, so a client cannot make a new document with that id whose revisions this purge would
 * then delete.
 */
export async function deleteDocumentItems(items: Item[]) {
  await deleteItems(items.filter((item) => !isDocumentItem(item)).map(keyOf));
  await deleteItems(items.filter(isDocumentItem).map(keyOf));
}

// TEMPORARY (lead, until the content-model branch lands): the signature the uploads code uses.
export interface FileVersion {
  objectKey: string;
  size: number;
  sha256: string;
  contentType: string;
}
export type VersionTarget =
  | { kind: 'create'; folderId: string; name: string; id: string }
  | { kind: 'update'; documentId: string; expectedVersion?: number };
export function writeFileVersion(
  _caller: Caller,
  _target: VersionTarget,
  _file: FileVersion,
  _options: { reserved: boolean; extra?: (document: Document) => Record<string, import('../db/client').TransactItem> },
): Promise<Document> {
  throw new Error('writeFileVersion: not yet merged');
}
