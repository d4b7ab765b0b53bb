/**
 * The local runtime holds each function to its IAM grants (lib/local/permissions.ts), so a
 * route whose declared actions miss one its code uses fails here as it would on AWS. The
 * actions are planted out of the route table, and put back after each test.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteItems } from '#core/db/client';
import { type DynamoDbAction, dynamodbActionsOf, IDEMPOTENCY_ACTIONS, type Route, routes, workerFunction } from '#functions/routes';
import { actionsNeeded, runAsFunction } from '#lib/local/permissions';
import { useService } from '#test/support/fixture';
import { ensure, expectProblem, type Folder, newFolder, newRepository, newUser, problemType } from '#test/support/http';

const ctx = useService();

const declared = new Map(routes.map((route) => [route, route.dynamodb]));
afterEach(() => {
  for (const [route, actions] of declared) (route as { dynamodb: readonly DynamoDbAction[] }).dynamodb = actions;
});

/** Takes `action` out of what `name` declares, as a forgetful edit of functions/routes.ts would. */
function plantMissing(name: string, action: DynamoDbAction): Route {
  const route = routes.find((r) => r.name === name)!;
  (route as { dynamodb: readonly DynamoDbAction[] }).dynamodb = route.dynamodb.filter((a) => a !== action);
  return route;
}

describe('what a request needs from IAM', () => {
  it('is its own action, or one per step of a transaction, and a read for ALL_OLD on a failed check', () => {
    expect(actionsNeeded('BatchGetItem', {})).toEqual(['dynamodb:BatchGetItem']);
    expect(
      actionsNeeded('TransactWriteItems', {
        TransactItems: [{ Put: {} }, { ConditionCheck: {} }, { Delete: {} }, { Update: {} }],
      }),
    ).toEqual(['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(
      actionsNeeded('TransactWriteItems', { TransactItems: [{ ConditionCheck: { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } }] }),
    ).toEqual(['dynamodb:ConditionCheckItem', 'dynamodb:GetItem']);
    expect(actionsNeeded('PutItem', { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
  });

  it('includes the Idempotency-Key record’s actions on every write route, and on no read route', () => {
    for (const route of routes) {
      const actions = dynamodbActionsOf(route);
      for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'] as const) {
        if (route.method !== 'GET') expect(actions, route.name).toContain(action);
      }
      if (route.method === 'GET') expect(actions, route.name).not.toContain('dynamodb:PutItem');
    }
    expect(dynamodbActionsOf(workerFunction)).toEqual([...new Set(workerFunction.dynamodb)].sort());
  });
});

describe('a route missing an action its code uses', () => {
  it('GET / without BatchGetItem fails as on AWS (the review’s defect), and answers once it is declared', async () => {
    const { api } = await newUser(ctx.svc);
    await newRepository(api);
    plantMissing('ListRepositories', 'dynamodb:BatchGetItem');
    const denied = await api.get('/');
    expect(denied.status).toBe(500);
    expect(JSON.stringify(denied.body)).not.toMatch(/AccessDenied|dynamodb:|arn:/);
    for (const [route, actions] of declared) (route as { dynamodb: readonly DynamoDbAction[] }).dynamodb = actions;
    expect(ensure(await api.get('/'), 200).body).toMatchObject({ items: [expect.objectContaining({ role: 'owner' })] });
  });

  it('a write without ConditionCheckItem fails and changes nothing', async () => {
    const { api } = await newUser(ctx.svc);
    const repository = await newRepository(api);
    plantMissing('CreateFolder', 'dynamodb:ConditionCheckItem');
    expect((await api.post('/folder', { parentId: repository.rootFolderId, name: 'never' })).status).toBe(500);
    const listed = ensure(await api.get(`/folder/${repository.rootFolderId}/folders`), 200).body as { items: unknown[] };
    expect(listed.items).toEqual([]);
  });
});

describe('the worker', () => {
  it('is held to its grants too: without BatchWriteItem a purge’s batch delete is refused before it is sent', async () => {
    const key = { PK: 'PERMISSIONS#test', SK: 'ITEM' };
    const planted = { ...workerFunction, dynamodb: workerFunction.dynamodb.filter((a) => a !== 'dynamodb:BatchWriteItem') };
    await expect(runAsFunction(planted, () => deleteItems([key]))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    await expect(runAsFunction(workerFunction, () => deleteItems([key]))).resolves.toBeUndefined();
  });
});

describe('the Idempotency-Key layer’s own failures', () => {
  const kept = [...IDEMPOTENCY_ACTIONS];
  const withoutIdempotency = (action: DynamoDbAction) => {
    (IDEMPOTENCY_ACTIONS as DynamoDbAction[]).splice(0, Infinity, ...kept.filter((a) => a !== action));
    // A grant is made again when its route's list is another one (lib/local/permissions.ts): a
    // copy of each, put back by the afterEach above, as a function served before now is cached.
    for (const route of routes) (route as { dynamodb: readonly DynamoDbAction[] }).dynamodb = [...route.dynamodb];
  };
  afterEach(() => void (IDEMPOTENCY_ACTIONS as DynamoDbAction[]).splice(0, Infinity, ...kept));

  it('a key that cannot be claimed is a 503 with Retry-After, and nothing runs', async () => {
    const { api } = await newUser(ctx.svc);
    const repository = await newRepository(api);
    withoutIdempotency('dynamodb:PutItem');
    plantMissing('CreateFolder', 'dynamodb:PutItem');
    const res = await api.post('/folder', { parentId: repository.rootFolderId, name: 'claimed' }, { 'Idempotency-Key': randomUUID() });
    expectProblem(res, 503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((ensure(await api.get(`/folder/${repository.rootFolderId}/folders`), 200).body as { items: unknown[] }).items).toEqual([]);
  });

  it('an answer that cannot be stored still goes out, and a repeat does not run the write again', async () => {
    const { api } = await newUser(ctx.svc);
    const repository = await newRepository(api);
    const folder = await newFolder(api, repository.rootFolderId);
    withoutIdempotency('dynamodb:UpdateItem');
    const headers = { 'Idempotency-Key': randomUUID() };
    const renamed = ensure(await api.put('/folder', { id: folder.id, name: 'renamed' }, headers), 200).body as Folder;
    expect(renamed.version).toBe(2);
    expectProblem(await api.put('/folder', { id: folder.id, name: 'renamed' }, headers), 409, problemType.requestInProgress);
    expect((ensure(await api.get(`/folder/${folder.id}`), 200).body as Folder).version).toBe(2);
  });

  it('a key that cannot be released after a failure leaves the request’s own problem, never a crashed function', async () => {
    const { api } = await newUser(ctx.svc);
    const repository = await newRepository(api);
    const folder = await newFolder(api, repository.rootFolderId);
    withoutIdempotency('dynamodb:DeleteItem');
    plantMissing('UpdateFolder', 'dynamodb:DeleteItem');
    const res = await api.put('/folder', { id: folder.id, name: 'never' }, { 'Idempotency-Key': randomUUID() });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    // The handler's own problem (functions/core/errors.ts), not the gateway's answer to a function that threw.
    expect((res.body as { detail: string }).detail).toBe('An unexpected error occurred.');
    expect((ensure(await api.get(`/folder/${folder.id}`), 200).body as Folder).name).toBe(folder.name);
  });
});
