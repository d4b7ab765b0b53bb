/**
 * Reading a repository's change feed (GET /{id}/changes). Writes record their change as a
 * pending item; the worker numbers them 1, 2, 3… in commit order (functions/worker/feed.ts), in
 * transactions that also move the counter (`SEQ`). A cursor is a signed position in that
 * sequence (core/paging.ts): the changes after it are the numbered items after it. Numbers have
 * no gaps but at the old end, where DynamoDB's TTL removes changes older than the feed keeps;
 * so a missing next number either is being committed right now (a Query may see part of a
 * transaction) or has expired (410).
 */
import { authorize } from '../auth';
import { HttpError, invalidField } from '../errors';
import { decodePageToken, encodePageToken } from '../paging';
import type { Caller, Change, ResourceOf } from '../resources';
import { type ChangesQuery, LATEST_CURSOR } from '../schemas';
import { readWithRole } from './access';
import { type Item, queryPage } from './client';
import { FEED_SEQUENCED_PREFIX, feedPartition, feedSequenceKey, repositoryKey, sequencedChangeKey } from './keys';
import { resourceOf } from './records';

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
      ':to': `${FEED_SEQUENCED_PREFIX}~`,
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
