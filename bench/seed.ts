/**
 * Bulk seeding straight into the table (not through the API): documents exactly as the
 * store writes them (store/documents.ts documentItems), 25 items per BatchWriteItem, a few
 * requests in flight.
 */
import { newId, now } from '#core/ids';
import { db, type Item, tableName } from '#core/store/client';
import { documentItems } from '#core/store/documents';
import type { Document } from '#core/types';

export interface SeedDocuments {
  userId: string;
  repositoryId: string;
  folderId: string;
  count: number;
  /** Names are `<prefix><n>`, zero-padded so they list in order. */
  prefix: string;
  contentBytes: number;
}

/** Writes `count` documents (two items each); returns their ids. */
export async function seedDocuments(seed: SeedDocuments): Promise<string[]> {
  const at = now();
  const content = 'x'.repeat(seed.contentBytes);
  const ids: string[] = [];
  const items: Item[] = [];
  for (let n = 0; n < seed.count; n++) {
    const document: Document = {
      id: newId(),
      repositoryId: seed.repositoryId,
      folderId: seed.folderId,
      name: `${seed.prefix}${String(n).padStart(6, '0')}`,
      contentType: 'text/plain',
      content,
      size: seed.contentBytes,
      version: 1,
      createdAt: at,
      createdBy: seed.userId,
      updatedAt: at,
      updatedBy: seed.userId,
    };
    const written = documentItems(document);
    items.push(written.document, written.entry);
    ids.push(document.id);
  }
  await writeAll(items);
  return ids;
}

async function writeAll(items: Item[], inFlight = 8): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < batches.length) {
        let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length > 0) {
          const result = await db().send('BatchWriteItem', { RequestItems: { [tableName()]: pending } });
          pending = (result.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
        }
      }
    }),
  );
}
