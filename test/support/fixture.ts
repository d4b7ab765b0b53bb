/**
 * A test file's set-up in one call at its top: the service started before the file's tests and
 * stopped after them, with the users and repository the file starts from (`useService…`); for
 * tests of the data layer without the service, a table of their own (`useTable`).
 *
 *   const ctx = useServiceWithOwner();
 *   it('…', async () => { await ctx.user.api.get(`/${ctx.repo.id}`); });
 *
 * The returned object is empty until the hooks this call registers have run: read its fields in
 * tests and hooks, not at the top level. A file's own `beforeAll` hooks, registered after this
 * call, run after it (and its `afterAll` hooks before the service stops).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { useTestTable } from './dynamodb';
import { newRepository, newUser, type Repository, setRole, type User } from './http';
import { startTestService, type TestService, type TestServiceOptions } from './service';

/** The service, and a client of its file bucket that signs as the runtime itself (any object, any action). */
export interface ServiceContext {
  svc: TestService;
  bucket: S3Client;
}

/**
 * What a file sets up on the started service before its tests: the fields it returns join the
 * context. It works with the service it is given: the context's own fields are not there yet.
 */
export type Seed<T> = (svc: TestService) => Promise<T>;

/** What the seeds below need of a service: any local service will do, this fixture's or a file's own. */
type Reachable = Pick<TestService, 'url' | 'issueToken'>;

/** The file's service, started with `options` and seeded with `seed`, if given. */
export function useService<T extends object = object>(options: TestServiceOptions & { seed?: Seed<T> } = {}): ServiceContext & T {
  const { seed, ...serviceOptions } = options;
  const ctx = {} as ServiceContext & T;
  beforeAll(async () => {
    ctx.svc = await startTestService(serviceOptions);
    ctx.bucket = bucketClient(ctx.svc);
    if (seed) Object.assign(ctx, await seed(ctx.svc));
  });
  afterAll(async () => {
    ctx.bucket?.destroy();
    await ctx.svc?.stop();
  });
  return ctx;
}

/** A user and one repository of theirs: the most common start of a file. */
export async function withOwner(svc: Reachable): Promise<{ user: User; repo: Repository }> {
  const user = await newUser(svc);
  return { user, repo: await newRepository(user.api) };
}

/**
 * Four users: a repository of the owner's (named `name`, if given), shared with the editor and
 * the viewer in those roles; the stranger is no member.
 */
export async function withRoles(svc: Reachable, name?: string) {
  const [owner, editor, viewer, stranger] = await Promise.all([newUser(svc), newUser(svc), newUser(svc), newUser(svc)]);
  const repo = await newRepository(owner.api, name === undefined ? undefined : { name });
  await setRole(owner.api, repo.id, editor.sub, 'editor');
  await setRole(owner.api, repo.id, viewer.sub, 'viewer');
  return { owner, editor, viewer, stranger, repo };
}

export const useServiceWithOwner = () => useService({ seed: withOwner });

export const useServiceWithRoles = (name?: string) => useService({ seed: (svc) => withRoles(svc, name) });

/**
 * A client of the service's S3 emulator with the runtime's own credentials. Checksums only where
 * S3 requires them: the emulator ignores them, and a plain PutObject is what the tests mean.
 */
function bucketClient(svc: TestService): S3Client {
  return new S3Client({
    endpoint: svc.s3.endpoint,
    forcePathStyle: true,
    region: svc.s3.region,
    credentials: svc.s3.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * For tests of the data layer without the service: a fresh table in the file's own DynamoDB
 * Local, and this process's environment pointed at it, before the file's tests.
 */
export function useTable(): { endpoint: string; tableName: string } {
  const table = { endpoint: '', tableName: '' };
  beforeAll(async () => {
    Object.assign(table, await useTestTable());
  });
  return table;
}
