/**
 * A repository's storage usage (`REPO#<repoId>` / `USAGE`): `bytes`, the `size` of every kept
 * version plus the declared `size` of every open upload (docs/data-model.md: Files). It changes
 * only inside the transaction that changes what it counts, so it is exact under concurrency; a
 * step that adds checks the quota in the same condition.
 */
import { type TransactItem, update } from '../db/client';
import { quotaBytes } from '../limits';
import { type Key, repositoryPartition } from './keys';

export const USAGE_SORT_KEY = 'USAGE';
export const usageKey = (repositoryId: string): Key => ({ PK: repositoryPartition(repositoryId), SK: USAGE_SORT_KEY });

/** The step name of a usage change, so a refusal can be told apart (409 quota). */
export const USAGE_STEP = 'usage';

/** Adds `bytes` to the usage, if the repository stays within its quota. */
export const reserveBytes = (repositoryId: string, bytes: number): TransactItem =>
  update(
    usageKey(repositoryId),
    'ADD #bytes :bytes',
    { '#bytes': 'bytes' },
    { ':bytes': bytes, ':room': quotaBytes() - bytes },
    'attribute_not_exists(#bytes) OR #bytes <= :room',
  );

/** Gives `bytes` back (a failed, cancelled or expired upload; a version no longer kept). Only while the repository exists. */
export const releaseBytes = (repositoryId: string, bytes: number): TransactItem =>
  update(usageKey(repositoryId), 'ADD #bytes :bytes', { '#bytes': 'bytes' }, { ':bytes': -bytes }, 'attribute_exists(#bytes)');
