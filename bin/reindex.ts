/**
 * `npm run reindex`: rebuilds the local search index from the local table (docs/operations.md:
 * Search index), with the same code as the deployed rebuild. It opens the data under DATA_DIR
 * (default .data) itself, so stop `npm start` first. Resumable: interrupted, it goes on from
 * where it stopped; `-- --fresh` starts over.
 */
import { resolve } from 'node:path';
import { reindex } from '#core/search/reindex';
import { reindexFunction } from '#functions/routes';
import { indexItems } from '#functions/worker/indexer';
import { runAsFunction } from '#lib/local/permissions';
import { StartupError, startLocalService } from '#lib/local/service';
import { defaultTableName } from '#lib/table';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const dataDir = resolve(process.env.DATA_DIR || '.data');
const fresh = process.argv.includes('--fresh');

try {
  const service = await startLocalService({ port: 0, dataDir, tableName: process.env.TABLE_NAME || defaultTableName, log: () => {} });
  const started = Date.now();
  let progress = { done: false, items: 0 };
  let first = true;
  while (!progress.done) {
    progress = await runAsFunction(reindexFunction, () => reindex(indexItems, { budgetMs: 5_000, fresh: fresh && first }));
    first = false;
    console.log(`reindex: ${progress.items} folders and documents${progress.done ? ', done' : '…'}`);
  }
  console.log(`reindex: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await service.stop();
} catch (error) {
  console.error(error instanceof StartupError ? `reindex could not start: ${error.message}` : error);
  process.exit(1);
}
