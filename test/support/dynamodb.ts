import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { ensureTable } from '#lib/local/dynamodb-local';

/** A fresh, empty table in the run's shared DynamoDB Local. */
export async function createTestTable(): Promise<{ endpoint: string; tableName: string }> {
  const endpoint = inject('dynamodbEndpoint');
  const tableName = `test-${randomBytes(6).toString('hex')}`;
  await ensureTable(endpoint, tableName);
  return { endpoint, tableName };
}
