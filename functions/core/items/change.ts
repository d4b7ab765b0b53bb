/**
 * Changes: what each write did, as the change feed (GET /{id}/changes) tells it. A write
 * records its change inside its own transaction: a pending item in the repository's feed
 * partition (`FEED#<repoId>` / `P#<at>#<uuid>`). The background worker puts pending changes in
 * order, in the order the stream delivers them (one partition key, so commit order), and numbers
 * them 1, 2, 3… (`S#<seq>`), in transactions that also move the counter (`SEQ`)
 * (functions/worker/number-changes.ts). No counter is touched by the write itself, so writes to one
 * repository never contend for one item (docs/data-model.md: The change feed). The pending item
 * is in the sweep index (./task.ts) from its write's time until it is numbered, so a change
 * whose stream record was lost is still found and numbered (functions/worker/sweeper.ts).
 *
 * Reading: a cursor is a signed position in the sequence (core/paging.ts): the changes after it
 * are the numbered items after it. Numbers have no gaps but at the old end, where DynamoDB's TTL
 * removes changes older than the feed keeps; so a missing next number either is being committed
 * right now (a Query may see part of a transaction) or has expired (410).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { authorize } from '../auth';
import { check, db, type Item, put, remove, type TransactItem, tableName, update } from '../db/client';
import { itemExists, itemIsAbsent } from '../db/conditions';
import { queryPage } from '../db/queries';
import { HttpError, invalidField } from '../errors';
import { FEED_DAYS } from '../limits';
import { decodePageToken, encodePageToken } from '../paging';
import { type ChangesQuery, LATEST_CURSOR } from '../requests';
import type { Caller, Change, ResourceOf } from '../resources';
import {
  FEED_PENDING_PREFIX,
  FEED_SEQUENCED_END,
  feedPartition,
  feedSequenceKey,
  type Key,
  pendingChangeKey,
  repositoryKey,
  sequencedChangeKey,
} from './keys';
import { resourceOf } from './resource-of';
import { readWithRole } from './role';
import { sweepAttributes } from './task';

export const CHANGE_STEP = 'change';

/** The transaction step that records `change` in its repository's feed. */
export const recordChange = (repositoryId: string, change: Change): TransactItem => {
  const unique = randomUUID();
  // `P#<at>#<uuid>`: pending changes sort by the time of their write, so the worker reads the
  // ones written before a batch (functions/worker/number-changes.ts) with a range, not the whole partition.
  return put(
    {
      ...pendingChangeKey(repositoryId, pendingChangeId(change.at, unique)),
      ...change,
      repositoryId,
      ...sweepAttributes(unique, change.at),
    },
    itemIsAbsent,
  );
};

/** A pending change's id: the write's time (ISO, fixed width), then a UUID. */
export const pendingChangeId = (at: string, unique: string) => `${at}#${unique}`;

/** The greatest pending-change sort key written at or before `at` (ids compare by their time first). */
export const pendingWrittenBy = (at: string) => pendingChangeKey('', `${at}~`).SK;

// ---------------------------------------------------------------------------------------------
// Reading the feed.

export type ChangesPage = ResourceOf<'ChangesPage'>;

const listOf = (repositoryId: string) => `changes:${repositoryId}`;
const cursorAt = (repositoryId: string, seq: number): Promise<string> => encodePageToken(listOf(repositoryId), String(seq));

/** The position a cursor names, or a 400 on `cursor` (altered, or another feed's). Undefined: `latest`. */
async function positionOf(repositoryId: string, cursor: string): Promise<number | undefined> {
  if (cursor === LATEST_CURSOR) return undefined;
  const seq = await decodePageToken(listOf(repositoryId), cursor, 'cursor');
  // Signed by the service, so always a number it wrote; checked all the same.
  if (!/^(0|[1-9][0-9]{0,11})$/.test(seq)) throw invalidField('cursor', 'is not a cursor issued for this feed');
  return Number(seq);
}

/** Up to `limit` numbered changes after `after`, in order. */
async function changesAfter(repositoryId: string, after: number, limit: number): Promise<Item[]> {
  const { items } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': feedPartition(repositoryId),
      ':from': sequencedChangeKey(repositoryId, after + 1).SK,
      ':to': FEED_SEQUENCED_END,
    },
    Limit: limit,
  });
  return items;
}

/** The changes that follow `after` without a gap: a page ends before any number it does not see. */
function unbroken(items: readonly Item[], after: number): Item[] {
  const run: Item[] = [];
  for (const item of items) {
    if (item.seq !== after + run.length + 1) break;
    run.push(item);
  }
  return run;
}

/** Waits before reading again when the next change is numbered but not visible yet. */
const RETRY_MS = [20, 100, 400];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One round trip in the common case: the repository, the caller's role and the counter in one
 * BatchGetItem, beside the Query of the changes after the cursor (dropped unless the caller may
 * read the repository, so a non-member sees exactly a missing repository).
 */
export async function readChanges(caller: Caller, repositoryId: string, query: ChangesQuery): Promise<ChangesPage> {
  const after = await positionOf(repositoryId, query.cursor);
  const [{ role, lookup }, items] = await Promise.all([
    readWithRole(caller, repositoryKey(repositoryId), repositoryId, [feedSequenceKey(repositoryId)]),
    after === undefined ? Promise.resolve([]) : changesAfter(repositoryId, after, query.limit),
  ]);
  authorize(role, 'read', 'Repository');
  const last = (lookup(feedSequenceKey(repositoryId))?.last as number | undefined) ?? 0;
  // `latest`: the last number given. Changes committed but not numbered yet get higher numbers.
  if (after === undefined) return { items: [], cursor: await cursorAt(repositoryId, last) };
  let run = unbroken(items, after);
  for (let attempt = 0; run.length === 0 && last > after; attempt++) {
    // The next change has a number but was not seen: its numbering is committing, or it expired.
    if (attempt === RETRY_MS.length) {
      throw new HttpError(
        'cursor-expired',
        'The feed no longer keeps the changes after this cursor (it keeps 30 days): start again from `latest`.',
      );
    }
    await sleep(RETRY_MS[attempt]!);
    run = unbroken(await changesAfter(repositoryId, after, query.limit), after);
  }
  const position = (run.at(-1)?.seq as number | undefined) ?? after;
  return { items: run.map((item) => resourceOf<Change>(item, ['repositoryId', 'seq'])), cursor: await cursorAt(repositoryId, position) };
}

// ---------------------------------------------------------------------------------------------
// Numbering: the worker's reads and writes of the feed (functions/worker/feed.ts decides the order).

export interface PendingChange {
  key: Key;
  /** The pending item as the stream has it: the change, its keys, and its place in the sweep index. */
  change: Change & Partial<Key> & { sweepShard?: string; waitingSince?: string };
}

/** The pending changes of a repository's feed with keys up to `upTo` (written by then), read strongly consistent. */
export async function pendingChanges(repositoryId: string, upTo: string): Promise<PendingChange[]> {
  const pending: PendingChange[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': feedSequenceKey(repositoryId).PK, ':from': FEED_PENDING_PREFIX, ':to': upTo },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      pending.push({ key: { PK: item.PK as string, SK: item.SK as string }, change: item as unknown as PendingChange['change'] });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return pending;
}

/**
 * The steps that number `chunk` after `seq` (the feed's last number as read): each pending change
 * put as numbered change `seq + 1`, `seq + 2`… and removed as pending, the counter moved, the
 * repository still there.
 */
export function numberingSteps(repositoryId: string, chunk: readonly PendingChange[], seq: number): Record<string, TransactItem> {
  const steps: Record<string, TransactItem> = {
    repository: check(repositoryKey(repositoryId), itemExists),
    counter: update(
      feedSequenceKey(repositoryId),
      'SET #last = :last',
      { '#last': 'last' },
      { ':last': seq + chunk.length, ...(seq === 0 ? {} : { ':seq': seq }) },
      seq === 0 ? 'attribute_not_exists(#last)' : '#last = :seq',
    ),
  };
  chunk.forEach(({ key, change: { PK: _pk, SK: _sk, sweepShard: _shard, waitingSince: _since, ...change } }, i) => {
    const number = seq + i + 1;
    const expiresAt = Math.ceil(Date.parse(change.at) / 1000) + FEED_DAYS * 24 * 60 * 60;
    steps[`numbered${i}`] = put(
      { ...sequencedChangeKey(repositoryId, number), ...change, repositoryId, seq: number, expiresAt },
      itemIsAbsent,
    );
    steps[`pending${i}`] = remove(key, itemExists);
  });
  return steps;
}

/** The last number given in a repository's feed (0: none yet). */
export async function lastSequence(repositoryId: string): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: feedSequenceKey(repositoryId), ConsistentRead: true }));
  return (Item?.last as number | undefined) ?? 0;
}
