/**
 * The change a write makes, recorded inside the write's own transaction: a pending item in the
 * repository's feed partition. The background worker puts pending changes in order, in the
 * order the stream delivers them (one partition key, so commit order), and numbers them
 * (functions/worker/feed.ts). No counter is touched by the write itself, so writes to one
 * repository never contend for one item (docs/data-model.md: The change feed).
 */
import { randomUUID } from 'node:crypto';
import type { Change } from '../resources';
import { itemIsAbsent, put, type TransactItem } from './client';
import { pendingChangeKey } from './keys';

export const CHANGE_STEP = 'change';

/** The transaction step that records `change` in its repository's feed. */
export const recordChange = (repositoryId: string, change: Change): TransactItem =>
  put({ ...pendingChangeKey(repositoryId, randomUUID()), ...change, repositoryId }, itemIsAbsent);
