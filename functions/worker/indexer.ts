/**
 * The search indexer: every numbered change of a document or a folder (the same records the
 * worker publishes as events; one code path deployed and locally) brings that item's row in
 * the search index up to date (functions/core/search/search-index.ts). It reads the item as it
 * is now rather than trusting the change, and stamps the row with the change's feed position,
 * so replays and retries are harmless and the newest state wins. Changes of one repository come
 * in feed order (one partition key of the stream); a reindex runs beside it under the same rule.
 *
 * What a change does to the index:
 * - created, updated, renamed, moved, restored: the item's row is written (a folder's one row:
 *   what is below it follows at query time through its ancestry);
 * - deleted: the row is marked trashed (and what is below a folder is hidden with it);
 * - purged, or the item gone from the table: a tombstone (for a folder, its subtree's too).
 */
import { readDocumentForIndex } from '#core/items/document';
import { readFolderItem } from '#core/items/folder';
import { recordMetric } from '#core/metrics';
import { searchIndexConfigured } from '#core/search/database';
import { extractFileText } from '#core/search/extract';
import { type IndexedItem, indexedContentVersion, removeItem, upsertItem } from '#core/search/search-index';
import type { NumberedChange } from './events';

/** Brings the rows of the items these changes name up to date, in order. */
export async function indexChanges(changes: readonly NumberedChange[]): Promise<void> {
  if (!searchIndexConfigured()) return;
  for (const change of changes) {
    if (change.kind !== 'document' && change.kind !== 'folder') continue;
    await indexItem(change.kind, change.id, change.repositoryId, change.seq, change.at);
    recordLag(change.at);
  }
}

/**
 * `SearchIndexLag` (lib/stack/monitoring.ts alarms on its p95): now, the row written, minus the
 * change's commit time, its `at` (written in the transaction that made the change, so the
 * stream's and the worker's delays are in it, as the user sees them).
 */
function recordLag(changedAt: string, now = Date.now()): void {
  const at = Date.parse(changedAt);
  if (Number.isFinite(at)) recordMetric('searchIndexLag', Math.max(0, now - at));
}

/** Writes one item's row as the table has it now, stamped with feed position `seq`. */
export async function indexItem(
  kind: 'document' | 'folder',
  id: string,
  repositoryId: string,
  seq: number,
  changedAt?: string,
): Promise<void> {
  const item = kind === 'folder' ? await folderRow(id, changedAt) : await documentRow(id, changedAt);
  if (item) await upsertItem(item, seq);
  else await removeItem({ id, repositoryId, kind }, seq);
}

async function folderRow(id: string, changedAt?: string): Promise<IndexedItem | undefined> {
  const folder = await readFolderItem(id);
  if (!folder || folder.trash?.purging) return undefined;
  return {
    id,
    repositoryId: folder.repositoryId,
    kind: 'folder',
    folderId: folder.parentId,
    name: folder.name,
    version: folder.version,
    updatedAt: folder.updatedAt,
    trashed: folder.trash?.root === id,
    ...(changedAt ? { changedAt } : {}),
  };
}

async function documentRow(id: string, changedAt?: string): Promise<IndexedItem | undefined> {
  const read = await readDocumentForIndex(id);
  if (!read) return undefined;
  const { document, contentVersion, objectKey } = read;
  // The content is read only when its version is not the one indexed (a rename or a move reads none).
  const unchanged = (await indexedContentVersion(id)) === contentVersion;
  const content = unchanged
    ? undefined
    : document.storage === 'inline'
      ? (document.content ?? '')
      : objectKey
        ? await extractFileText({ objectKey, contentType: document.contentType, size: document.size })
        : '';
  return {
    id,
    repositoryId: document.repositoryId,
    kind: 'document',
    folderId: document.folderId,
    name: document.name,
    contentType: document.contentType,
    size: document.size,
    version: document.version,
    updatedAt: document.updatedAt,
    trashed: read.trashed,
    ...(content === undefined ? {} : { content, contentVersion }),
    ...(changedAt ? { changedAt } : {}),
  };
}
