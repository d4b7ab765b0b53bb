/**
 * A table written by an older version of the service is refused at start, with what to do,
 * instead of being read wrongly; a new table is marked with this layout; a marked one starts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localClient } from '#lib/local/dynamodb-local';
import { checkLayoutVersion, LAYOUT_VERSION } from '#lib/local/layout-version';
import { StartupError, startLocalService } from '#lib/local/service';
import { createTestTable } from '#test/support/dynamodb';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'layout-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

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
