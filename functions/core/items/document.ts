/**
 * Documents (`DOC#<id>` / `DOC`). A document is written with its entry in the folder (the
 * metadata, for lists), the revision of the version it replaces (./revision.ts: the current
 * version's revision is the `DOC` item itself) and the usage of its repository (./usage.ts:
 * every version counts its `size`), in one transaction: no version ever exists without its
 * revision.
 *
 * Where the current content is (`currentContentKeyOf`, `currentContentOf`): inline text stays in
 * the `DOC` item while that item fits one strongly consistent read unit (4 KB, attribute names
 * included), so reading a small document is the document and the role, two items; a file's
 * object is named by `objectKey` in the `DOC` item. Larger text is in `CONTENT#<v>`, written by
 * the version `v` that set it, so a rename or a move of a large document copies nothing. Content
 * the `DOC` item holds gets its `CONTENT#<v>` only once it stops being current (the version that
 * replaces it writes it, from the item it read): a text or an object is never written twice by one
 * version. `CONTENT#<v>` items are kept with the revisions that name them (./revision.ts).
 * Deleting (to the trash): ../use-cases/trash.ts; restoring a revision: ../use-cases/revisions.ts.
 */
import { createHash } from 'node:crypto';
import { ConditionFailed, check, getItems, type Item, optimistically, put, type TransactItem, transactWrite } from '../db/client';
import { allOf, itemExists, itemIsAbsent } from '../db/conditions';
import { itemSize } from '../db/item-size';
import { queryPage } from '../db/queries';
import { conflict, notFound } from '../errors';
import { newDocumentId, now, repositoryOf } from '../ids';
import { REVISIONS_KEPT } from '../limits';
import { nameKey } from '../names';
import { checkPrecondition, type Precondition } from '../preconditions';
import type { Caller, ChangeType, Document, DocumentSummary, Storage } from '../resources';
import { recordChange } from './change';
import { claimName, entrySteps, nameConflict, nameTaken } from './entry';
import { checkMoveTarget, liveFolderIn, repositoryOfFolder, type StoredFolder, targetKeys } from './folder';
import { contentKey, documentKey, documentPartition, entryKey, folderKey, ITEM_SORT_KEY, type Key, usageKey } from './keys';
import { firstVersion, resourceOf } from './resource-of';
import { type CurrentVersion, replacedRevisionSteps } from './revision';
import { ACCESS_STEP, authorized, explainAccess, type Lookup, readWithRole, roleCheck } from './role';
import { liveAtVersion, type TrashMark } from './trash';
import { addUsageStep, keptBytesAre, quotaExceeded, quotaReached, USAGE_STEP, usageOf } from './usage';

/**
 * A document item: the resource, with its inline text while the item fits one read unit
 * (`content`), its name key, the version whose content is current (`contentVersion`), the sum of
 * the sizes of its kept revisions (`keptBytes`), a file's object (`objectKey`), and a trash mark.
 */
export type StoredDocument = Omit<Document, 'content'> & {
  content?: string;
  nameKey: string;
  contentVersion: number;
  keptBytes: number;
  objectKey?: string;
  trash?: TrashMark;
};

/** The document's entry in its folder: the resource without content. */
export const documentSummary = (document: Document | StoredDocument): DocumentSummary => {
  const { content: _, ...summary } = resourceOf<Document>(document as Item);
  return summary;
};

/** The lowercase hex SHA-256 of bytes, or of text's UTF-8. */
export const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A version's content as the document and revision items record it (`content` inline, `objectKey` a file). */
export interface VersionContent {
  storage: Storage;
  contentType: string;
  size: number;
  sha256: string;
  content?: string;
  objectKey?: string;
}

export const inlineContent = (content: string, contentType: string): VersionContent => ({
  storage: 'inline',
  contentType,
  size: Buffer.byteLength(content, 'utf8'),
  sha256: sha256Hex(content),
  content,
});

/** A file already in the bucket, as a new version names it. */
export interface FileVersion {
  objectKey: string;
  size: number;
  sha256: string;
  contentType: string;
}

const fileContent = (file: FileVersion): VersionContent => ({ storage: 'file', ...file });

/** A document and the caller's role in its repository. A document in the trash is missing. */
export async function readDocument(caller: Caller, id: string, extraKeys: Key[] = []) {
  const { item, role, lookup } = await readWithRole(caller, documentKey(id), id, extraKeys);
  const document = item && !item.trash ? (item as Item & StoredDocument) : undefined;
  return document ? { item: document, role, lookup } : { item: undefined, role: undefined, lookup };
}

/**
 * The largest `DOC` item that holds its inline text: one strongly consistent read unit. Sizes
 * are DynamoDB's (attribute names and values, ../db/item-size.ts; "Item sizes and formats",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
 */
export const DOCUMENT_ITEM_BYTES = 4096;

/**
 * The item to read for a document's current text when its `DOC` item does not hold it (text
 * larger than the item may be); undefined when the item is enough (small text, a file).
 */
export const currentContentKeyOf = (document: Pick<StoredDocument, 'id' | 'storage' | 'contentVersion' | 'content'>): Key | undefined =>
  document.storage === 'inline' && typeof document.content !== 'string' ? contentKey(document.id, document.contentVersion) : undefined;

/**
 * A document's current content from its items: the `DOC` item, and the content item
 * `currentContentKeyOf` names when there is one (a stream record of it does as well). Inline
 * text, or a file's object. The one place that knows where current content lives: reads, the
 * answers of writes, and anything that indexes documents use it.
 */
export function currentContentOf(
  document: Pick<StoredDocument, 'id' | 'storage' | 'contentVersion' | 'content' | 'objectKey'>,
  contentItem?: Item,
): { content: string } | { objectKey: string } | undefined {
  if (document.storage === 'file') return document.objectKey ? { objectKey: document.objectKey } : undefined;
  if (typeof document.content === 'string') return { content: document.content };
  return typeof contentItem?.content === 'string' ? { content: contentItem.content } : undefined;
}

/** The current version as the document item holds it: its revision (./revision.ts), and its content unless large text. */
export const currentVersionOf = (stored: StoredDocument): CurrentVersion => ({
  metadata: stored,
  content: currentContentKeyOf(stored) ? undefined : currentContentOf(stored),
});

/**
 * The resource of a stored document with its current content: from what was read with it, or
 * one more read (large text; missing only if a newer version was written and its older content
 * pruned since the document was read: ConditionFailed, and `optimistically` reads again).
 */
export async function documentWithContent(stored: StoredDocument, lookup: Lookup = () => undefined): Promise<Document> {
  const { content: _, ...resource } = resourceOf<Document>(stored as Item);
  if (stored.storage !== 'inline') return resource;
  const key = currentContentKeyOf(stored);
  const found = currentContentOf(stored, key && (lookup(key) ?? (await getItems([key]))(key)));
  if (!found || !('content' in found)) throw new ConditionFailed(new Set(['content']), {});
  return { ...resource, content: found.content };
}

/** GET /document/{id}: the document with its content and the caller's role; one BatchGetItem, one read more for large text. */
export function getDocument(caller: Caller, id: string): Promise<Document> {
  return optimistically(async () => {
    const read = await readDocument(caller, id);
    return documentWithContent(authorized(read, 'read', 'Document').item, read.lookup);
  });
}

/** GET /document/{id}/content: the document, its inline content (if any) and the caller's role, as GET /document/{id} reads them. */
export function readDocumentContent(caller: Caller, id: string): Promise<{ document: Document; objectKey?: string }> {
  return optimistically(async () => {
    const read = await readDocument(caller, id);
    const { item: stored } = authorized(read, 'read', 'Document');
    const document = await documentWithContent(stored, read.lookup);
    return { document, ...(stored.objectKey ? { objectKey: stored.objectKey } : {}) };
  });
}

/**
 * A document as a share link reads it (./link.ts): its item, read in the link's own
 * BatchGetItem; the live document among what was read (none: missing, or in the trash); then,
 * once the link is known good, the resource (with its text when `content`: one read more for
 * large text, as `GET /document/{id}/content`) and its file's object.
 */
export const sharedDocumentKeys = (id: string): Key[] => [documentKey(id)];
export function liveDocumentIn(lookup: Lookup, id: string): StoredDocument | undefined {
  const stored = lookup(documentKey(id)) as (Item & StoredDocument) | undefined;
  return stored && !stored.trash ? stored : undefined;
}
export async function sharedDocumentOf(
  stored: StoredDocument,
  lookup: Lookup,
  options: { content: boolean },
): Promise<{ document: Document; objectKey?: string }> {
  const { content: _, ...metadata } = resourceOf<Document>(stored as Item);
  const document = options.content ? await documentWithContent(stored, lookup) : metadata;
  return { document, ...(stored.objectKey ? { objectKey: stored.objectKey } : {}) };
}
/** A transaction step: the document exists and is not in the trash (a share link is made only for such). */
export const documentIsLive = (id: string): TransactItem =>
  check(documentKey(id), { expression: 'attribute_exists(PK) AND attribute_not_exists(#trash)', names: { '#trash': 'trash' } });

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

/** What the `DOC` item of a version records besides the resource. */
interface DocumentExtra {
  nameKey: string;
  contentVersion: number;
  keptBytes: number;
  objectKey?: string;
  pruneRevisions?: true;
}

/**
 * The `DOC` item of a version: with its inline text while the item fits one read unit. Text the
 * item held before stays in it while it fits; text in a content item of its own stays there
 * until a version changes it (`mayHold`: the text is new, or the item held it).
 */
function documentItem(document: Document, extra: DocumentExtra, mayHold: boolean): Item & StoredDocument {
  const { content, ...metadata } = document;
  const { objectKey, pruneRevisions, ...rest } = extra;
  const item = {
    ...documentKey(document.id),
    ...metadata,
    ...rest,
    ...(objectKey ? { objectKey } : {}),
    ...(pruneRevisions ? { pruneRevisions } : {}),
  };
  const holding = { ...item, content };
  return content !== undefined && mayHold && itemSize(holding) <= DOCUMENT_ITEM_BYTES ? holding : item;
}

/**
 * The content items a version writes: the content the `DOC` item held, once it is no longer there
 * (replaced, or grown out of the item by a longer name), in `CONTENT#<the version that set it>`;
 * and new text the item cannot hold, in `CONTENT#<this version>`. Nothing else: a file's object
 * and small text are in the `DOC` item until replaced.
 */
function contentSteps(
  next: Item & StoredDocument,
  text: string | undefined,
  stored: StoredDocument | undefined,
  changed: boolean,
): Record<string, TransactItem> {
  const held = stored && currentContentKeyOf(stored) === undefined ? currentContentOf(stored) : undefined;
  const leaves = changed || (held && 'content' in held && typeof next.content !== 'string');
  return {
    ...(stored && held && leaves ? { previous: put({ ...contentKey(stored.id, stored.contentVersion), ...held }) } : {}),
    ...(changed && currentContentKeyOf(next) ? { content: put({ ...contentKey(next.id, next.contentVersion), content: text }) } : {}),
  };
}

/** What a version write does to the repository's usage: adds the version's size within the quota, or nothing (reserved before). */
export interface UsageOptions {
  /** The bytes were reserved at upload start (./usage.ts): the usage is not changed. */
  reserved: boolean;
  /**
   * More steps for the same transaction, made from the version written (an upload's completion
   * records the Document it made); one that fails is thrown as ExtraStepFailed, before any other
   * explanation and without the retries a failed condition of the version's own steps gets.
   */
  extra?: (document: Document) => Record<string, TransactItem>;
}

/** One of the caller's `extra` steps failed its condition (the caller decides what that means). */
export class ExtraStepFailed extends Error {
  constructor(readonly failure: ConditionFailed) {
    super(failure.message);
    this.name = 'ExtraStepFailed';
  }
}

const usageSteps = (repositoryId: string, document: Document, options: UsageOptions) => ({
  ...(options.reserved ? {} : { [USAGE_STEP]: addUsageStep(repositoryId, document.size) }),
  ...options.extra?.(document),
});

/** Throws a failed condition of the caller's own steps as ExtraStepFailed, before anything explains it. */
function rethrowExtra(error: ConditionFailed, document: Document, options: UsageOptions) {
  if (options.extra && Object.keys(options.extra(document)).some((step) => error.failed.has(step))) throw new ExtraStepFailed(error);
}

// ---------------------------------------------------------------------------------------------
// A new document.

export interface NewDocument {
  folderId: string;
  name: string;
  content: string;
  contentType: string;
  id?: string;
}

/**
 * POST /document. One transaction, no read: the folder's condition (there, in the repository its
 * id names, not in the trash) and the caller's role decide 404 and 403, the name entry and a
 * client-chosen id 409, the usage 409 `quota-exceeded`.
 */
export function createDocument(caller: Caller, input: NewDocument): Promise<Document> {
  return createVersion(caller, input, inlineContent(input.content, input.contentType), { reserved: false });
}

async function createVersion(
  caller: Caller,
  input: { folderId: string; name: string; id?: string },
  content: VersionContent,
  options: UsageOptions,
): Promise<Document> {
  const key = nameKey(input.name);
  const repositoryId = repositoryOfFolder(input.folderId);
  return optimistically(async () => {
    const at = now();
    const { content: text, objectKey, ...metadata } = content;
    const document: Document = {
      id: input.id ?? newDocumentId(repositoryId),
      repositoryId,
      folderId: input.folderId,
      name: input.name,
      ...metadata,
      ...(text === undefined ? {} : { content: text }),
      ...firstVersion(at, caller.userId),
    };
    const item = documentItem(document, { nameKey: key, contentVersion: 1, keptBytes: content.size, objectKey }, true);
    try {
      await transactWrite({
        folder: check(folderKey(input.folderId), liveFolderIn(repositoryId)),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        document: put(item, itemIsAbsent),
        ...contentSteps(item, text, undefined, true),
        ...claimName('documents', input.folderId, key, documentSummary(document)),
        ...usageSteps(repositoryId, document, options),
        change: recordChange(repositoryId, changeOf('created', document, at, caller)),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      rethrowExtra(error, document, options);
      if (error.failed.has('folder')) throw notFound('Folder');
      explainAccess(error, caller, 'write', 'Folder');
      if (nameTaken(error)) throw nameConflict(input.name);
      if (input.id && error.failed.has('document')) throw conflict(`A document with id "${input.id}" already exists.`);
      if (quotaReached(error)) throw quotaExceeded(content.size);
      throw error; // a service-made id clashed (2^-128): try again with a new one
    }
    return document;
  });
}

// ---------------------------------------------------------------------------------------------
// A new version of a document.

export interface DocumentUpdate {
  id: string;
  name?: string;
  content?: string;
  contentType?: string;
  folderId?: string;
}

/** What a new version changes: its place and name, its content type, its content (absent: the content stays). */
interface VersionChange {
  name?: string;
  folderId?: string;
  contentType?: string;
  content?: VersionContent;
  /** Steps asserting what the new content is made of is still there (a restored file's content item). */
  checks?: Record<string, TransactItem>;
}

/**
 * Changes that depend on what is read (a revision restore): more items to read with the
 * document, and the change made from them, decided before the caller's role and the
 * precondition (a missing revision is 404 like a missing document).
 */
export interface DerivedUpdate {
  keys: Key[];
  changes: (stored: StoredDocument, lookup: Lookup) => Promise<VersionChange>;
}

/**
 * PUT /document (and a revision restore): one read (the document, the caller's role, the
 * target folder of a move; large text the answer keeps: one read more), then one transaction
 * asserting what was read: the version, the entry, the caller still a writer, the folders still
 * there and not in the trash, the usage within the quota. `content` makes the document inline
 * text (a file document too).
 */
export function updateDocument(
  caller: Caller,
  changes: DocumentUpdate,
  precondition: Precondition,
  options: { changeType?: ChangeType; derive?: DerivedUpdate } = {},
): Promise<Document> {
  const { content, ...rest } = changes;
  return writeUpdate(caller, changes.id, precondition, {
    changeType: options.changeType,
    keys: [...(changes.folderId ? targetKeys(caller, changes.folderId) : []), ...(options.derive?.keys ?? [])],
    change: async (stored, lookup) => {
      const contentType = rest.contentType ?? stored.contentType;
      const derived = options.derive ? await options.derive.changes(stored, lookup) : {};
      return { ...rest, ...(content === undefined ? {} : { content: inlineContent(content, contentType) }), ...derived };
    },
    usage: { reserved: false },
  });
}

/** The new content is the stored one (so the new version shares its content item). */
const sameContent = (stored: StoredDocument, content: VersionContent) =>
  content.storage === stored.storage &&
  (content.storage === 'file' ? content.objectKey === stored.objectKey : content.sha256 === stored.sha256);

async function writeUpdate(
  caller: Caller,
  documentId: string,
  precondition: Precondition,
  spec: {
    changeType?: ChangeType;
    keys: Key[];
    change: (stored: StoredDocument, lookup: Lookup) => Promise<VersionChange>;
    usage: UsageOptions;
  },
): Promise<Document> {
  return optimistically(async () => {
    const read = await readDocument(caller, documentId, spec.keys);
    const { lookup } = read;
    const change = read.item && read.role ? await spec.change(read.item, lookup) : {};
    const { item: stored } = authorized(read, 'write', 'Document');
    checkPrecondition(precondition, stored.version);
    const { repositoryId } = stored;
    const folderId = change.folderId ?? stored.folderId;
    const moving = folderId !== stored.folderId;
    if (moving) checkMoveTarget(caller, lookup, folderId, repositoryId);
    const contentChanged = change.content !== undefined && !sameContent(stored, change.content);
    const kept = contentChanged ? undefined : await documentWithContent(stored, lookup);
    const current: VersionContent = contentChanged
      ? change.content!
      : {
          storage: stored.storage,
          contentType: stored.contentType,
          size: stored.size,
          sha256: stored.sha256,
          ...(stored.objectKey ? { objectKey: stored.objectKey } : {}),
          ...(kept?.content === undefined ? {} : { content: kept.content }),
        };
    const at = now();
    const { content: text, objectKey, ...metadata } = current;
    const { content: _, ...resource } = resourceOf<Document>(stored as Item);
    const next: Document = {
      ...resource,
      name: change.name ?? stored.name,
      ...metadata,
      contentType: change.contentType ?? change.content?.contentType ?? stored.contentType,
      ...(text === undefined ? {} : { content: text }),
      folderId,
      version: stored.version + 1,
      updatedAt: at,
      updatedBy: caller.userId,
    };
    const contentVersion = contentChanged ? next.version : stored.contentVersion;
    // Past the revisions it must keep, each write asks the worker to reclaim older ones (filters.ts).
    const prune = next.version > REVISIONS_KEPT ? { pruneRevisions: true as const } : {};
    const key = nameKey(next.name);
    const renamed = key !== stored.nameKey || next.name !== stored.name;
    const type = spec.changeType ?? (moving ? 'moved' : renamed ? 'renamed' : 'updated');
    const keptBytes = (stored.keptBytes ?? 0) + next.size;
    const mayHold = contentChanged || currentContentKeyOf(stored) === undefined;
    const item = documentItem(next, { nameKey: key, contentVersion, keptBytes, objectKey, ...prune }, mayHold);
    try {
      await transactWrite({
        document: put(item, allOf(liveAtVersion(stored.version), keptBytesAre(stored))),
        // The version replaced gets its revision item; the new one's is the document item itself.
        ...replacedRevisionSteps(stored),
        ...contentSteps(item, text, stored, contentChanged),
        ...change.checks,
        // The folder it is in (and, for a move, the one it goes to) must not be in the trash.
        folder: check(folderKey(stored.folderId), liveFolderIn(repositoryId)),
        ...(moving ? { target: check(folderKey(folderId), liveFolderIn(repositoryId)) } : {}),
        [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
        ...entrySteps('documents', stored, { folderId, nameKey: key, entry: documentSummary(next) }),
        ...usageSteps(repositoryId, next, spec.usage),
        change: recordChange(repositoryId, changeOf(type, next, at, caller, moving ? stored.folderId : undefined)),
      });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      rethrowExtra(error, next, spec.usage);
      explainAccess(error, caller, 'write', 'Document');
      if (nameTaken(error)) throw nameConflict(next.name);
      // Its folder went to the trash (so did it, even before it is marked), or the target did.
      if (error.failed.has('folder')) throw notFound('Document');
      if (error.failed.has('target')) throw notFound('Folder');
      // What the new content was made of is gone (a revision pruned meanwhile).
      if (change.checks && Object.keys(change.checks).some((step) => error.failed.has(step))) throw notFound('Revision');
      const changedMeanwhile = ['document', 'sameEntry', 'oldEntry'].some((step) => error.failed.has(step));
      if (quotaReached(error) && !changedMeanwhile) throw quotaExceeded(next.size);
      throw error; // the document or its entry changed since the read: read again
    }
    return next;
  });
}

/** The items of `lookup` and these keys, read now. */
async function readMore(lookup: Lookup, keys: Key[]): Promise<Lookup> {
  const missing = keys.filter((key) => lookup(key) === undefined);
  if (missing.length === 0) return lookup;
  const more = await getItems(missing);
  return (key) => lookup(key) ?? more(key);
}

// ---------------------------------------------------------------------------------------------
// File versions (docs/api.md: Files): a raw PUT of the content, an upload's completion.

/** What a new file version makes: a new document in a folder, or a new version of one. */
export type VersionTarget =
  | { kind: 'create'; folderId: string; name: string; id: string }
  | { kind: 'update'; documentId: string; expectedVersion?: number };

/**
 * Writes a new version whose content is a file already in the bucket, in one transaction, as createDocument /
 * updateDocument write theirs: DOC (storage 'file', objectKey, size, sha256, contentType, contentVersion = the new
 * version, keptBytes + size), the replaced version's REV# and the content it held (CONTENT#<its version>), the
 * folder entry, the folder live-check, the caller's role check (write), the change (`created` / `updated`).
 * Usage: with `reserved: true` USAGE is not changed (the bytes were reserved at upload start), else ADD size with
 * the quota condition. `extra` steps go into the same transaction; if any of them fails its condition, the
 * ConditionFailed error is rethrown first, before any other explanation (the caller decides what it means).
 * Errors otherwise as the JSON writes: 404 folder/document (also in the trash), 403, 409 name, 412 expectedVersion, 409 quota.
 */
export function writeFileVersion(caller: Caller, target: VersionTarget, file: FileVersion, options: UsageOptions): Promise<Document> {
  if (target.kind === 'create') return createVersion(caller, target, fileContent(file), options);
  const precondition: Precondition = target.expectedVersion === undefined ? {} : { version: target.expectedVersion };
  return writeFileContent(caller, target.documentId, file, precondition, options);
}

/** A new version of a document whose content is a file already in the bucket, on `precondition` (`If-Match`). */
export function writeFileContent(
  caller: Caller,
  documentId: string,
  file: FileVersion,
  precondition: Precondition,
  options: UsageOptions = { reserved: false },
): Promise<Document> {
  return writeUpdate(caller, documentId, precondition, {
    changeType: 'updated',
    keys: [],
    change: async () => ({ content: fileContent(file) }),
    usage: options,
  });
}

/** What readVersionTarget found: where the version goes, and the repository's usage as read. */
export interface VersionTargetRead {
  repositoryId: string;
  /** The document the version makes (the target's `id`) or updates. */
  documentId: string;
  folderId: string;
  /** The document's name (a new one's, or the one it has). */
  name: string;
  /** The document's current version (an update). */
  version?: number;
  usage: { bytes: number; quota: number };
}

/**
 * What an upload checks at its start, before any byte (docs/api.md: Files), in one BatchGetItem
 * (two for a client-chosen document id, whose repository its id does not say): the folder or
 * document (404, also in the trash), the caller's role (403; not a member: 404), for a new
 * document the name free in the folder (409) and its id unused (409), for a new version
 * `expectedVersion` (412); and the repository's usage, which the caller compares with the
 * size it will reserve (`usage.bytes + size > usage.quota`: 409 `quota-exceeded`, ./usage.ts).
 * A document whose folder went to the trash without it being marked yet is found here; the
 * version's own transaction refuses it (404).
 */
export async function readVersionTarget(caller: Caller, target: VersionTarget): Promise<VersionTargetRead> {
  if (target.kind === 'create') {
    const repositoryId = repositoryOfFolder(target.folderId);
    const key = nameKey(target.name);
    const read = await readWithRole(caller, folderKey(target.folderId), target.folderId, [
      usageKey(repositoryId),
      entryKey('documents', target.folderId, key),
      entryKey('folders', target.folderId, key),
      documentKey(target.id),
    ]);
    const folder = read.item as (Item & StoredFolder) | undefined;
    const live = folder && !folder.trash && folder.repositoryId === repositoryId ? folder : undefined;
    authorized({ item: live, role: live ? read.role : undefined }, 'write', 'Folder');
    if (read.lookup(entryKey('documents', target.folderId, key)) || read.lookup(entryKey('folders', target.folderId, key))) {
      throw nameConflict(target.name);
    }
    if (read.lookup(documentKey(target.id))) throw conflict(`A document with id "${target.id}" already exists.`);
    return { repositoryId, documentId: target.id, folderId: target.folderId, name: target.name, usage: usageOf(read.lookup, repositoryId) };
  }
  const guessed = repositoryOf(target.documentId);
  const read = await readDocument(caller, target.documentId, guessed ? [usageKey(guessed)] : []);
  const { item: stored } = authorized(read, 'write', 'Document');
  if (target.expectedVersion !== undefined) checkPrecondition({ version: target.expectedVersion }, stored.version);
  const { repositoryId } = stored;
  const lookup = await readMore(read.lookup, [usageKey(repositoryId)]);
  return {
    repositoryId,
    documentId: stored.id,
    folderId: stored.folderId,
    name: stored.name,
    version: stored.version,
    usage: usageOf(lookup, repositoryId),
  };
}

/** The step asserting a content item is still there (a revision restore that repeats its object). */
export const contentStillKept = (documentId: string, version: number): TransactItem => check(contentKey(documentId, version), itemExists);

// ---------------------------------------------------------------------------------------------
// Background work.

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

/** A document as the search indexer reads it (functions/worker/indexer.ts). */
export interface DocumentForIndex {
  /** The resource, with inline content. */
  document: Document;
  /** Which version's content is current. */
  contentVersion: number;
  /** Its file's object. */
  objectKey?: string;
  /** Deleted to the trash itself (not merely below a trashed folder). */
  trashed: boolean;
}

/** A document as the search indexer reads it, with no caller; undefined once it is gone from the table. */
export async function readDocumentForIndex(id: string): Promise<DocumentForIndex | undefined> {
  return (await readDocumentsForIndex([id])).get(id);
}

/** Large texts read together, at most this many to a BatchGetItem (each item up to 400 KB; an answer at most 16 MB). */
const CONTENT_BATCH = 25;

/**
 * Documents as the search indexer reads them (one, or a page of the rebuild): one BatchGetItem
 * for the documents (at most 100), one for each CONTENT_BATCH of their large texts (where content
 * lives: `currentContentKeyOf`). Those gone from the table are not in the answer.
 */
export async function readDocumentsForIndex(ids: readonly string[]): Promise<Map<string, DocumentForIndex>> {
  const lookup = await getItems(ids.map(documentKey));
  const stored = ids.flatMap((id) => {
    const item = lookup(documentKey(id)) as (Item & StoredDocument) | undefined;
    return item ? [{ id, item }] : [];
  });
  const contentKeys = stored.flatMap(({ item }) => currentContentKeyOf(item) ?? []);
  const contentLookups: Lookup[] = [];
  for (let i = 0; i < contentKeys.length; i += CONTENT_BATCH) contentLookups.push(await getItems(contentKeys.slice(i, i + CONTENT_BATCH)));
  const both: Lookup = (key) => lookup(key) ?? contentLookups.map((found) => found(key)).find((item) => item !== undefined);
  const read = new Map<string, DocumentForIndex>();
  for (const { id, item } of stored) {
    read.set(id, {
      // A large text the reads above missed is one read more (documentWithContent).
      document: await documentWithContent(item, both),
      contentVersion: item.contentVersion,
      ...(item.objectKey ? { objectKey: item.objectKey } : {}),
      trashed: item.trash?.root === id,
    });
  }
  return read;
}
