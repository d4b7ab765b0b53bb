/**
 * Numbers each repository's changes into its feed. A write records its change as a pending
 * item in the repository's feed partition (core/store/changes.ts); the stream delivers those
 * in commit order (one partition key), and this gives them consecutive sequence numbers, in
 * that order, in transactions that also remove the pending items: each change gets exactly one
 * number, a retried batch skips what it already numbered, and a gap in the numbers can only
 * mean the feed no longer keeps those changes (410 for a cursor before it).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { FEED_DAYS } from '#core/limits';
import type { Change } from '#core/resources';
import {
  ConditionFailed,
  check,
  db,
  deleteItems,
  getItems,
  itemIsAbsent,
  put,
  remove,
  type TransactItem,
  tableName,
  transactWrite,
  update,
} from '#core/store/client';
import { feedSequenceKey, type Key, repositoryKey, sequencedChangeKey } from '#core/store/keys';

export interface PendingChange {
  key: Key;
  /** The pending item as the stream has it: the change, and its keys. */
  change: Change & Partial<Key>;
}

/** Changes per transaction: three items each (numbered change, pending removed) plus the counter and a check. */
const PER_TRANSACTION = 32;

export async function sequenceChanges(repositoryId: string, pending: readonly PendingChange[]): Promise<void> {
  let remaining = [...pending];
  let seq = await lastSequence(repositoryId);
  while (remaining.length > 0) {
    const chunk = remaining.slice(0, PER_TRANSACTION);
    try {
      await transactWrite(numberingSteps(repositoryId, chunk, seq));
      seq += chunk.length;
      remaining = remaining.slice(chunk.length);
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      if (error.failed.has('repository')) return deleteItems(remaining.map((p) => p.key)); // deleted: its feed goes with it
      // An earlier attempt numbered some of these: keep only what is still pending.
      const lookup = await getItems(remaining.map((p) => p.key));
      remaining = remaining.filter((p) => lookup(p.key) !== undefined);
      seq = await lastSequence(repositoryId);
    }
  }
}

function numberingSteps(repositoryId: string, chunk: readonly PendingChange[], seq: number): Record<string, TransactItem> {
  const steps: Record<string, TransactItem> = {
    repository: check(repositoryKey(repositoryId), { expression: 'attribute_exists(PK)' }),
    counter: update(
      feedSequenceKey(repositoryId),
      'SET #last = :last',
      { '#last': 'last' },
      { ':last': seq + chunk.length, ...(seq === 0 ? {} : { ':seq': seq }) },
      seq === 0 ? 'attribute_not_exists(#last)' : '#last = :seq',
    ),
  };
  chunk.forEach(({ key, change: { PK: _pk, SK: _sk, ...change } }, i) => {
    const number = seq + i + 1;
    const expiresAt = Math.ceil(Date.parse(change.at) / 1000) + FEED_DAYS * 24 * 60 * 60;
    steps[`numbered${i}`] = put(
      { ...sequencedChangeKey(repositoryId, number), ...change, repositoryId, seq: number, expiresAt },
      itemIsAbsent,
    );
    steps[`pending${i}`] = remove(key, { expression: 'attribute_exists(PK)' });
  });
  return steps;
}

/** The last number given in a repository's feed (0: none yet). */
export async function lastSequence(repositoryId: string): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: feedSequenceKey(repositoryId), ConsistentRead: true }));
  return (Item?.last as number | undefined) ?? 0;
}
