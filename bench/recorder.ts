/**
 * Records the requests the store's DynamoDB client sends while recording is on (SDK middleware
 * on `db()`, in the process that runs the handlers): each request's operation and timing (round
 * trips), what DynamoDB Local says it consumed, and what AWS would bill for the items it touched
 * (functions/core/db/item-size.ts). Written items are read before and after the write, with a client
 * of its own (not recorded), since the larger image decides the bill.
 */

import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, type Item, tableName } from '#core/db/client';
import { itemSize, readUnits, transactionalWriteUnits } from '#core/db/item-size';
import type { Key } from '#core/items/keys';
import { localClient } from '#lib/local/dynamodb-local';
import { sum } from './load';
import type { Units } from './results';

/** Item kinds by key shape (functions/core/items/keys.ts); a shape not listed is named by its prefixes (`DOC# REV#`). */
const KINDS: [kind: string, pk: string, sk: RegExp][] = [
  ['repository', 'REPO#', /^REPO$/],
  ['member', 'REPO#', /^M#/],
  ['trash record', 'REPO#', /^TRASH#/],
  ['upload', 'REPO#', /^UPLOAD#/],
  ['usage', 'REPO#', /^USAGE$/],
  ['link entry', 'REPO#', /^LINK#/],
  ['role', 'ACL#', /^ACL$/],
  ['folder', 'FOLDER#', /^FOLDER$/],
  ['entry', 'FOLDER#', /^[FD]#/],
  ['document', 'DOC#', /^DOC$/],
  ['revision', 'DOC#', /^REV#/],
  ['content', 'DOC#', /^CONTENT#/],
  ['current content', 'DOC#', /^CONTENT$/],
  ['link', 'DOC#', /^LINK#/],
  ['profile', 'USER#', /^PROFILE$/],
  ['membership', 'USER#', /^REPO#/],
  ['change', 'FEED#', /^P#/],
  ['numbered change', 'FEED#', /^S#/],
  ['feed counter', 'FEED#', /^SEQ$/],
  ['task', 'TASK#', /^TASK$/],
];
const kindOf = ({ PK, SK }: Key) =>
  KINDS.find(([, pk, sk]) => PK.startsWith(pk) && sk.test(SK))?.[0] ?? `${PK.replace(/#.*/, '#')} ${SK.replace(/#.*/, '#')}`;

/** One item a request read or wrote (a Query's page is one), and the units AWS bills for it. */
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
  touched: Touched[];
}

/** What recorded requests cost: AWS's units, DynamoDB Local's. */
export const unitsOf = (recorded: readonly Recorded[]): Units => {
  const aws = (action: Touched['action']) => sum(recorded, (r) => sum(r.touched, (t) => (t.action === action ? t.units : 0)));
  const local = (side: 'read' | 'write') => Math.round(10 * sum(recorded, (r) => r.local[side])) / 10;
  return { rru: aws('read'), wru: aws('write'), localRcu: local('read'), localWcu: local('write') };
};
export const operations = (recorded: readonly Recorded[]) => recorded.map((r) => r.operation).join(', ');

/** Recorded requests by round trip: a request that starts after every earlier one ended opens a new wave. */
export function inWaves(recorded: readonly Recorded[]): Recorded[][] {
  const waves: Recorded[][] = [];
  let waveEnd = -Infinity;
  for (const request of [...recorded].sort((a, b) => a.startedAt - b.startedAt)) {
    const opens = request.startedAt >= waveEnd;
    if (opens) waves.push([]);
    waveEnd = opens ? request.endedAt : Math.max(waveEnd, request.endedAt);
    waves.at(-1)!.push(request);
  }
  return waves;
}

/** An item or key as the document client has it: the store reads through the low-level client too (getItems). */
const plain = (value: any) => (typeof value?.PK === 'object' ? unmarshall(value) : value);
const keyOf = (item: Item): Key => ({ PK: item.PK as string, SK: item.SK as string });
/** A write's key: its `Key`, or its Put's item's (a transaction action, or a BatchWriteItem request). */
const writtenKey = (action: object): Key => {
  const { Key, Item } = Object.values(action)[0] as { Key?: Key; Item?: Item };
  return plain(Key ?? keyOf(plain(Item!)));
};
const read = (key: Key, item?: Item): Touched => ({ kind: kindOf(key), action: 'read', units: readUnits(itemSize(item)) });
let reader: DynamoDBDocumentClient | undefined;
const images = (keys: Key[]) => {
  reader ??= DynamoDBDocumentClient.from(localClient(process.env.DYNAMODB_ENDPOINT!));
  return Promise.all(
    keys.map(async (Key) => (await reader!.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item),
  );
};

/** Whether the background worker (functions/worker/, in this process too) sent the request: its modules are on the async stack. */
function fromWorker(): boolean {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack.includes('/functions/worker/');
}

let log: Recorded[] = [];
const RECORDER = 'benchRecorder';

/** Only while recording: measured runs see the client as the handlers have it. `worker`: the worker's requests too. */
export function startRecording(options: { worker?: boolean } = {}): void {
  log = [];
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const worker = fromWorker();
      if (!options.worker && worker) return next(args);
      const operation = (context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as any;
      const single = ['PutItem', 'UpdateItem', 'DeleteItem'].includes(operation);
      const writes: object[] =
        operation === 'TransactWriteItems'
          ? input.TransactItems
          : operation === 'BatchWriteItem'
            ? input.RequestItems[tableName()]
            : single
              ? [{ [operation]: input }]
              : [];
      const written = writes.map(writtenKey);
      const before = await images(written);
      const entry: Recorded = { operation, worker, startedAt: performance.now(), endedAt: NaN, local: { read: 0, write: 0 }, touched: [] };
      log.push(entry);
      const result = await next(args).finally(() => {
        entry.endedAt = performance.now();
      });
      const output = result.output as any;
      entry.local[/Get|Query|Scan/.test(operation) ? 'read' : 'write'] = sum(
        [output.ConsumedCapacity ?? []].flat(),
        (c: any) => c.CapacityUnits ?? 0,
      );
      if (operation === 'BatchGetItem') {
        const found = new Map((output.Responses?.[tableName()] ?? []).map(plain).map((item: Item) => [`${item.PK} ${item.SK}`, item]));
        entry.touched = input.RequestItems[tableName()].Keys.map(plain).map((key: Key) =>
          read(key, found.get(`${key.PK} ${key.SK}`) as Item),
        );
      }
      if (operation === 'GetItem') entry.touched = [read(plain(input.Key), output.Item && plain(output.Item))];
      if (operation === 'Query') {
        const items: Item[] = output.Items ?? [];
        // An empty page is of the kind its key condition names.
        const { ':pk': PK, ':prefix': prefix, ':from': from } = input.ExpressionAttributeValues ?? {};
        const kind = items[0] ? kindOf(keyOf(items[0])) : typeof PK === 'string' ? kindOf({ PK, SK: String(prefix ?? from) }) : 'nothing';
        entry.touched = [{ kind, action: 'read', units: readUnits(sum(items, itemSize)) }];
      }
      if (written.length) {
        // A transaction item: 2 WRU per KB of the larger image; outside a transaction (BatchWriteItem, UpdateItem…) 1.
        const after = await images(written);
        const rate = operation === 'TransactWriteItems' ? 1 : 2;
        entry.touched = written.map((key, i) => ({
          kind: kindOf(key),
          action: 'write',
          units: transactionalWriteUnits(Math.max(itemSize(before[i]), itemSize(after[i]))) / rate,
        }));
      }
      return result;
    },
    { step: 'initialize', name: RECORDER },
  );
}

export function stopRecording(): Recorded[] {
  db().middlewareStack.remove(RECORDER);
  return log;
}
