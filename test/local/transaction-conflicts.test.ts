/**
 * Conflict mode (lib/local/transaction-conflicts.ts) against the real DynamoDB Local: what
 * overlaps in time on one item is refused as DynamoDB refuses it, and nothing refused is
 * half-applied. A proxy of the test's own, in front of the run's DynamoDB Local (itself in
 * conflict mode), delays each write HOLD_MS with its items held, so that an overlap is certain.
 */
import {
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  IdempotentParameterMismatchException,
  PutItemCommand,
  QueryCommand,
  TransactGetItemsCommand,
  TransactionCanceledException,
  TransactionConflictException,
  TransactionInProgressException,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoDbProxy, startDynamoDbProxy } from '#lib/local/commit-barrier';
import { localClient } from '#lib/local/dynamodb-local';
import { conflictModeFromEnvironment } from '#lib/local/transaction-conflicts';
import { createTestTable } from '#test/support/dynamodb';

const HOLD_MS = 400;
let table: string;
let proxy: DynamoDbProxy;
let client: DynamoDBClient;
let shared: DynamoDBClient;
let n = 0;

beforeAll(async () => {
  const created = await createTestTable();
  table = created.tableName;
  proxy = await startDynamoDbProxy(created.endpoint, { conflicts: { latencyMs: HOLD_MS } });
  client = localClient(proxy.endpoint);
  shared = localClient(created.endpoint);
});

afterAll(async () => {
  client?.destroy();
  shared?.destroy();
  await proxy?.close();
});

const key = (name: string) => ({ PK: { S: `K#${name}` }, SK: { S: 'ITEM' } });
const fresh = () => `t${n++}`;
const put = (name: string, value = 'v') => ({ Put: { TableName: table, Item: { ...key(name), value: { S: value } } } });
const exists = (name: string) => ({ ConditionCheck: { TableName: table, Key: key(name), ConditionExpression: 'attribute_exists(PK)' } });
const transact = (items: NonNullable<TransactWriteItemsCommandInput['TransactItems']>, via = client, token?: string) =>
  via.send(new TransactWriteItemsCommand({ TransactItems: items, ClientRequestToken: token }));
const read = async (name: string) =>
  (await shared.send(new GetItemCommand({ TableName: table, Key: key(name), ConsistentRead: true }))).Item;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('conflict mode', () => {
  it('cancels a transaction that overlaps another on one item, TransactionConflict at that item, None elsewhere', async () => {
    const [a, b, c] = [fresh(), fresh(), fresh()];
    await transact([put(b)], shared);
    const first = transact([put(a), exists(b)]);
    await sleep(50);
    const error = await failure(transact([put(c), exists(b)]));
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const reasons = (error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code);
    expect(reasons).toEqual(['None', 'TransactionConflict']);
    expect((error as TransactionCanceledException).$metadata.httpStatusCode).toBe(400);
    await first;
    // The cancelled one changed nothing; the first committed whole.
    expect(await read(c)).toBeUndefined();
    expect(await read(a)).toBeDefined();
    // Once the first is over, the same transaction goes through.
    await transact([put(c), exists(b)]);
    expect(await read(c)).toBeDefined();
  });

  it('lets transactions on disjoint items both commit', async () => {
    const [a, b, c, d] = [fresh(), fresh(), fresh(), fresh()];
    const refused = proxy.conflicts!.refused.transactions;
    await Promise.all([transact([put(a), put(b)]), transact([put(c), put(d)])]);
    expect(proxy.conflicts!.refused.transactions).toBe(refused);
    for (const name of [a, b, c, d]) expect(await read(name)).toBeDefined();
  });

  it('refuses a single-item write on an item an ongoing transaction holds, and never a read', async () => {
    const [a, b] = [fresh(), fresh()];
    const first = transact([put(a, 'by transaction'), put(b)]);
    await sleep(50);
    const error = await failure(client.send(new PutItemCommand({ TableName: table, Item: { ...key(a), value: { S: 'by put' } } })));
    expect(error).toBeInstanceOf(TransactionConflictException);
    // Reads are served while the transaction holds the items.
    await client.send(new GetItemCommand({ TableName: table, Key: key(a), ConsistentRead: true }));
    await client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: [key(a), key(b)], ConsistentRead: true } } }));
    await client.send(
      new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': key(a).PK } }),
    );
    await first;
    expect((await read(a))?.value).toEqual({ S: 'by transaction' });
    // The transaction is over: the put goes through.
    await client.send(new PutItemCommand({ TableName: table, Item: { ...key(a), value: { S: 'by put' } } }));
    expect((await read(a))?.value).toEqual({ S: 'by put' });
  });

  it('answers a retry of an ongoing transaction (same ClientRequestToken) with TransactionInProgressException', async () => {
    const token = `token-${fresh()}`;
    const first = transact([put(fresh())], client, token);
    await sleep(50);
    expect(await failure(transact([put(fresh())], client, token))).toBeInstanceOf(TransactionInProgressException);
    await first;
  });

  it('answers a retry of a committed transaction by its token, even while another holds one of its items', async () => {
    // The SDK retries with the same token when an answer is lost (a timeout under load): a
    // cancellation then would tell the caller that a committed transaction did not commit, and
    // its next try would fail its own condition (a create answered 409 "already exists").
    const [a, b, c] = [fresh(), fresh(), fresh()];
    await transact([put(b)], shared);
    const token = `token-${fresh()}`;
    const create = [{ Put: { ...put(a).Put, ConditionExpression: 'attribute_not_exists(PK)' } }, exists(b)];
    await transact(create, client, token);
    const other = transact([put(c), exists(b)]);
    await sleep(50);
    await transact(create, client, token);
    // Other items under the same token: DynamoDB refuses them.
    expect(await failure(transact([put(fresh())], client, token))).toBeInstanceOf(IdempotentParameterMismatchException);
    await other;
  });

  it('cancels a TransactGetItems on an item an ongoing transaction writes', async () => {
    const [a, b] = [fresh(), fresh()];
    await transact([put(b)], shared);
    const first = transact([put(a)]);
    await sleep(50);
    const error = await failure(
      client.send(
        new TransactGetItemsCommand({
          TransactItems: [{ Get: { TableName: table, Key: key(b) } }, { Get: { TableName: table, Key: key(a) } }],
        }),
      ),
    );
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      'None',
      'TransactionConflict',
    ]);
    await first;
  });

  it('is on unless DYNAMODB_LOCAL_CONFLICTS turns it off', () => {
    expect(conflictModeFromEnvironment({})).toBe(true);
    expect(conflictModeFromEnvironment({ DYNAMODB_LOCAL_CONFLICTS: 'on' })).toBe(true);
    for (const off of ['off', 'false', '0', 'no', 'OFF'])
      expect(conflictModeFromEnvironment({ DYNAMODB_LOCAL_CONFLICTS: off })).toBe(false);
  });

  it('holds nothing once every request is answered', async () => {
    expect(proxy.conflicts?.held).toBe(0);
  });

  it('is on in the run’s DynamoDB Local: racing transactions on one item conflict, and the losers change nothing', async () => {
    const hot = fresh();
    await transact([put(hot)], shared);
    // 16 at once overlap nearly always; a round whose requests happened to arrive one after the
    // other proves nothing, so up to 5 rounds, until one has conflicted.
    let cancelledAtAll = 0;
    for (let round = 0; round < 5 && cancelledAtAll === 0; round++) {
      const names = Array.from({ length: 16 }, () => fresh());
      const outcomes = await Promise.all(names.map((name) => failure(transact([put(name), exists(hot)], shared))));
      const cancelled = outcomes.filter((error) => error instanceof TransactionCanceledException);
      expect(outcomes.filter((error) => error !== undefined && !(error instanceof TransactionCanceledException))).toEqual([]);
      for (const error of cancelled) {
        expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
          'None',
          'TransactionConflict',
        ]);
      }
      const written = await Promise.all(names.map(read));
      expect(written.map((item, i) => item !== undefined && outcomes[i] === undefined)).toEqual(written.map((item) => item !== undefined));
      cancelledAtAll += cancelled.length;
    }
    expect(cancelledAtAll).toBeGreaterThan(0);
  });
});
