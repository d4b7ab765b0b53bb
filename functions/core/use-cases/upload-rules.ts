/**
 * The rules of an upload's life that need no database (docs/api.md: Files), apart from the code
 * that reads and writes it (./uploads.ts, ./finish-upload.ts), so the fast tier holds them: what
 * a start asserts of its target, when an upload is refused as expired or closed, and what the
 * sweeper does with an upload whose time came.
 */
import { check } from '../db/client';
import { HttpError } from '../errors';
import { liveFolderIn } from '../items/folder';
import { documentKey, folderKey } from '../items/keys';
import { isPastExpiry, type StoredUpload } from '../items/upload';

/** The statuses from which an upload may still complete, fail or be cancelled. */
export const OPEN_STATUSES = ['open', 'verifying'] as const;

/** The transaction step that re-checks the target of an upload's start: its folder live in the repository, or its document out of the trash (at `version`). */
export function targetCheck(input: { folderId?: string; documentId?: string; version?: number }, repositoryId: string) {
  if (input.folderId !== undefined) return check(folderKey(input.folderId), liveFolderIn(repositoryId));
  const atVersion = input.version !== undefined;
  return check(documentKey(input.documentId as string), {
    expression: `attribute_not_exists(#trash)${atVersion ? ' AND #version = :version' : ''}`,
    names: { '#trash': 'trash', ...(atVersion ? { '#version': 'version' } : {}) },
    ...(atVersion ? { values: { ':version': input.version } } : {}),
  });
}

export const expired = (upload: Pick<StoredUpload, 'expiresAt'>) =>
  new HttpError('upload-expired', `The upload expired at ${upload.expiresAt}; start a new one.`);

/** Past its expiry an upload is 410, whatever it became (its record stays a week, then it is 404). */
export function refuseExpired(upload: Pick<StoredUpload, 'status' | 'expiresAt'>, at = Date.now()): void {
  if (upload.status === 'expired' || isPastExpiry(upload, at)) throw expired(upload);
}

/** What a request that needs an open upload answers for one that is not. */
export const closed = (upload: Pick<StoredUpload, 'status'>): HttpError =>
  upload.status === 'completed'
    ? new HttpError('upload-closed', 'The upload is completed: its document version exists.')
    : new HttpError('upload-closed', `The upload is ${upload.status}: start a new one.`);

/**
 * What the sweeper does with an upload in its index whose time came: a completed one leaves the
 * index; an open or verifying one past its expiry expires (reservation back, bytes deleted), and
 * before it is finished if it can be (a lost notification, a dead request); a failed, cancelled or
 * expired one has its bytes deleted and leaves the index.
 */
export function sweepAction(
  upload: Pick<StoredUpload, 'status' | 'expiresAt'>,
  at = Date.now(),
): 'leave-index' | 'expire' | 'finish' | 'delete-bytes' {
  if (upload.status === 'completed') return 'leave-index';
  if (upload.status === 'open' || upload.status === 'verifying') return isPastExpiry(upload, at) ? 'expire' : 'finish';
  return 'delete-bytes';
}
