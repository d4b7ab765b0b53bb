/**
 * Revisions (`DOC#<id>` / `REV#<version>`, and `CONTENT#<version>`). A document's current
 * version is its revision too, held by the `DOC` item itself (./document.ts): `REV#<v>` is
 * written only once version `v` is replaced, by the version that replaces it, from the `DOC`
 * item it read, in that version's own transaction. So no version writes its metadata twice (a
 * new document writes no revision item), and every version still has its revision from the
 * moment it exists. A revision item holds a version's metadata (`storage`, `size`, `sha256`,
 * `contentType`…) and `contentVersion`, the version whose content it has; the content itself
 * is in the item of that version (`{content}` for inline text, `{objectKey}` for a file),
 * written only at a version that changed it, so a list reads only small items. A document in
 * the trash keeps its revisions but shows none (404, like the document); a purge removes them
 * with it. Old ones are reclaimed by the worker (functions/worker/housekeeping.ts): a revision
 * no longer kept is 404. The endpoints: ../use-cases/revisions.ts.
 */
import { getItems, type Item, put, type TransactItem } from '../db/client';
import { notFound } from '../errors';
import type { Revision, RevisionSummary, Storage } from '../resources';
import { contentKey, type Key, revisionKey } from './keys';
import { resourceOf } from './resource-of';
import type { Lookup } from './role';

/** What a revision records of its version. */
export interface VersionMetadata {
  id: string;
  version: number;
  name: string;
  contentType: string;
  storage: Storage;
  size: number;
  sha256: string;
  updatedAt: string;
  updatedBy: string;
  /** The version whose content it has. */
  contentVersion: number;
}

/** A version's revision item (its key, what it records), from the document item that held it. */
const revisionItem = (version: VersionMetadata): Item => ({
  ...revisionKey(version.id, version.version),
  version: version.version,
  name: version.name,
  contentType: version.contentType,
  storage: version.storage,
  size: version.size,
  sha256: version.sha256,
  updatedAt: version.updatedAt,
  updatedBy: version.updatedBy,
  contentVersion: version.contentVersion,
});

/**
 * The step a new version writes for the one it replaces: that version's revision, from the
 * document item as read (the transaction asserts the document is still at that version).
 */
export const replacedRevisionSteps = (replaced: VersionMetadata): Record<string, TransactItem> => ({
  revision: put(revisionItem(replaced)),
});

export const revisionMissing = () => notFound('Revision');

/**
 * What a read of one revision asks for with the document: the revision, and the content item of
 * its own version (there when the content changed at it, which one read then answers).
 */
export const revisionKeys = (documentId: string, version: number): Key[] => [
  revisionKey(documentId, version),
  contentKey(documentId, version),
];

/** A revision as read, with where its content is: the text (inline) or the object (file). */
export interface RevisionRead {
  revision: Revision;
  /** The version whose content item it names. */
  contentVersion: number;
  /** A file revision's object. */
  objectKey?: string;
}

/** The current version as its document item holds it (./document.ts: `currentVersionOf`): its revision, and its content when held there. */
export interface CurrentVersion {
  metadata: VersionMetadata;
  /** The content the document item holds (none for large text, which is in `CONTENT#<contentVersion>`). */
  content: { content: string } | { objectKey: string } | undefined;
}

/** The current version's revision as a revision item would hold it (a list's first item, newest first). */
export const currentRevisionItem = (current: CurrentVersion): Item => revisionItem(current.metadata);

/**
 * The revision `version` of a document with its content, from what was read with it: the
 * current version from the document item; an older one from its revision item (read again once
 * when missing: the document may have been read after a newer version wrote it, the revision
 * before), its content from the content item of its version, the content the document item
 * holds, or one more read of the version it names (also when the document item was read after
 * a newer version had moved that content into its own item). Undefined when the revision, or
 * its content, is no longer kept (or never was). A file revision has no `content` (its bytes:
 * GET …/revisions/{version}/content).
 */
export async function readRevision(
  documentId: string,
  version: number,
  lookup: Lookup,
  current: CurrentVersion,
): Promise<RevisionRead | undefined> {
  const key = revisionKey(documentId, version);
  const older = version < current.metadata.version;
  const item = older
    ? (lookup(key) ?? (await getItems([key]))(key))
    : version === current.metadata.version
      ? revisionItem(current.metadata)
      : undefined;
  if (!item) return undefined;
  const contentVersion = item.contentVersion as number;
  const held = contentVersion === current.metadata.contentVersion ? current.content : undefined;
  const contentItemKey = contentKey(documentId, contentVersion);
  const content: Item | undefined = lookup(contentItemKey) ?? held ?? (await getItems([contentItemKey]))(contentItemKey);
  if (!content) return undefined;
  const summary = resourceOf<RevisionSummary>(item);
  if (summary.storage === 'file') return { revision: summary, contentVersion, objectKey: content.objectKey as string };
  return { revision: { ...summary, content: content.content as string }, contentVersion };
}
