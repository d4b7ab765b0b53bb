/**
 * The single DynamoDB table, as plain data: the CDK stack and the local runtime
 * (which creates it in DynamoDB Local) both build it from here.
 * Key shapes live in functions/core/items/keys.ts; see docs/data-model.md.
 */
import { sweepIndex } from '#core/items/task';

export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Attributes used as keys of the table (all strings). */
  attributes: [
    { name: 'PK', type: 'S' },
    { name: 'SK', type: 'S' },
  ],
  /**
   * One sparse index, for the background sweeper only (functions/worker/sweeper.ts): task items
   * and pending changes, by shard and the time they have waited since, keys only. No request
   * reads it (its reads are eventually consistent). Locally it is added to a table made
   * without it (lib/local/layout-version.ts).
   */
  globalSecondaryIndexes: [
    {
      name: sweepIndex.name,
      partitionKey: { name: sweepIndex.partitionKey, type: 'S' },
      sortKey: { name: sweepIndex.sortKey, type: 'S' },
      projection: 'KEYS_ONLY',
    },
  ],
  billing: 'PAY_PER_REQUEST',
  /** The background worker reads every change (functions/worker/stream.ts). */
  stream: 'NEW_AND_OLD_IMAGES',
  /** Epoch seconds after which DynamoDB deletes an item: trash records (the 30-day purge), the feed's old changes. */
  timeToLiveAttribute: 'expiresAt',
} as const;

export const defaultTableName = 'documents';
