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
} as const;

export const defaultTableName = 'documents';
