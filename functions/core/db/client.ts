/**
 * The DynamoDB connection (the AWS SDK's document client: plain values in and out) and the
 * requests the item modules (../items/) are made of, with the retries they need: BatchGetItem's
 * unprocessed keys, BatchWriteItem's unprocessed items, and transaction conflicts. Conditions
 * are built in ./conditions.ts, Queries in ./queries.ts. Nothing here knows a key shape.
 */
import { randomUUID } from 'node:crypto';
import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { unavailable } from '../errors';
import type { Key } from '../items/keys';
import { traceClient } from '../tracing';
import type { Condition } from './conditions';
import { recordRequest } from './metrics';

export type Item = Record<string, unknown>;
/** One action of a TransactWriteItems request. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

let base: DynamoDBClient | undefined;
let baseEndpoint: string | undefined;
let client: DynamoDBDocumentClient | undefined;

/**
 * The low-level client, created on first use from the environment (DYNAMODB_ENDPOINT locally),
 * and again if that changes: a test process runs one local service after another, each with its
 * own DynamoDB Local (as `s3()` in ../bucket.ts follows S3_ENDPOINT).
 * Every request through it reports its consumed capacity for the per-request access log: the
 * store's (through the document client below) and the idempotency records' alike.
 */
export function dynamodb(): DynamoDBClient {
  const endpoint = process.env.DYNAMODB_ENDPOINT || undefined;
  if (base && baseEndpoint === endpoint) return base;
  base?.destroy();
  client = undefined;
  baseEndpoint = endpoint;
  base = new DynamoDBClient({
    endpoint,
    // DynamoDB answers in milliseconds (a contended transaction in well under a second): an
    // attempt that takes 3 s will not answer. Three attempts of at most 1 s to connect and 3 s
    // to answer, with the SDK's backoff, give up in about 10 s, so a handler answers 503 itself
    // well inside its 20 s timeout (lib/function-settings.ts) and API Gateway's 30 s, instead
    // of being cut off (which API Gateway reports as a bare 500).
    maxAttempts: 3,
    // Without throwOnRequestTimeout this SDK only logs a warning when requestTimeout passes, and
    // the request waits on: a database that accepts connections and never answers hung requests
    // until API Gateway gave up (test/api/faults.test.ts).
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
  });
  // With tracing on, each request is a subsegment of the trace (../tracing.ts).
  traceClient(base);
  // At `initialize`, outside the SDK's retries: one record per request made.
  base.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      try {
        const result = await next(args);
        recordRequest(operation, (result.output as { ConsumedCapacity?: Parameters<typeof recordRequest>[1] }).ConsumedCapacity);
        return result;
      } catch (error) {
        recordRequest(operation, undefined);
        throw error;
      }
    },
    { step: 'initialize', name: 'storeMetrics' },
  );
  return base;
}

/** The document client the store speaks through: plain values in and out. */
export function db(): DynamoDBDocumentClient {
  // First: a new endpoint's client drops the document client made on the old one.
  const lowLevel = dynamodb();
  client ??= DynamoDBDocumentClient.from(lowLevel, { marshallOptions: { removeUndefinedValues: true } });
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
 * Retries of a transaction cancelled by a conflict (another transaction held one of its items).
 * A conflict says nothing about the conditions: the transaction is simply sent again once the
 * other is likely done. DynamoDB holds an item for a transaction's duration (~10–30 ms on AWS,
 * DynamoDB Local's queue time here), and a cancelled attempt is cheap (refused before any
 * work), so the waits stay short and random (full jitter: no schedule that would make the same
 * writers collide again). They first double from CONFLICT_BASE_MS up to CONFLICT_CAP_MS, to
 * spread a burst; then they shorten again by CONFLICT_AGING_MS an attempt, down to
 * CONFLICT_FLOOR_MS: on a hot item (writers taking turns on one folder) whoever tries first after
 * the holder is done gets in, and with waits that shorten the longer a writer has waited, the
 * early ones come first instead of some losing the draw time after time. Bounded by time:
 * CONFLICT_BUDGET_MS (and at most CONFLICT_RETRIES), then 503, well inside the functions' 20 s
 * timeout. Measured with conflict mode: docs/data-model.md (Writes).
 */
const CONFLICT_RETRIES = 120;
const CONFLICT_BUDGET_MS = 10_000;
const CONFLICT_BASE_MS = 5;
const CONFLICT_CAP_MS = 80;
const CONFLICT_AGING_MS = 5;
const CONFLICT_FLOOR_MS = 10;
const CONFLICT_PEAK = Math.log2(CONFLICT_CAP_MS / CONFLICT_BASE_MS) - 1;
const conflictWait = (attempt: number) =>
  attempt <= CONFLICT_PEAK
    ? Math.min(CONFLICT_CAP_MS, CONFLICT_BASE_MS * 2 ** (attempt + 1))
    : Math.max(CONFLICT_FLOOR_MS, CONFLICT_CAP_MS - CONFLICT_AGING_MS * (attempt - CONFLICT_PEAK));
const conflictBackoff = (attempt: number) => sleep(Math.random() * conflictWait(attempt));

/**
 * Steps whose key may be chosen again on each attempt (a role check on one of the caller's
 * role lanes, items/role.ts): a retry after a conflict on that item picks another lane.
 */
const remakes = new WeakMap<TransactItem, () => TransactItem>();
/** A step made by `make()`, made again (another random choice) for each retry after a conflict. */
export function rechosen(make: () => TransactItem): TransactItem {
  const step = make();
  remakes.set(step, make);
  return step;
}

/**
 * Strongly consistent read of up to 100 items in one request. Returns a lookup by key;
 * a missing item is simply absent. Every request's hot path (the caller's role, the resource)
 * goes through here, so it speaks the low-level client: the document client's second
 * middleware stack cost about 8% of GET /document/{id}'s CPU (bench/results.md §5).
 */
export async function getItems(keys: Key[]): Promise<(key: Key) => Item | undefined> {
  const found = new Map<string, Item>();
  // DynamoDB refuses a request naming one key twice; callers may (a move within the repository).
  let pending: Key[] = [...new Map(keys.map((key) => [keyId(key), key])).values()];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) {
      if (attempt > 5) throw unavailable('The database did not return every item; retry shortly.');
      await backoff(attempt);
    }
    const result = await dynamodb().send(
      new BatchGetItemCommand({
        RequestItems: { [tableName()]: { Keys: pending.map((key) => ({ PK: { S: key.PK }, SK: { S: key.SK } })), ConsistentRead: true } },
      }),
    );
    for (const raw of result.Responses?.[tableName()] ?? []) {
      const item = unmarshall(raw);
      found.set(keyId(item as Key), item);
    }
    pending = (result.UnprocessedKeys?.[tableName()]?.Keys ?? []).map((key) => unmarshall(key) as Key);
  }
  return (key) => found.get(keyId(key));
}

/**
 * Deletes items, 25 to a request (BatchWriteItem), retrying what DynamoDB left unprocessed.
 * Not a transaction: for background work that is safe to repeat (a purge), at half the cost.
 */
export async function deleteItems(keys: readonly Key[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 25) {
    let requests = keys.slice(i, i + 25).map((key) => ({ DeleteRequest: { Key: { PK: key.PK, SK: key.SK } } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > 0) {
        if (attempt > 8) throw unavailable('The database did not delete every item; retry shortly.');
        await backoff(attempt);
      }
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  }
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

const conditionParams = (condition?: Condition) =>
  condition
    ? {
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: condition.names,
        ExpressionAttributeValues: condition.values,
      }
    : {};

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
    ...(conditionParams(condition) as Required<ReturnType<typeof conditionParams>>),
    ...(options.returnItem ? { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
  },
});
/**
 * An UpdateItem step. `condition`: an expression that may use the same names and values as the
 * update, or a Condition whose names and values join them.
 */
export const update = (
  key: Key,
  expression: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
  condition?: string | Condition,
): TransactItem & { Update: NonNullable<TransactItem['Update']> } => {
  const allNames = typeof condition === 'object' ? { ...names, ...condition.names } : names;
  const allValues = typeof condition === 'object' ? { ...values, ...condition.values } : values;
  const conditionExpression = typeof condition === 'object' ? condition.expression : condition;
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeNames: allNames,
      ...(Object.keys(allValues).length > 0 ? { ExpressionAttributeValues: allValues } : {}),
      ...(conditionExpression ? { ConditionExpression: conditionExpression } : {}),
    },
  };
};

/**
 * One conditional UpdateItem on its own (half a transaction's cost): `updated`, or the item as
 * it was when the condition failed (undefined: no such item).
 */
export async function updateItem(step: ReturnType<typeof update>): Promise<{ updated: true } | { updated: false; item: Item | undefined }> {
  try {
    await db().send(new UpdateCommand({ ...step.Update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
    return { updated: true };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // Error payloads are not unmarshalled by the document client.
    return { updated: false, item: error.Item ? unmarshall(error.Item) : undefined };
  }
}

/**
 * All-or-nothing write of named steps, sent in the order given. Conflicts with another
 * transaction in flight are retried here; failed conditions are reported as ConditionFailed,
 * by step name, for the caller to decide (an error status, or a fresh read and another try).
 */
export async function transactWrite(steps: Record<string, TransactItem>): Promise<void> {
  const names = Object.keys(steps);
  let items = Object.values(steps);
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    try {
      // The SDK retries a request whose answer was lost with the same input: the token makes
      // DynamoDB answer a retry of a transaction that did commit with success, not a failed condition.
      await db().send(new TransactWriteCommand({ TransactItems: items, ClientRequestToken: randomUUID() }));
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
      if (attempt >= CONFLICT_RETRIES || performance.now() - started > CONFLICT_BUDGET_MS) {
        throw unavailable('Too many concurrent changes; retry shortly.');
      }
      await conflictBackoff(attempt);
      items = items.map((item) => {
        const make = remakes.get(item);
        return make ? rechosen(make) : item;
      });
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
