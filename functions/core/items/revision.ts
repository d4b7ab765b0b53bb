/**
 * Revisions (`DOC#<id>` / `REV#<version>`, and `CONTENT#<version>`): every version of a document
 * is one, written in the version's own transaction (./document.ts). A revision item holds a
 * version's metadata (`storage`, `size`, `sha256`, `contentType`…) and `contentVersion`, the
 * version whose content it has; the content itself is in the item of that version (`{content}`
 * for inline text, `{objectKey}` for a file), written only at a version that changed it, so a
 * list reads only small items. A document in the trash keeps its revisions but shows none (404,
 * like the document); a purge removes them with it. Old ones are reclaimed by the worker
 * (functions/worker/housekeeping.ts): a revision no longer kept is 404. The endpoints:
 * ../use-cases/revisions.ts.
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
}

/** The step that writes a version's revision; its content is `contentVersion`'s (./document.ts writes that item). */
export const revisionSteps = (document: VersionMetadata, contentVersion: number): Record<string, TransactItem> => ({
  revision: put({
    ...revisionKey(document.id, document.version),
    version: document.version,
    name: document.name,
    contentType: document.contentType,
    storage: document.storage,
    size: document.size,
    sha256: document.sha256,
    updatedAt: document.updatedAt,
    updatedBy: document.updatedBy,
    contentVersion,
  }),
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

/** The content a document item holds itself (./document.ts: `contentHeldBy`), which has no `CONTENT#<v>` item yet. */
export interface HeldContent {
  contentVersion: number;
  content: { content: string } | { objectKey: string } | undefined;
}

/**
 * The revision `version` of a document with its content, from what was read with it: the
 * content item of its version, the content the document item holds (the current content, when
 * the document item holds it), or one more read of the version it names (also when the
 * document item was read after a newer version had moved that content into its own item).
 * Undefined when the revision, or its content, is no longer kept. A file revision has no
 * `content` (its bytes: GET …/revisions/{version}/content).
 */
export async function readRevision(
  documentId: string,
  version: number,
  lookup: Lookup,
  held: HeldContent,
): Promise<RevisionRead | undefined> {
  const item = lookup(revisionKey(documentId, version));
  if (!item) return undefined;
  const contentVersion = item.contentVersion as number;
  const key = contentKey(documentId, contentVersion);
  const content: Item | undefined =
    lookup(key) ?? (held.contentVersion === contentVersion ? held.content : undefined) ?? (await getItems([key]))(key);
  if (!content) return undefined;
  const summary = resourceOf<RevisionSummary>(item);
  if (summary.storage === 'file') return { revision: summary, contentVersion, objectKey: content.objectKey as string };
  return { revision: { ...summary, content: content.content as string }, contentVersion };
}
