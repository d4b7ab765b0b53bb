/**
 * The change a write makes, recorded inside the write's own transaction: a pending item in the
 * repository's feed partition. The background worker puts pending changes in order, in the
 * order the stream delivers them (one partition key, so commit order), and numbers them
 * (functions/worker/feed.ts). No counter is touched by the write itself, so writes to one
 * repository never contend for one item (docs/data-model.md: The change feed). The pending item
 * is in the sweep index (./tasks.ts) from its write's time until it is numbered, so a change
 * whose stream record was lost is still found and numbered (functions/worker/sweeper.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Change } from '../resources';
import { itemIsAbsent, put, type TransactItem } from './client';
import { pendingChangeKey } from './keys';
import { sweepAttributes } from './tasks';

export const CHANGE_STEP = 'change';

/** The transaction step that records `change` in its repository's feed. */
export const recordChange = (repositoryId: string, change: Change): TransactItem => {
  const unique = randomUUID();
  // `P#<at>#<uuid>`: pending changes sort by the time of their write, so the worker reads the
  // ones written before a batch (functions/worker/feed.ts) with a range, not the whole partition.
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
