/**
 * Giving bytes back to a repository's usage (`REPO#<repoId>` / `USAGE`, docs/data-model.md:
 * Files) when what they counted goes: pruned revisions, a purged document. Always in the
 * transaction that removes what was counted, so it happens exactly when that removal commits.
 *
 * A deleted repository's usage item goes with the repository (../use-cases/reclaim-repository.ts)
 * while its documents may still be being purged: the release is conditioned on the item being
 * there, so it never makes the item again. The caller reads the item first (`usageKey`) and
 * leaves the step out when it is gone; if it goes between that read and the transaction, the
 * transaction fails its condition and the caller reads again.
 */
import { type TransactItem, update } from '../db/client';
import { itemExists } from '../db/conditions';
import { usageKey } from './keys';

/** The step that takes `bytes` off the repository's usage (the usage item must exist). */
export const releaseUsage = (repositoryId: string, bytes: number): TransactItem =>
  update(usageKey(repositoryId), 'ADD #bytes :released', { '#bytes': 'bytes' }, { ':released': -bytes }, itemExists);

/** `keptBytes` of a document item: the sum of the sizes of its kept revisions (0 when it has none recorded). */
export const keptBytesOf = (document: Record<string, unknown>): number => (document.keptBytes as number | undefined) ?? 0;
