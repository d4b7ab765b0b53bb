/**
 * Work the stream asks for that is not a task: purging a trash item DynamoDB's TTL expired,
 * and reclaiming revisions a document no longer needs to keep (their bytes too, by a task).
 */

import { ConditionFailed, getItems, type Item, remove, type TransactItem, transactWrite, update } from '#core/db/client';
import { itemExists } from '#core/db/conditions';
import { readRange } from '#core/db/queries';
import { now } from '#core/ids';
import { contentKey, documentKey, documentPartition, REVISION_PREFIX, revisionKey, usageKey } from '#core/items/keys';
import { newTask } from '#core/items/task';
import { type StoredTrashItem, trashedItemKey } from '#core/items/trash';
import { releaseUsageStep } from '#core/items/usage';
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

/**
 * Revisions one pass of pruning reclaims, in one transaction: each with at most one content
 * item, plus the document, the usage and a task, within a transaction's 100 actions.
 */
const PRUNE_PAGE = 45;
/** Passes whose transaction failed a condition (pruned or purged meanwhile) read again this many times. */
const PRUNE_ATTEMPTS = 5;

/**
 * A document keeps its last REVISIONS_KEPT revisions and every revision of the last
 * REVISION_DAYS days; older ones go, oldest first, a page at a time. Only the oldest run of
 * them goes (a prefix in version order), so every revision left is newer than every one
 * reclaimed, and the content items they point at are the ones to keep: a revision's content is
 * that of its `contentVersion`, never newer than itself and never older than an earlier
 * revision's, so what the oldest revision kept points at is the oldest content still needed.
 *
 * Each page goes in one transaction: the revisions (each asserted to be there, so a pass that
 * runs twice, or beside a purge, fails instead of counting them twice, and reads again), their
 * content items, their sizes taken off the document's `keptBytes` and the repository's usage,
 * and, when those content items named objects, the task that deletes the objects nothing names
 * any more (../../core/use-cases/release-objects.ts: why after the items, and why that is safe).
 */
export async function pruneRevisions(document: { id: string; repositoryId: string; version: number }): Promise<void> {
  const { id: documentId, repositoryId, version } = document;
  const keepFrom = version - REVISIONS_KEPT + 1;
  if (keepFrom <= 1) return;
  const cutoff = new Date(Date.now() - REVISION_DAYS * DAY_MS).toISOString();
  for (let failures = 0; ; ) {
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
    const contentKeys = [...contents].map((v) => contentKey(documentId, v));
    // Only a file's content item names an object (its revisions say `storage: 'file'`): inline text is not read.
    const files = new Set(reclaimed.filter((r) => r.storage === 'file').map((r) => r.contentVersion as number));
    const fileContentKeys = [...contents].filter((v) => files.has(v)).map((v) => contentKey(documentId, v));
    const lookup = await getItems([documentKey(documentId), usageKey(repositoryId), ...fileContentKeys]);
    const stored = lookup(documentKey(documentId));
    if (!stored) return; // purged meanwhile
    // A document that counts no `keptBytes` (written before they were counted) gives nothing back.
    const released =
      typeof stored.keptBytes === 'number' ? reclaimed.reduce((sum, r) => sum + ((r.size as number | undefined) ?? 0), 0) : 0;
    const objectKeys = [...new Set(fileContentKeys.map((key) => lookup(key)?.objectKey).filter((key) => typeof key === 'string'))];
    const writes: Record<string, TransactItem> = {};
    for (const [i, r] of reclaimed.entries()) writes[`revision${i}`] = remove(revisionKey(documentId, r.version as number), itemExists);
    for (const [i, key] of contentKeys.entries()) writes[`content${i}`] = remove(key);
    if (released > 0) {
      // The request to prune goes too: this MODIFY must not bring the worker back for nothing
      // (the stream's filter passes a document that carries it); the next write past the 100th version asks again.
      writes.document = update(
        documentKey(documentId),
        'ADD #kept :released REMOVE #prune',
        { '#kept': 'keptBytes', '#prune': 'pruneRevisions' },
        { ':released': -released },
        itemExists,
      );
      // A repository deleted meanwhile has no usage left to give back to.
      if (lookup(usageKey(repositoryId))) writes.usage = releaseUsageStep(repositoryId, released);
    }
    if (objectKeys.length > 0) writes.task = newTask({ kind: 'release-objects', repositoryId, documentId, objectKeys });
    try {
      await transactWrite(writes);
    } catch (error) {
      // Pruned or purged meanwhile, or the usage went with the repository: read again.
      if (!(error instanceof ConditionFailed) || ++failures >= PRUNE_ATTEMPTS) throw error;
      continue;
    }
    if (reclaimed.length < PRUNE_PAGE) return;
  }
}
