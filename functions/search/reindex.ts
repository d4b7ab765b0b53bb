/**
 * The deployed rebuild of the search index (docs/operations.md: Search index): invoke it once
 * (`{"fresh": true}` to start over); it works for most of its time-out, then invokes itself
 * again to go on from where it stopped, until the table has been read whole.
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { Context } from 'aws-lambda';
import { logger } from '#core/logger';
import { reindex } from '#core/search/reindex';
import { indexItems } from '#functions/worker/indexer';

export async function handler(event: { fresh?: boolean }, context: Context): Promise<{ done: boolean; items: number }> {
  const budgetMs = Math.max(10_000, context.getRemainingTimeInMillis() - 60_000);
  const progress = await reindex(indexItems, { budgetMs, ...(event?.fresh ? { fresh: true } : {}) });
  logger.info('search reindex', { ...progress });
  if (!progress.done) {
    await new LambdaClient({}).send(new InvokeCommand({ FunctionName: context.functionName, InvocationType: 'Event', Payload: '{}' }));
  }
  return progress;
}
