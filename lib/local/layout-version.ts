/**
 * The local database's layout version. A table written by an older version of the service
 * (names keyed by lower-casing, every role in one item per user; layout 2: a role in one bucket,
 * not in each of the member's lanes) cannot be read by this one:
 * rather than answer wrongly from it, the service refuses to start and says what to do. There
 * is no deployed data; only a developer's own `.data` can be old.
 */
import { GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { localClient } from './dynamodb-local';

/** Bump when the key layout changes in a way old items cannot be read by (docs/data-model.md). */
export const LAYOUT_VERSION = 3;
const KEY = { PK: { S: 'META' }, SK: { S: 'LAYOUT' } };

export class OldLayoutError extends Error {
  override name = 'OldLayoutError';
}

/** Marks a new table with this layout; throws OldLayoutError for a table written by another. */
export async function checkLayoutVersion(endpoint: string, tableName: string, dataDir: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    const { Item } = await client.send(new GetItemCommand({ TableName: tableName, Key: KEY, ConsistentRead: true }));
    const found = Item?.version?.N ? Number(Item.version.N) : undefined;
    if (found === LAYOUT_VERSION) return;
    const { Items } = await client.send(new ScanCommand({ TableName: tableName, Limit: 1 }));
    if (found === undefined && (Items ?? []).length === 0) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: { ...KEY, version: { N: String(LAYOUT_VERSION) } } }));
      return;
    }
    throw new OldLayoutError(
      `The table "${tableName}" in ${dataDir} was written by ${found === undefined ? 'an older' : `another (layout ${found})`} version ` +
        `of the service, which this one (layout ${LAYOUT_VERSION}) cannot read. Move the folder away to start with an empty one ` +
        `(mv ${dataDir} ${dataDir}-old), or use another DATA_DIR.`,
    );
  } finally {
    client.destroy();
  }
}
