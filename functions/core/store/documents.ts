/**
 * Documents. A document is written with its entry in the folder (without content, for lists)
 * and the revision of its version, in one transaction: no version ever exists without its
 * revision. A revision is a small item (its metadata, and `contentVersion`: the version whose
 * content it has); content goes into an item of its own only at a version that changed it, so a
 * rename or a move copies nothing, and listing revisions never reads content.
 */
import { authorize } from '../auth';
import { conflict, notFound } from '../errors';
import { newDocumentId, now } from '../ids';
import { REVISIONS_KEPT } from '../limits';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, ChangeType, Document, DocumentSummary } from '../resources';
import { ACCESS_STEP, explainAccess, readWithRole, roleCheck } from './access';
import { recordChange } from './changes';
import { type Condition, ConditionFailed, check, type Item, itemIsAbsent, optimistically, put, remove, transactWrite } from './client';
import { claimName, liveFolderIn, nameConflict, nameTaken, repositoryOfFolder, type TrashMark } from './folders';
import { contentKey, documentKey, entryKey, folderKey, type Key, revisionKey } from './keys';
import { checkMoveTarget, targetKeys } from './move-target';
import { resourceOf } from './records';

/** A document item: the resource, its name key, where its content's revision is, and a trash mark. */
export type StoredDocument = Document & { nameKey: string; contentVersion: number; trash?: TrashMark };

/** The document's entry in its folder: the resource without content. */
const entryOf = (document: Document): DocumentSummary => {
  const { content: _, ...summary } = document;
  return summary;
};

/** The steps that write a version's revision, and its content when the content changed at it. */
export const revisionSteps = (document: Document, contentVersion: number) => ({
  revision: put({
    ...revisionKey(document.id, document.version),
    version: document.version,
    name: document.name,
    contentType: document.contentType,
    size: document.size,
    updatedAt: document.updatedAt,
    updatedBy: document.updatedBy,
    contentVersion,
  }),
  ...(contentVersion === document.version
    ? { content: put({ ...contentKey(document.id, document.version), content: document.content }) }
    : {}),
});

/** A document and the caller's role in its repository. A document in the trash is missing. */
export async function readDocument(caller: Caller, id: string, extraKeys: Key[] = []) {
  const { item, role, lookup } = await readWithRole(caller, documentKey(id), id, extraKeys);
  const stored = item && !item.trash ? (item as Item & StoredDocument) : undefined;
  return { stored, role: stored ? role : undefined, lookup };
}

export async function getDocument(caller: Caller, id: string): Promise<Document> {
  const { stored, role } = await readDocument(caller, id);
  authorize(role, 'read', 'Document');
  return resourceOf<Document>(stored!);
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
      version: 1,
      createdAt: at,
      createdBy: caller.userId,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    try {
      await transactWrite({
        folder: check(folderKey(input.folderId), liveFolderIn(repositoryId)),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        document: put({ ...documentKey(document.id), ...document, nameKey: key, contentVersion: 1 }, itemIsAbsent),
        ...revisionSteps(document, 1),
        ...claimName('documents', input.folderId, key, entryOf(document)),
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
  changes: (stored: StoredDocument, lookup: (key: Key) => Item | undefined) => Promise<Pick<DocumentUpdate, 'content' | 'contentType'>>;
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
    const { stored, role, lookup } = await readDocument(caller, changes.id, [...targets, ...(derive?.keys ?? [])]);
    const update = derive && stored && role ? { ...changes, ...(await derive.changes(stored, lookup)) } : changes;
    authorize(role, 'write', 'Document');
    checkPrecondition(precondition, stored!.version);
    const { repositoryId } = stored!;
    const folderId = update.folderId ?? stored!.folderId;
    const moving = folderId !== stored!.folderId;
    if (moving) checkMoveTarget(caller, lookup, folderId, repositoryId);
    const contentChanged = update.content !== undefined && update.content !== stored!.content;
    const content = update.content ?? stored!.content;
    const at = now();
    const next: Document = {
      ...resourceOf<Document>(stored!),
      name: update.name ?? stored!.name,
      content,
      contentType: update.contentType ?? stored!.contentType,
      folderId,
      size: Buffer.byteLength(content, 'utf8'),
      version: stored!.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const contentVersion = contentChanged ? next.version : stored!.contentVersion;
    // Past the revisions it must keep, each write asks the worker to reclaim older ones (filters.ts).
    const prune = next.version > REVISIONS_KEPT ? { pruneRevisions: true } : {};
    const key = nameKey(next.name);
    const renamed = key !== stored!.nameKey || next.name !== stored!.name;
    const entryMoves = moving || key !== stored!.nameKey;
    const type = options.changeType ?? (moving ? 'moved' : renamed ? 'renamed' : 'updated');
    try {
      await transactWrite({
        document: put({ ...documentKey(next.id), ...next, nameKey: key, contentVersion, ...prune }, versionIs(stored!.version)),
        ...revisionSteps(next, contentVersion),
        // The folder it is in (and, for a move, the one it goes to) must not be in the trash.
        folder: check(folderKey(stored!.folderId), liveFolderIn(repositoryId)),
        ...(moving ? { target: check(folderKey(folderId), liveFolderIn(repositoryId)) } : {}),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        ...(entryMoves
          ? {
              oldEntry: remove(entryKey('documents', stored!.folderId, stored!.nameKey), idIs(stored!.id)),
              ...claimName('documents', folderId, key, entryOf(next)),
            }
          : { sameEntry: put({ ...entryKey('documents', folderId, key), ...entryOf(next), nameKey: key }, idIs(stored!.id)) }),
        change: recordChange(repositoryId, changeOf(type, next, at, caller, moving ? stored!.folderId : undefined)),
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

const versionIs = (version: number): Condition => ({
  expression: '#version = :version AND attribute_not_exists(#trash)',
  names: { '#version': 'version', '#trash': 'trash' },
  values: { ':version': version },
});
const idIs = (id: string): Condition => ({ expression: '#id = :id', names: { '#id': 'id' }, values: { ':id': id } });
