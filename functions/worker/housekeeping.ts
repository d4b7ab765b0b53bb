/**
 * Work the stream asks for that is not a task: purging a trash item DynamoDB's TTL expired,
 * and reclaiming revisions a document no longer needs to keep.
 */

import { ConditionFailed, deleteItems, getItems, type Item, transactWrite } from '#core/db/client';
import { readRange } from '#core/db/queries';
import { now } from '#core/ids';
import { contentKey, documentPartition, REVISION_PREFIX, revisionKey } from '#core/items/keys';
import { type StoredTrashItem, trashedItemKey } from '#core/items/trash';
import { DAY_MS, REVISION_DAYS, REVISIONS_KEPT } from '#core/limits';
import { purgeSteps, SERVICE_USER } from '#core/use-cases/purge';

/** The trash record's TTL expired (30 days after the deletion): purge its item, unless it came back. */
export async function purgeExpired(repositoryId: string, record: StoredTrashItem): Promise<void> {
  const item = (await getItems([trashedItemKey(record)]))(trashedItemKey(record)) as
    | (Item & { trash?: { token?: string; purging?: boolean } })
    | undefined;
  if (item?.trash?.token !== record.token || item.trash.purging) return;
  try {
    await transactWrite(purgeSteps(repositoryId, record, item, now(), SERVICE_USER));
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error; // restored or purged meanwhile: done
  }
}

/** Revisions one pass of pruning reads: metadata only (content is in items of its own), so small. */
const PRUNE_PAGE = 50;

/**
 * A document keeps its last REVISIONS_KEPT revisions and every revision of the last
 * REVISION_DAYS days; older ones go, oldest first, a page at a time. Only the oldest run of
 * them goes (a prefix in version order), so every revision left is newer than every one
 * reclaimed, and the content items they point at are the ones to keep: a revision's content is
 * that of its `contentVersion`, never newer than itself and never older than an earlier
 * revision's, so what the oldest revision kept points at is the oldest content still needed.
 * Safe to run twice or side by side with a purge: it only deletes.
 */
export async function pruneRevisions(documentId: string, version: number): Promise<void> {
  const keepFrom = version - REVISIONS_KEPT + 1;
  if (keepFrom <= 1) return;
  const cutoff = new Date(Date.now() - REVISION_DAYS * DAY_MS).toISOString();
  for (;;) {
    // The oldest revisions, up to the first of the last REVISIONS_KEPT (which always stays).
    const oldest = await readRange(documentPartition(documentId), {
      from: REVISION_PREFIX,
      to: revisionKey(documentId, keepFrom).SK,
      limit: PRUNE_PAGE + 1,
    });
    const firstKept = oldest.slice(0, PRUNE_PAGE).findIndex((r) => (r.version as number) >= keepFrom || (r.updatedAt as string) >= cutoff);
    const reclaimed = firstKept < 0 ? oldest.slice(0, PRUNE_PAGE) : oldest.slice(0, firstKept);
    const kept = oldest[reclaimed.length];
    // Nothing to reclaim, or no revision left after them (the document is being purged): stop.
    if (reclaimed.length === 0 || !kept) return;
    const contents = new Set(reclaimed.map((r) => r.contentVersion as number));
    contents.delete(kept.contentVersion as number);
    await deleteItems([
      ...reclaimed.map((r) => revisionKey(documentId, r.version as number)),
      ...[...contents].map((v) => contentKey(documentId, v)),
    ]);
    if (reclaimed.length < PRUNE_PAGE) return;
  }
}
