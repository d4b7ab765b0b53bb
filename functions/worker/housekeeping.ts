/**
 * Work the stream asks for that is not a task: purging a trash item DynamoDB's TTL expired,
 * and reclaiming revisions a document no longer needs to keep.
 */

import { now } from '#core/ids';
import { DAY_MS, REVISION_DAYS, REVISIONS_KEPT } from '#core/limits';
import { ConditionFailed, deleteItems, getItems, type Item, transactWrite } from '#core/store/client';
import { documentPartition, REVISION_PREFIX, revisionKey } from '#core/store/keys';
import { readRange } from '#core/store/pages';
import { purgeSteps, SERVICE_USER, type StoredTrashItem, trashedItemKey } from '#core/store/trash';

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

/**
 * A document keeps its last REVISIONS_KEPT revisions and every revision of the last
 * REVISION_DAYS days; older ones go, oldest first, except the one whose content the oldest kept
 * revision points at (a rename copies no content: it points at the revision that holds it).
 */
export async function pruneRevisions(documentId: string, version: number): Promise<void> {
  const keepFrom = version - REVISIONS_KEPT + 1;
  if (keepFrom <= 1) return;
  const candidates = await readRange(documentPartition(documentId), {
    from: REVISION_PREFIX,
    to: revisionKey(documentId, keepFrom - 1).SK,
    limit: 100,
  });
  const cutoff = new Date(Date.now() - REVISION_DAYS * DAY_MS).toISOString();
  const old = candidates.filter((revision) => (revision.updatedAt as string) < cutoff);
  if (old.length === 0) return;
  const oldestKept = (old.at(-1)!.version as number) + 1;
  const kept = (await getItems([revisionKey(documentId, oldestKept)]))(revisionKey(documentId, oldestKept));
  const protectedVersion = kept?.contentVersion as number | undefined;
  await deleteItems(
    old.filter((revision) => revision.version !== protectedVersion).map((r) => ({ PK: r.PK as string, SK: r.SK as string })),
  );
}
