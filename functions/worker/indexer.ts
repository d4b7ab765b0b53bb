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
import { type DocumentForIndex, readDocumentForIndex, readDocumentsForIndex } from '#core/items/document';
import { readFolderItem, readFolderItems, type StoredFolder } from '#core/items/folder';
import { recordMetric } from '#core/metrics';
import { searchIndexConfigured } from '#core/search/database';
import { extractFileText } from '#core/search/extract';
import type { IndexPage } from '#core/search/reindex';
import {
  type IndexedItem,
  type ItemKind,
  indexedContentVersion,
  indexedContentVersions,
  removeItem,
  upsertItem,
} from '#core/search/search-index';
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
  let row: IndexedItem | undefined;
  if (kind === 'folder') row = folderRow(id, await readFolderItem(id), changedAt);
  else {
    const read = await readDocumentForIndex(id);
    row = read && (await documentRow(id, read, await indexedContentVersion(id), changedAt));
  }
  await writeRow(row, { id, repositoryId, kind }, seq);
}

/** Rows of a page of items built at a time (a file's text is read from the bucket for each). */
const PAGE_WIDTH = 4;

/**
 * The rebuild's page (core/search/reindex.ts): each item's row as the table has it now, as
 * `indexItem` writes it, the items read together (one BatchGetItem for the documents, one for the
 * folders, one more for each 25 large texts; one statement for the content versions indexed).
 */
export const indexItems: IndexPage = async (items) => {
  const ids = (kind: 'document' | 'folder') => items.filter((item) => item.kind === kind).map((item) => item.id);
  const [documents, folders, indexed] = await Promise.all([
    readDocumentsForIndex(ids('document')),
    readFolderItems(ids('folder')),
    indexedContentVersions(ids('document')),
  ]);
  for (let i = 0; i < items.length; i += PAGE_WIDTH) {
    await Promise.all(
      items.slice(i, i + PAGE_WIDTH).map(async (item) => {
        const read = documents.get(item.id);
        const row =
          item.kind === 'folder'
            ? folderRow(item.id, folders.get(item.id))
            : read && (await documentRow(item.id, read, indexed.get(item.id)));
        await writeRow(row, item, item.seq);
      }),
    );
  }
};

/** The row, or a tombstone when the item is gone. */
async function writeRow(
  row: IndexedItem | undefined,
  item: { id: string; repositoryId: string; kind: ItemKind },
  seq: number,
): Promise<void> {
  if (row) await upsertItem(row, seq);
  else await removeItem(item, seq);
}

function folderRow(id: string, folder: StoredFolder | undefined, changedAt?: string): IndexedItem | undefined {
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

/** `indexedVersion`: the content version the index holds for it, whose content is then not read again. */
async function documentRow(
  id: string,
  read: DocumentForIndex,
  indexedVersion: number | undefined,
  changedAt?: string,
): Promise<IndexedItem> {
  const { document, contentVersion, objectKey } = read;
  // The content is read only when its version is not the one indexed (a rename or a move reads none).
  const content =
    indexedVersion === contentVersion
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
