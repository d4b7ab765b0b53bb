/**
 * Records the requests the store's DynamoDB client sends while recording is on (SDK middleware
 * on `db()`, in the service process): each request's operation and timing (round trips), what
 * DynamoDB Local says it consumed, and what AWS would bill for the items it touched
 * (test/support/item-size.ts). Transaction items are read before and after the write, with a
 * client of its own (not recorded), since the larger image decides the bill.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, type Item, tableName } from '#core/db/client';
import type { Key } from '#core/items/keys';
import { localClient } from '#lib/local/dynamodb-local';
import { itemSize, readUnits, transactionalWriteUnits } from '#test/support/item-size';

/** A write outside a transaction (BatchWriteItem): 1 write unit per 1 KB of the larger image (a delete: the item deleted). */
const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** Item kinds by key shape (functions/core/items/keys.ts). */
const KINDS: [kind: string, pk: string, sk: RegExp][] = [
  ['repository', 'REPO#', /^REPO$/],
  ['member', 'REPO#', /^M#/],
  ['trash record', 'REPO#', /^TRASH#/],
  ['role', 'ACL#', /^ACL$/],
  ['folder', 'FOLDER#', /^FOLDER$/],
  ['entry', 'FOLDER#', /^[FD]#/],
  ['document', 'DOC#', /^DOC$/],
  ['revision', 'DOC#', /^REV#/],
  ['content', 'DOC#', /^CONTENT#/],
  ['profile', 'USER#', /^PROFILE$/],
  ['membership', 'USER#', /^REPO#/],
  ['change', 'FEED#', /^P#/],
  ['numbered change', 'FEED#', /^S#/],
  ['feed counter', 'FEED#', /^SEQ$/],
  ['task', 'TASK#', /^TASK$/],
];
/** A key of a shape not listed above is named by its prefixes (`DOC# REV#`), so it still shows. */
export const kindOf = ({ PK, SK }: Key) =>
  KINDS.find(([, pk, sk]) => PK.startsWith(pk) && sk.test(SK))?.[0] ?? `${PK.replace(/#.*/, '#')} ${SK.replace(/#.*/, '#')}`;

/** One item a request read or wrote, and the units AWS bills for it. */
export interface Touched {
  kind: string;
  action: 'read' | 'write';
  units: number;
}

export interface Recorded {
  operation: string;
  startedAt: number;
  endedAt: number;
  /** Sent by the background worker (recorded only with `{ worker: true }`). */
  worker: boolean;
  /** What DynamoDB Local reported (ReturnConsumedCapacity TOTAL). */
  local: { read: number; write: number };
  /** In request order; a Query's page is one entry. */
  touched: Touched[];
}

const keyOf = (item: Item): Key => ({ PK: item.PK as string, SK: item.SK as string });
/** A transaction action's key: its `Key`, or its Put's item's. */
const actionKey = (action: object): Key => {
  const { Key, Item } = Object.values(action)[0] as { Key?: Key; Item?: Item };
  return Key ?? keyOf(Item!);
};
/** An empty page's kind: the kind its key condition names (its partition, and the start of its sort-key range). */
const queriedKind = (input: { ExpressionAttributeValues?: Record<string, unknown> }) => {
  const values = input.ExpressionAttributeValues ?? {};
  const PK = values[':pk'];
  const SK = values[':prefix'] ?? values[':from'];
  return typeof PK === 'string' && typeof SK === 'string' ? kindOf({ PK, SK }) : 'nothing';
};
const read = (key: Key, item?: Item): Touched => ({ kind: kindOf(key), action: 'read', units: readUnits(itemSize(item)) });

let log: Recorded[] = [];
const RECORDER = 'benchRecorder';
let reader: DynamoDBDocumentClient | undefined;
const images = (keys: Key[]) => {
  reader ??= DynamoDBDocumentClient.from(localClient(process.env.DYNAMODB_ENDPOINT!));
  return Promise.all(
    keys.map(async (Key) => (await reader!.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item),
  );
};

export function stopRecording(): Recorded[] {
  db().middlewareStack.remove(RECORDER);
  return log;
}

/**
 * Whether the background worker (functions/worker/) sent the request: it runs in this process too
 * (lib/local/worker.ts), on its own schedule, so an endpoint's recording leaves it out. Told by
 * the async stack trace, which names the worker's modules.
 */
function fromWorker(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack.includes('/functions/worker/');
}

/** Only while recording: measured runs see the client as the handlers have it. `worker`: the worker's requests too. */
export function startRecording(options: { worker?: boolean } = {}): void {
  log = [];
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const worker = fromWorker();
      if (!options.worker && worker) return next(args);
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as any;
      const written: Key[] =
        operation === 'TransactWriteItems'
          ? input.TransactItems.map(actionKey)
          : operation === 'BatchWriteItem'
            ? input.RequestItems[tableName()].map(actionKey)
            : [];
      const before = await images(written);
      const entry: Recorded = {
        operation,
        worker,
        startedAt: performance.now(),
        endedAt: NaN,
        local: { read: 0, write: 0 },
        touched: [],
      };
      log.push(entry);
      const result = await next(args).finally(() => {
        entry.endedAt = performance.now();
      });
      const output = result.output as any;
      const consumed = [output.ConsumedCapacity ?? []].flat().reduce((sum: number, c: any) => sum + (c.CapacityUnits ?? 0), 0);
      entry.local[/Get|Query|Scan/.test(operation) ? 'read' : 'write'] = consumed;
      if (operation === 'BatchGetItem') {
        const found = new Map((output.Responses?.[tableName()] ?? []).map((item: Item) => [`${item.PK} ${item.SK}`, item]));
        entry.touched = input.RequestItems[tableName()].Keys.map((key: Key) => read(key, found.get(`${key.PK} ${key.SK}`) as Item));
      }
      if (operation === 'GetItem') entry.touched = [read(input.Key as Key, output.Item as Item | undefined)];
      if (operation === 'Query') {
        const items: Item[] = output.Items ?? [];
        const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
        entry.touched = [{ kind: items[0] ? kindOf(keyOf(items[0])) : queriedKind(input), action: 'read', units: readUnits(bytes) }];
      }
      if (operation === 'BatchWriteItem') {
        // Puts (PutRequest.Item) and deletes (DeleteRequest.Key): the larger image, as for a transaction, at half the rate.
        const after = await images(written);
        entry.touched = written.map((key, i) => ({
          kind: kindOf(key),
          action: 'write',
          units: writeUnits(Math.max(itemSize(before[i]), itemSize(after[i]))),
        }));
      }
      if (operation === 'TransactWriteItems') {
        const after = await images(written);
        entry.touched = written.map((key, i) => ({
          kind: kindOf(key),
          action: 'write',
          units: transactionalWriteUnits(Math.max(itemSize(before[i]), itemSize(after[i]))),
        }));
      }
      return result;
    },
    { step: 'initialize', name: RECORDER },
  );
}

/**
 * Recorded requests by round trip: a request that starts after every earlier one ended opens a
 * new wave; the requests of a wave were in flight together.
 */
export function inWaves(recorded: readonly Recorded[]): Recorded[][] {
  const waves: Recorded[][] = [];
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
