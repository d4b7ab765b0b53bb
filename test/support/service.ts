/**
 * The whole service for a test file: its own fresh table in the file's own DynamoDB Local,
 * a temporary data dir (keys, paging secret; removed on stop) and a free port.
 * Call it in beforeAll and stop() in afterAll; one per test file (handlers read process.env).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalService, startLocalService } from '#lib/local/service';
import { createTestTable, dropTestTable } from './dynamodb';
import { newRepository, newUser, type Repository, setRole, type User } from './http';

export async function startTestService(
  options: { log?: (line: string) => void; dynamodbEndpoint?: string } = {},
): Promise<LocalService & { tableName: string }> {
  const { endpoint, tableName } = await createTestTable(options.dynamodbEndpoint);
  const dataDir = await mkdtemp(join(tmpdir(), 'documents-test-'));
  let service: LocalService;
  try {
    service = await startLocalService({
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

/** The most common start of a test file: a service, a user, and one repository of theirs. */
export async function startWithOwner(): Promise<{ svc: TestService; user: User; repo: Repository }> {
  const svc = await startTestService();
  const user = await newUser(svc);
  return { svc, user, repo: await newRepository(user.api) };
}

/**
 * A service and four users: a repository of the owner's (named `name`, if given), shared with
 * the editor and the viewer in those roles; the stranger is no member.
 */
export async function startWithRoles(name?: string) {
  const svc = await startTestService();
  const [owner, editor, viewer, stranger] = await Promise.all([newUser(svc), newUser(svc), newUser(svc), newUser(svc)]);
  const repo = await newRepository(owner.api, name === undefined ? undefined : { name });
  await setRole(owner.api, repo.id, editor.sub, 'editor');
  await setRole(owner.api, repo.id, viewer.sub, 'viewer');
  return { svc, owner, editor, viewer, stranger, repo };
}
