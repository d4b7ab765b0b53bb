/**
 * The DynamoDB connection and the few request shapes the store uses, with the retries
 * they need: BatchGetItem's unprocessed keys, and transaction conflicts.
 */
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { unavailable } from '#core/errors';
import type { Key } from './keys';
import { recordRequest } from './metrics';

export type Item = Record<string, unknown>;

/** One action of a TransactWriteItems request, as the store builds it (plain values). */
export type TransactItem =
  | { Put: Record<string, unknown> }
  | { Delete: Record<string, unknown> }
  | { ConditionCheck: Record<string, unknown> }
  | { Update: Record<string, unknown> };

/** The DynamoDB operations the store (and its tests and benchmarks) send, by DynamoDB's names. */
const commands = {
  BatchGetItem: BatchGetCommand,
  BatchWriteItem: BatchWriteCommand,
  GetItem: GetCommand,
  PutItem: PutCommand,
  Query: QueryCommand,
  TransactWriteItems: TransactWriteCommand,
} as const;
export type Operation = keyof typeof commands;

/** One request as interceptors see it: plain values, before marshalling. */
export interface Call {
  operation: Operation;
  input: Record<string, any>;
}
/** Wraps each request: observe it, time it, count it. Must call `next` once and return what it returns. */
export type Interceptor = (call: Call, next: () => Promise<Record<string, any>>) => Promise<Record<string, any>>;

/**
 * The AWS SDK's document client (plain values in and out), seen through the few operations
 * the store uses, so the store, its tests and the benchmarks name operations, not command classes.
 */
export interface DynamoDb {
  send(operation: Operation, input: Record<string, any>): Promise<Record<string, any>>;
  /** Adds an interceptor around every request (the SDK's own retries happen inside it). */
  use(interceptor: Interceptor): void;
}

export function createDynamoDb(client: DynamoDBClient): DynamoDb {
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    async send(operation, input) {
      // The store builds each input for its operation; the command classes' own input types
      // are not worth restating here.
      const Command = commands[operation] as unknown as new (input: Record<string, any>) => Parameters<typeof documents.send>[0];
      return (await documents.send(Command === undefined ? unknownOperation(operation) : new Command(input))) as Record<string, any>;
    },
    use(interceptor) {
      documents.middlewareStack.add(
        (next, context) => async (args) => {
          let result: Awaited<ReturnType<typeof next>> | undefined;
          // The low-level command's name, e.g. `BatchGetItemCommand`: the operation's own name.
          const operation = (context.commandName ?? '').replace(/Command$/, '') as Operation;
          const output = await interceptor({ operation, input: args.input as Record<string, any> }, async () => {
            result = await next(args);
            return result.output as Record<string, any>;
          });
          return { ...result!, output } as typeof result & {};
        },
        { step: 'initialize' },
      );
    },
  };
}

function unknownOperation(operation: string): never {
  throw new Error(`The store does not send ${operation}`);
}

let client: DynamoDb | undefined;

/** Created on first use, from the environment: TABLE_NAME, and DYNAMODB_ENDPOINT locally. */
export function db(): DynamoDb {
  if (client) return client;
  client = createDynamoDb(
    new DynamoDBClient({
      endpoint: process.env.DYNAMODB_ENDPOINT || undefined,
      maxAttempts: 3,
      // Answer 503 well before API Gateway's 30 s limit when the database does not answer.
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
    }),
  );
  // Every request reports its consumed capacity, for the per-request access log.
  client.use(async (call, next) => {
    call.input.ReturnConsumedCapacity = 'TOTAL';
    try {
      const output = await next();
      recordRequest(call.operation, output.ConsumedCapacity);
      return output;
    } catch (error) {
      recordRequest(call.operation, undefined);
      throw error;
    }
  });
  return client;
}

export function tableName(): string {
  const name = process.env.TABLE_NAME;
  if (!name) throw new Error('TABLE_NAME is not set');
  return name;
}

const keyId = (key: Key) => `${key.PK}\u0000${key.SK}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Full jitter: a random wait up to a doubling cap, so racing writers spread out. */
const backoff = (attempt: number) => sleep(Math.random() * Math.min(200, 10 * 2 ** attempt));

/**
 * Strongly consistent read of up to 100 items in one request. Returns a lookup by key;
 * a missing item is simply absent.
 */
export async function getItems(keys: Key[]): Promise<(key: Key) => Item | undefined> {
  const found = new Map<string, Item>();
  let pending: Key[] = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) {
      if (attempt > 5) throw unavailable('The database did not return every item; retry shortly.');
      await backoff(attempt);
    }
    const result = await db().send('BatchGetItem', { RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } });
    for (const item of result.Responses?.[tableName()] ?? []) found.set(keyId(item as Key), item);
    pending = (result.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
  }
  return (key) => found.get(keyId(key));
}

export interface QueryInput {
  KeyConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  ExclusiveStartKey?: Item;
  Limit?: number;
  ScanIndexForward?: boolean;
}

/** One page of a partition, strongly consistent, in sort-key order. */
export async function queryPage(input: QueryInput): Promise<{ items: Item[]; lastKey?: Item }> {
  const result = await db().send('Query', { ...input, TableName: tableName(), ConsistentRead: true });
  return { items: (result.Items ?? []) as Item[], lastKey: result.LastEvaluatedKey as Item | undefined };
}

/**
 * Conditions of a transaction did not hold. `failed` names the steps whose condition failed
 * (DynamoDB reports each item's outcome: CancellationReasons, in request order); `items`
 * holds the stored item of a failed step that asked for it (`check(..., { returnItem })`).
 */
export class ConditionFailed extends Error {
  constructor(
    readonly failed: ReadonlySet<string>,
    readonly items: Readonly<Record<string, Item | undefined>>,
  ) {
    super(`A transaction condition failed: ${[...failed].join(', ')}`);
    this.name = 'ConditionFailed';
  }
}

/** A condition on one item of a transaction. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

const conditionParams = (condition?: Condition) =>
  condition
    ? {
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: condition.names,
        ExpressionAttributeValues: condition.values,
      }
    : {};

export const itemIsAbsent: Condition = { expression: 'attribute_not_exists(PK)' };
export const itemExists: Condition = { expression: 'attribute_exists(PK)' };
export const versionIs = (version: number): Condition => ({
  expression: '#version = :version',
  names: { '#version': 'version' },
  values: { ':version': version },
});
export const idIs = (id: string): Condition => attributeIs('id', id);
/** False when the item or the attribute is missing, as every comparison in a condition. */
export const attributeIs = (attribute: string, value: string): Condition => ({
  expression: '#attribute = :value',
  names: { '#attribute': attribute },
  values: { ':value': value },
});
export const attributeIn = (attribute: string, values: readonly string[]): Condition => ({
  expression: `#attribute IN (${values.map((_, i) => `:value${i}`).join(', ')})`,
  names: { '#attribute': attribute },
  values: Object.fromEntries(values.map((value, i) => [`:value${i}`, value])),
});

export const put = (item: Item, condition?: Condition): TransactItem => ({
  Put: { TableName: tableName(), Item: item, ...conditionParams(condition) },
});
export const remove = (key: Key, condition?: Condition): TransactItem => ({
  Delete: { TableName: tableName(), Key: key, ...conditionParams(condition) },
});
/** `returnItem`: on failure, report the item as it was (ConditionFailed.items). */
export const check = (key: Key, condition: Condition, options: { returnItem?: boolean } = {}): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(),
    Key: key,
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: condition.names,
    ExpressionAttributeValues: condition.values,
    ...(options.returnItem ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } : {}),
  },
});
export const update = (key: Key, expression: string, names: Record<string, string>, values: Record<string, unknown>): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: key,
    UpdateExpression: expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  },
});

/**
 * All-or-nothing write of named steps, sent in the order given. Conflicts with another
 * transaction in flight are retried here; failed conditions are reported as ConditionFailed,
 * by step name, for the caller to decide (an error status, or a fresh read and another try).
 */
export async function transactWrite(steps: Record<string, TransactItem>): Promise<void> {
  const names = Object.keys(steps);
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send('TransactWriteItems', { TransactItems: Object.values(steps) });
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const codes = reasons.map((reason) => reason.Code);
      if (codes.includes('ConditionalCheckFailed')) {
        const failed = new Set<string>();
        const items: Record<string, Item | undefined> = {};
        names.forEach((name, i) => {
          if (reasons[i]?.Code !== 'ConditionalCheckFailed') return;
          failed.add(name);
          // Error payloads are not unmarshalled by the document client.
          const item = reasons[i]?.Item;
          items[name] = item ? unmarshall(item) : undefined;
        });
        throw new ConditionFailed(failed, items);
      }
      // Only a conflict with another transaction is worth retrying; anything else
      // (throttling, a validation error) goes to the error mapping as it is.
      if (!codes.includes('TransactionConflict')) throw error;
      if (attempt >= 4) throw unavailable('Too many concurrent changes; retry shortly.');
      await backoff(attempt);
    }
  }
}

/**
 * Runs read → decide → conditional write until the write's conditions hold. Each attempt
 * re-reads, so an error (404, 409, 412…) is decided on fresh state, never on a stale read.
 */
export async function optimistically<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      if (tries >= 5) throw unavailable('Too many concurrent changes; retry shortly.');
      await backoff(tries);
    }
  }
}
