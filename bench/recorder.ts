/**
 * Records every request the service's DynamoDB client sends while recording is on: what it
 * was (to replay reads in the baseline), when it ran (round trips), what DynamoDB Local said
 * it consumed, and what AWS would bill for the items it touched (test/support/item-size.ts). Runs in
 * the service process, on the handlers' own client.
 */
import type { DynamoDb, Operation } from '#core/store/client';
import { type ItemKind, type Key, kindOf } from '#core/store/keys';
import { itemSize, readUnits, type StoredItem, transactionalWriteUnits } from '#test/support/item-size';

/** One item a request read or wrote, and the units AWS bills for it. */
export interface Touched {
  kind: ItemKind | 'unknown';
  action: 'read' | 'write';
  bytes: number;
  units: number;
}

export interface Recorded {
  operation: Operation;
  /** The input as the store gave it (plain values), to replay it. */
  input: Record<string, any>;
  startedAt: number;
  endedAt: number;
  local: { read: number; write: number };
  /** Per item, in request order; a Query's page is one entry (its units are the page's). */
  touched: Touched[];
}

const readOperations = new Set(['BatchGetItem', 'GetItem', 'Query']);
let log: Recorded[] | undefined;
let imagesFrom: DynamoDb | undefined;

/**
 * `images`: a separate client used to read each transaction item before and after the write
 * (its size decides the bill). Only for the capacity scenario: it adds requests of its own,
 * which are not recorded.
 */
export function startRecording(options: { images?: DynamoDb } = {}): void {
  log = [];
  imagesFrom = options.images;
}

export function stopRecording(): Recorded[] {
  const recorded = log ?? [];
  log = undefined;
  return recorded;
}

/**
 * Recorded requests grouped by round trip: a request that starts after every earlier one
 * ended opens a new wave; requests of one wave were in flight together.
 */
export function inWaves<R extends Pick<Recorded, 'startedAt' | 'endedAt'>>(recorded: readonly R[]): R[][] {
  const waves: R[][] = [];
  let waveEnd = -Infinity;
  for (const request of [...recorded].sort((a, b) => a.startedAt - b.startedAt)) {
    if (request.startedAt >= waveEnd) {
      waves.push([]);
      waveEnd = request.endedAt;
    } else {
      waveEnd = Math.max(waveEnd, request.endedAt);
    }
    waves.at(-1)!.push(request);
  }
  return waves;
}

/** Adds the recorder to the service's client: it sees every attempt, after the metrics interceptor. */
export function installRecorder(client: DynamoDb, tableName: string): void {
  client.use(async (call, next) => {
    if (!log) return next();
    const input = structuredClone(call.input);
    delete input.ClientRequestToken; // a replay must not be taken for a retry of this one
    const transactionKeys: Key[] =
      call.operation === 'TransactWriteItems' ? input.TransactItems.map((action: object) => keyOf(Object.values(action)[0])) : [];
    const before = imagesFrom ? await readImages(imagesFrom, tableName, transactionKeys) : [];
    const entry: Recorded = {
      operation: call.operation,
      input,
      startedAt: performance.now(),
      endedAt: NaN,
      local: { read: 0, write: 0 },
      touched: [],
    };
    log.push(entry);
    let output: Record<string, any>;
    try {
      output = await next();
    } finally {
      entry.endedAt = performance.now();
    }
    const consumed = [output.ConsumedCapacity ?? []]
      .flat()
      .reduce((sum: number, c: { CapacityUnits?: number }) => sum + (c.CapacityUnits ?? 0), 0);
    if (readOperations.has(call.operation)) entry.local.read += consumed;
    else entry.local.write += consumed;
    if (call.operation === 'BatchGetItem') entry.touched = batchGetTouched(input, output, tableName);
    if (call.operation === 'Query') entry.touched = [queryTouched(output)];
    if (call.operation === 'TransactWriteItems' && imagesFrom) {
      const after = await readImages(imagesFrom, tableName, transactionKeys);
      entry.touched = transactionKeys.map((key, i) => {
        const bytes = Math.max(itemSize(before[i]), itemSize(after[i]));
        return { kind: kindOf(key) ?? 'unknown', action: 'write', bytes, units: transactionalWriteUnits(bytes) };
      });
    }
    return output;
  });
}

/** A transaction action's key: `Key`, or a Put's item's key attributes. */
function keyOf(action: { Key?: StoredItem; Item?: StoredItem }): Key {
  const source = action.Key ?? action.Item!;
  return { PK: source.PK as string, SK: source.SK as string };
}

const idOf = (key: Key) => `${key.PK}\u0000${key.SK}`;

function batchGetTouched(input: any, output: any, tableName: string): Touched[] {
  const found = new Map<string, StoredItem>();
  for (const item of (output.Responses?.[tableName] ?? []) as StoredItem[]) found.set(idOf(keyOf({ Item: item })), item);
  return (input.RequestItems[tableName].Keys as Key[]).map((key) => {
    const bytes = itemSize(found.get(idOf(key)));
    return { kind: kindOf(key) ?? 'unknown', action: 'read', bytes, units: readUnits(bytes) };
  });
}

function queryTouched(output: any): Touched {
  const items = (output.Items ?? []) as StoredItem[];
  const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
  const first = items[0];
  return { kind: (first && kindOf(keyOf({ Item: first }))) ?? 'unknown', action: 'read', bytes, units: readUnits(bytes) };
}

async function readImages(client: DynamoDb, tableName: string, keys: Key[]): Promise<(StoredItem | undefined)[]> {
  return Promise.all(
    keys.map(
      async (key) =>
        (await client.send('GetItem', { TableName: tableName, Key: key, ConsistentRead: true })).Item as StoredItem | undefined,
    ),
  );
}
