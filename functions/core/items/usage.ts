/**
 * A repository's storage usage (`REPO#<repoId>` / `USAGE`): `bytes`, the `size` of every kept
 * version of its documents plus the declared `size` of every open upload (docs/api.md: Files),
 * changed in the same transaction as what it counts, and made by the first of them (no item: 0
 * bytes; a new repository writes none, 2 write units saved). A write that would take it past
 * the quota (functions/core/limits.ts) fails its condition: 409 `quota-exceeded`.
 */
import { type ConditionFailed, type TransactItem, update } from '../db/client';
import { type Condition, itemExists } from '../db/conditions';
import { HttpError } from '../errors';
import { quotaBytes } from '../limits';
import { type Key, usageKey } from './keys';
import type { Lookup } from './role';

/** The step name a version write gives its usage step, so a refusal can be explained. */
export const USAGE_STEP = 'usage';

/**
 * Adds `size` bytes, on condition that the usage stays within the quota (`bytes <= quota -
 * size`). No usage item yet is 0 bytes: the step makes it (ADD on a missing item), unless the
 * size alone is past the quota. Every transaction that adds also checks the caller's role
 * (./role.ts), which a deleted repository no longer has, so a write never makes the usage of a
 * deleted repository again.
 */
export const addUsageStep = (repositoryId: string, size: number): TransactItem => {
  const room = quotaBytes() - size;
  return update(
    usageKey(repositoryId),
    'ADD #bytes :size',
    { '#bytes': 'bytes' },
    { ':size': size, ':room': room },
    room < 0 ? '#bytes <= :room' : 'attribute_not_exists(#bytes) OR #bytes <= :room',
  );
};

/**
 * Gives back `size` bytes (an upload that ended without a version, revisions pruned, a document
 * purged), in the transaction that removes what they counted. A deleted repository's usage item
 * goes with it (../use-cases/reclaim-repository.ts) while its documents and uploads may still be
 * on their way out: the step asks for the item to be there, so it never makes it again, and its
 * caller leaves it out (or reads again) when it is gone.
 */
export const releaseUsageStep = (repositoryId: string, size: number): TransactItem =>
  update(usageKey(repositoryId), 'ADD #bytes :size', { '#bytes': 'bytes' }, { ':size': -size }, itemExists);

/** `keptBytes` of a document item: the sum of the sizes of its kept revisions (0 when it has none recorded). */
export const keptBytesOf = (document: Record<string, unknown>): number => (document.keptBytes as number | undefined) ?? 0;

/** True when the transaction failed on its usage step. */
export const quotaReached = (error: ConditionFailed) => error.failed.has(USAGE_STEP);

export const quotaExceeded = (size: number) =>
  new HttpError(
    'quota-exceeded',
    `Writing ${size} more bytes would take the repository past its storage quota of ${quotaBytes()} bytes (GET /{id}: usage).`,
  );

/** The usage as read with a repository (or a document, or a folder): `bytes` and the quota. */
export function usageOf(lookup: Lookup, repositoryId: string): { bytes: number; quota: number } {
  const key: Key = usageKey(repositoryId);
  return { bytes: Number(lookup(key)?.bytes ?? 0), quota: quotaBytes() };
}

/** Whether `size` more bytes fit in the quota, as read (the transaction that adds them decides). */
export const fitsQuota = (usage: { bytes: number; quota: number }, size: number) => usage.bytes + size <= usage.quota;

/**
 * The document item still has the `keptBytes` read (and is there): what a write of the item
 * asserts, so that a revision pruning that lowered it meanwhile is never overwritten (nor a
 * purge's release made twice); the writer reads again.
 */
export const keptBytesAre = (document: Record<string, unknown>): Condition =>
  document.keptBytes === undefined
    ? { expression: 'attribute_exists(PK) AND attribute_not_exists(#kept)', names: { '#kept': 'keptBytes' } }
    : { expression: '#kept = :kept', names: { '#kept': 'keptBytes' }, values: { ':kept': document.keptBytes } };
