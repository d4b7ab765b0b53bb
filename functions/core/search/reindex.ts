/**
 * Rebuilds the search index from the table (docs/operations.md: Search index): for existing
 * data, after a schema change, or when the index was lost. It scans the table for folder and
 * document items and writes each one's row exactly as the indexer does (functions/worker/indexer.ts),
 * stamped with its repository's feed position read before the item, so it never overwrites a
 * newer change the stream applied meanwhile, and the stream's later changes win over it.
 * Resumable: each page's last key is recorded in `search_reindex`; a run continues from there
 * until the scan is done (`fresh` starts over).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, type Item, tableName } from '../db/client';
import { lastSequence } from '../items/change';
import { ITEM_SORT_KEY, idOfPartition } from '../items/keys';
import { execute } from './database';

/**
 * The indexer's write for a page of items (functions/worker/indexer.ts: `indexItems`), each
 * stamped with `seq`, given to the rebuild (no import of the worker from core).
 */
export type IndexPage = (items: readonly { kind: 'document' | 'folder'; id: string; repositoryId: string; seq: number }[]) => Promise<void>;

const RUN = 'table';
/** Items scanned, then read again together, a page at a time (BatchGetItem takes 100 keys). */
const PAGE = 100;

export interface ReindexProgress {
  done: boolean;
  items: number;
}

/** Runs the rebuild for at most `budgetMs`, from where the last run stopped (or afresh). */
export async function reindex(indexPage: IndexPage, options: { budgetMs: number; fresh?: boolean }): Promise<ReindexProgress> {
  const started = Date.now();
  if (options.fresh) await execute('DELETE FROM search_reindex WHERE name = $1', [RUN]);
  await execute('INSERT INTO search_reindex (name) VALUES ($1) ON CONFLICT DO NOTHING', [RUN]);
  const [state] = await execute('SELECT last_key, items, finished_at FROM search_reindex WHERE name = $1', [RUN]);
  if (state?.finished_at) return { done: true, items: Number(state.items) };
  let lastKey = typeof state?.last_key === 'string' ? (JSON.parse(state.last_key) as Item) : undefined;
  let items = Number(state?.items ?? 0);
  while (Date.now() - started < options.budgetMs) {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'SK IN (:document, :folder)',
        ExpressionAttributeValues: { ':document': ITEM_SORT_KEY.document, ':folder': ITEM_SORT_KEY.folder },
        Limit: PAGE,
        ...(lastKey ? { ExclusiveStartKey: lastKey } : {}),
      }),
    );
    const found = (page.Items ?? []).map((item) => ({
      kind: item.SK === ITEM_SORT_KEY.document ? ('document' as const) : ('folder' as const),
      id: idOfPartition(item.PK as string),
      repositoryId: item.repositoryId as string,
    }));
    // Each repository's feed position, read before its items are read again by `indexPage`.
    const seqs = new Map<string, number>();
    for (const repositoryId of new Set(found.map((f) => f.repositoryId))) seqs.set(repositoryId, await lastSequence(repositoryId));
    await indexPage(found.map((f) => ({ ...f, seq: seqs.get(f.repositoryId)! })));
    items += found.length;
    lastKey = page.LastEvaluatedKey;
    await execute('UPDATE search_reindex SET last_key = $2, items = $3, finished_at = CASE WHEN $4 THEN now() END WHERE name = $1', [
      RUN,
      lastKey ? JSON.stringify(lastKey) : null,
      items,
      !lastKey,
    ]);
    if (!lastKey) return { done: true, items };
  }
  return { done: false, items };
}
