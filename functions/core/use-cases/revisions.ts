/**
 * A document's history, as its endpoints see it: the revisions listed or read beside the
 * document (and the caller's role), and a revision restored as a new version of the document.
 * The items: ../items/revision.ts, ../items/document.ts.
 */
import { authorize } from '../auth';
import { pageRequest, readPage } from '../db/queries';
import { readDocument, updateDocument } from '../items/document';
import { documentPartition, REVISION_PREFIX } from '../items/keys';
import { resourceOf } from '../items/resource-of';
import { revisionKeys, revisionMissing, revisionWithContent } from '../items/revision';
import { authorized } from '../items/role';
import type { Precondition } from '../preconditions';
import type { PageQuery } from '../requests';
import type { Caller, Document, Page, Revision, RevisionSummary } from '../resources';

/** GET /document/{id}/revisions: newest first. The document (and the caller's role) and the page are read side by side. */
export async function listRevisions(caller: Caller, documentId: string, query: PageQuery): Promise<Page<RevisionSummary>> {
  const request = pageRequest(`revisions:${documentId}`, documentPartition(documentId), REVISION_PREFIX, query, { descending: true });
  const [{ role }, page] = await Promise.all([readDocument(caller, documentId), readPage(request)]);
  authorize(role, 'read', 'Document');
  return { items: page.items.map((item) => resourceOf<RevisionSummary>(item)), nextToken: page.nextToken };
}

/** GET /document/{id}/revisions/{version}: one read, or two when its content is an older version's. */
export async function getRevision(caller: Caller, documentId: string, version: number): Promise<Revision> {
  const read = await readDocument(caller, documentId, revisionKeys(documentId, version));
  const { item: stored } = authorized(read, 'read', 'Document');
  const revision = await revisionWithContent(stored, version, read.lookup);
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
