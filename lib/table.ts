/**
 * The single DynamoDB table, as plain data: the CDK stack and the local runtime
 * (which creates it in DynamoDB Local) both build it from here.
 * Key shapes live in functions/core/store/keys.ts; see docs/data-model.md.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Attributes used as keys (all strings). No secondary indexes: no access pattern needs one. */
  attributes: [
    { name: 'PK', type: 'S' },
    { name: 'SK', type: 'S' },
  ],
  billing: 'PAY_PER_REQUEST',
  /** The background worker reads every change (functions/worker/stream.ts). */
  stream: 'NEW_AND_OLD_IMAGES',
  /** Epoch seconds after which DynamoDB deletes an item: trash records (the 30-day purge), the feed's old changes. */
  timeToLiveAttribute: 'expiresAt',
} as const;

export const defaultTableName = 'documents';
