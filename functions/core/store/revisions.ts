/**
 * Revisions of a document: every version is one (documents.ts writes it in the version's own
 * transaction). A revision item holds a version's metadata and `contentVersion`, the version
 * whose content it has; the content itself is in the item of that version (keys.ts: CONTENT#),
 * so a list reads only small items. A document in the trash keeps its revisions but shows none
 * (404, like the document); a purge removes them with it. Old ones are reclaimed by the worker
 * (functions/worker/housekeeping.ts): a revision no longer kept is 404.
 */
import { authorize } from '../auth';
import { notFound } from '../errors';
import type { Precondition } from '../preconditions';
import type { Caller, Document, Page, Revision, RevisionSummary } from '../resources';
import type { PageQuery } from '../schemas';
import { getItems, type Item } from './client';
import { readDocument, type StoredDocument, updateDocument } from './documents';
import { contentKey, documentPartition, type Key, REVISION_PREFIX, revisionKey } from './keys';
import { pageRequest, readPage } from './pages';
import { resourceOf } from './records';

const revisionMissing = () => notFound('Revision');

/** GET /document/{id}/revisions: newest first. The document (and the caller's role) and the page are read side by side. */
export async function listRevisions(caller: Caller, documentId: string, query: PageQuery): Promise<Page<RevisionSummary>> {
  const request = pageRequest(`revisions:${documentId}`, documentPartition(documentId), REVISION_PREFIX, query, { descending: true });
  const [{ role }, page] = await Promise.all([readDocument(caller, documentId), readPage(request)]);
  authorize(role, 'read', 'Document');
  return { items: page.items.map((item) => resourceOf<RevisionSummary>(item)), nextToken: page.nextToken };
}

/**
 * What a read of one revision asks for with the document: the revision, and the content item of
 * its own version (there when the content changed at it, which one read then answers).
 */
const revisionKeys = (documentId: string, version: number): Key[] => [revisionKey(documentId, version), contentKey(documentId, version)];

/**
 * The revision `version` of a stored document with its content, from what was read with it:
 * the content item of its version, or the document's own content when it is the same, or else
 * one more read. Undefined when the revision, or its content, is no longer kept.
 */
async function revisionWithContent(
  stored: StoredDocument,
  version: number,
  lookup: (key: Key) => Item | undefined,
): Promise<Revision | undefined> {
  const revision = lookup(revisionKey(stored.id, version));
  if (!revision) return undefined;
  const contentVersion = revision.contentVersion as number;
  const key = contentKey(stored.id, contentVersion);
  const content =
    (lookup(key)?.content as string | undefined) ??
    (contentVersion === stored.contentVersion ? stored.content : ((await getItems([key]))(key)?.content as string | undefined));
  return content === undefined ? undefined : { ...resourceOf<RevisionSummary>(revision), content };
}

/** GET /document/{id}/revisions/{version}: one read, or two when its content is an older version's. */
export async function getRevision(caller: Caller, documentId: string, version: number): Promise<Revision> {
  const { stored, role, lookup } = await readDocument(caller, documentId, revisionKeys(documentId, version));
  authorize(role, 'read', 'Document');
  const revision = await revisionWithContent(stored!, version, lookup);
  if (!revision) throw revisionMissing();
  return revision;
}

/**
 * POST /document/{id}/revisions/{version}/restore: a new version with the content and content
 * type of `version` (name and folder stay), written as any update is (an `updated` change), with
 * the revision read together with the document. Checks: the document and the revision (404), the
 * caller's role (403), `If-Match` (412).
 */
export async function restoreRevision(caller: Caller, documentId: string, version: number, precondition: Precondition): Promise<Document> {
  return updateDocument(caller, { id: documentId }, precondition, {
    changeType: 'updated',
    derive: {
      keys: revisionKeys(documentId, version),
      async changes(stored, lookup) {
        const revision = await revisionWithContent(stored, version, lookup);
        if (!revision) throw revisionMissing();
        return { content: revision.content, contentType: revision.contentType };
      },
    },
  });
}
