/**
 * A document's history, as its endpoints see it: the revisions listed or read beside the
 * document (and the caller's role), and a revision restored as a new version of the document.
 * The items: ../items/revision.ts, ../items/document.ts.
 */
import { authorize } from '../auth';
import type { Item, TransactItem } from '../db/client';
import { pageOf, pageRequest, readPageItems } from '../db/queries';
import { contentStillKept, currentVersionOf, inlineContent, readDocument, updateDocument } from '../items/document';
import { documentPartition, REVISION_PREFIX } from '../items/keys';
import { resourceOf } from '../items/resource-of';
import { currentRevisionItem, type RevisionRead, readRevision, revisionKeys, revisionMissing } from '../items/revision';
import { authorized } from '../items/role';
import type { Precondition } from '../preconditions';
import type { PageQuery } from '../requests';
import type { Caller, Document, Page, Revision, RevisionSummary } from '../resources';

/**
 * GET /document/{id}/revisions: newest first. The document (and the caller's role) and the page
 * of revision items are read side by side; the first page starts with the current version, which
 * the document item holds (../items/revision.ts). A page read before a newer version's commit
 * and a document read after it would miss the version that commit replaced: then the page is
 * read again.
 */
export async function listRevisions(caller: Caller, documentId: string, query: PageQuery): Promise<Page<RevisionSummary>> {
  const request = pageRequest(`revisions:${documentId}`, documentPartition(documentId), REVISION_PREFIX, query, { descending: true });
  const [read, page] = await Promise.all([readDocument(caller, documentId), readPageItems(request)]);
  authorize(read.role, 'read', 'Document');
  const stored = read.item!;
  if (request.nextToken !== undefined) return listed(await pageOf(request, page.items, page.lastKey));
  const older = (items: Item[]) => items.filter((item) => (item.version as number) < stored.version);
  const missesOne = (items: Item[]) => stored.version > 1 && older(items)[0]?.version !== stored.version - 1;
  const { items, lastKey } = missesOne(page.items) ? await readPageItems(request) : page;
  return listed(await pageOf(request, [currentRevisionItem(currentVersionOf(stored)), ...older(items)], lastKey));
}

const listed = (page: { items: Item[]; nextToken?: string }): Page<RevisionSummary> => ({
  items: page.items.map((item) => resourceOf<RevisionSummary>(item)),
  nextToken: page.nextToken,
});

/** GET /document/{id}/revisions/{version}: one read, or two when its content is an older version's. A file revision has no `content`. */
export async function getRevision(caller: Caller, documentId: string, version: number): Promise<Revision> {
  return (await readRevisionOf(caller, documentId, version)).revision;
}

/** A revision with where its content is (GET …/revisions/{version} and …/content), once the caller may read it. */
export async function readRevisionOf(caller: Caller, documentId: string, version: number): Promise<RevisionRead> {
  const read = await readDocument(caller, documentId, revisionKeys(documentId, version));
  const { item: stored } = authorized(read, 'read', 'Document');
  const revision = await readRevision(documentId, version, read.lookup, currentVersionOf(stored));
  if (!revision) throw revisionMissing();
  return revision;
}

/**
 * POST /document/{id}/revisions/{version}/restore: a new version with the content and content
 * type of `version` (name and folder stay), written as any update is (an `updated` change), with
 * the revision read together with the document. Inline text is copied into the new version's
 * content item; a file's is the same object (no bytes copied), with a check in the transaction
 * that the content item it comes from is still kept (revision pruning deletes an object only
 * once no kept content item names it). Checks: the document and the revision (404), the
 * caller's role (403), `If-Match` (412), the quota (409).
 */
export async function restoreRevision(caller: Caller, documentId: string, version: number, precondition: Precondition): Promise<Document> {
  return updateDocument(caller, { id: documentId }, precondition, {
    changeType: 'updated',
    derive: {
      keys: revisionKeys(documentId, version),
      async changes(stored, lookup) {
        const read = await readRevision(documentId, version, lookup, currentVersionOf(stored));
        if (!read) throw revisionMissing();
        const { revision, contentVersion, objectKey } = read;
        const { contentType, size, sha256 } = revision;
        if (revision.storage === 'inline') return { content: inlineContent(revision.content ?? '', contentType) };
        // The current content is in the document item, not yet in a content item: nothing to check.
        const checks: Record<string, TransactItem> =
          contentVersion === stored.contentVersion ? {} : { source: contentStillKept(documentId, contentVersion) };
        return { content: { storage: 'file', contentType, size, sha256, objectKey }, checks };
      },
    },
  });
}
