import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { localClient } from '#lib/local/dynamodb-local';
import { checkLayoutVersion, LAYOUT_VERSION } from '#lib/local/layout-version';
import { StartupError, startLocalService } from '#lib/local/service';
import { createTestTable } from '#test/support/dynamodb';
import { useTempDir } from '#test/support/temp-dir';

const dataDir = useTempDir('layout-');

describe('the local database layout', () => {
  it('marks a new table, and starts on a marked one', async () => {
    const { endpoint, tableName } = await createTestTable();
    await checkLayoutVersion(endpoint, tableName, dataDir);
    await checkLayoutVersion(endpoint, tableName, dataDir); // marked now: starts again
    const service = await startLocalService({ dataDir, tableName, dynamodbEndpoint: endpoint, log: () => {} });
    await service.stop();
    expect(LAYOUT_VERSION).toBeGreaterThan(1);
  });

  it('refuses a table written by an older version, saying what to do', async () => {
    const { endpoint, tableName } = await createTestTable();
    // What the first layout wrote: every role of a user in one item.
    const client = localClient(endpoint);
    await client.send(
      new PutItemCommand({ TableName: tableName, Item: { PK: { S: 'USER#alice' }, SK: { S: 'ACCESS' }, 'R#x': { S: 'owner' } } }),
    );
    client.destroy();
    const starting = startLocalService({ dataDir, tableName, dynamodbEndpoint: endpoint, log: () => {} });
    await expect(starting).rejects.toBeInstanceOf(StartupError);
    await expect(starting).rejects.toThrow(/older version[\s\S]*\(mv /);
  });
});
