/**
 * The local database's layout version. A table written by an older version of the service
 * (names keyed by lower-casing, every role in one item per user; layout 2: a role in one bucket,
 * not in each of the member's lanes; layout 3: a document's content in its `DOC` item, no
 * `storage` or `sha256`, no repository `USAGE` item) cannot be read by this one:
 * rather than answer wrongly from it, the service refuses to start and says what to do. There
 * is no deployed data; only a developer's own `.data` can be old.
 *
 * Indexes are not a layout change: a table made before the sweeper's index (lib/table.ts) is
 * given it here, at start (`ensureIndexes`), and DynamoDB Local fills it from the items there.
 * Items written before it have no sweep attributes, so the sweeper never sees them: only work
 * whose stream record is lost *and* that was written before the upgrade would wait for a person.
 */
import {
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '#lib/table';
import { localClient } from './dynamodb-local';

/** Bump when the key layout changes in a way old items cannot be read by (docs/data-model.md). */
export const LAYOUT_VERSION = 4;
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
    if (found === LAYOUT_VERSION) return await ensureIndexes(client, tableName);
    const { Items } = await client.send(new ScanCommand({ TableName: tableName, Limit: 1 }));
    if (found === undefined && (Items ?? []).length === 0) {
      await client.send(new PutItemCommand({ TableName: tableName, Item: { ...KEY, version: { N: String(LAYOUT_VERSION) } } }));
      return await ensureIndexes(client, tableName);
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

/**
 * Gives the table the secondary indexes lib/table.ts defines that it lacks (a table made by
 * lib/local/dynamodb-local.ts's ensureTable, or by an older version of the service), and waits
 * until they are active. `endpoint` or a client of it.
 */
export async function ensureIndexes(endpointOrClient: string | DynamoDBClient, tableName: string): Promise<void> {
  const client = typeof endpointOrClient === 'string' ? localClient(endpointOrClient) : endpointOrClient;
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const have = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    for (const index of tableDefinition.globalSecondaryIndexes) {
      if (have.has(index.name)) continue;
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [index.partitionKey, index.sortKey].map((key) => ({ AttributeName: key.name, AttributeType: key.type })),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: index.name,
                KeySchema: [
                  { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
                  { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: index.projection },
              },
            },
          ],
        }),
      );
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      let waiting: string | undefined;
      try {
        const { Table: now } = await client.send(new DescribeTableCommand({ TableName: tableName }));
        waiting = (now?.GlobalSecondaryIndexes ?? []).find((index) => index.IndexStatus !== 'ACTIVE')?.IndexName;
        if (waiting === undefined) return;
      } catch (error) {
        // While it fills a new index, DynamoDB Local now and then answers DescribeTable with an
        // InternalFailure (seen in a test run): a server fault, asked again until the deadline.
        const { $fault, name } = error as { $fault?: string; name?: string };
        const serverFault = $fault === 'server' || name === 'InternalFailure' || name === 'InternalServerError';
        if (!serverFault || Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`The index ${waiting} of ${tableName} did not become active in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    if (typeof endpointOrClient === 'string') client.destroy();
  }
}
