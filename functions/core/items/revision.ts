/**
 * Revisions (`DOC#<id>` / `REV#<version>`, and `CONTENT#<version>`): every version of a document
 * is one, written in the version's own transaction (./document.ts). A revision item holds a
 * version's metadata and `contentVersion`, the version whose content it has; the content itself
 * is in the item of that version, written only at a version that changed it, so a list reads
 * only small items. A document in the trash keeps its revisions but shows none (404, like the
 * document); a purge removes them with it. Old ones are reclaimed by the worker
 * (functions/worker/housekeeping.ts): a revision no longer kept is 404. The endpoints:
 * ../use-cases/revisions.ts.
 */
import { getItems, put } from '../db/client';
import { notFound } from '../errors';
import type { Document, Revision, RevisionSummary } from '../resources';
import { contentKey, type Key, revisionKey } from './keys';
import { resourceOf } from './resource-of';
import type { Lookup } from './role';

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

export const revisionMissing = () => notFound('Revision');

/**
 * What a read of one revision asks for with the document: the revision, and the content item of
 * its own version (there when the content changed at it, which one read then answers).
 */
export const revisionKeys = (documentId: string, version: number): Key[] => [
  revisionKey(documentId, version),
  contentKey(documentId, version),
];

/**
 * The revision `version` of a stored document with its content, from what was read with it:
 * the content item of its version, or the document's own content when it is the same, or else
 * one more read. Undefined when the revision, or its content, is no longer kept.
 */
export async function revisionWithContent(
  document: { id: string; content: string; contentVersion: number },
  version: number,
  lookup: Lookup,
): Promise<Revision | undefined> {
  const revision = lookup(revisionKey(document.id, version));
  if (!revision) return undefined;
  const contentVersion = revision.contentVersion as number;
  const key = contentKey(document.id, contentVersion);
  const content =
    (lookup(key)?.content as string | undefined) ??
    (contentVersion === document.contentVersion ? document.content : ((await getItems([key]))(key)?.content as string | undefined));
  return content === undefined ? undefined : { ...resourceOf<RevisionSummary>(revision), content };
}
