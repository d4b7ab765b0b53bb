/**
 * The whole service for a test file: its own fresh table in the file's own DynamoDB Local,
 * a temporary data dir (keys, paging secret; removed on stop) and a free port.
 * One per test file (handlers read process.env); most files get it through test/support/fixture.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalService, type LocalServiceOptions, startLocalService } from '#lib/local/service';
import { createTestTable, dropTestTable } from './dynamodb';

/** What a test may choose of the local service's options; the rest are the test defaults above. */
export type TestServiceOptions = Pick<LocalServiceOptions, 'log' | 'dynamodbEndpoint' | 'onAnswer' | 'printMetrics'>;

export async function startTestService(options: TestServiceOptions = {}): Promise<LocalService & { tableName: string; dataDir: string }> {
  const { endpoint, tableName } = await createTestTable(options.dynamodbEndpoint);
  const dataDir = await mkdtemp(join(tmpdir(), 'documents-test-'));
  let service: LocalService;
  try {
    service = await startLocalService({
      ...options,
      port: 0,
      dataDir,
      tableName,
      dynamodbEndpoint: endpoint,
      // Quiet by default: the access log would drown the test report.
      log: options.log ?? (() => {}),
    });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    ...service,
    tableName,
    dataDir,
    async stop() {
      try {
        await service.stop();
        await dropTestTable(endpoint, tableName);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export type TestService = Awaited<ReturnType<typeof startTestService>>;
