/**
 * Uploads (docs/api.md: Files): a file sent straight to the bucket through presigned URLs, then
 * made a version of a document. The functions sign, check and record; the bytes never pass
 * through them. This module starts, reads, re-signs and cancels an upload; ./finish-upload.ts
 * finishes it (one code path, whoever gets there first: `complete`, the bucket's notification,
 * the sweeper); ../files/upload-bytes.ts does what touches the bucket.
 *
 * The quota is reserved when the upload starts (the declared size, in the transaction that
 * makes the upload) and given back when it fails, is cancelled or expires; completing turns the
 * reservation into the version's size (items/usage.ts).
 */
import type * as z from 'zod/mini';
import { fileObjectKey } from '../bucket';
import { ConditionFailed, transactWrite } from '../db/client';
import { invalidField, notFound, preconditionFailed } from '../errors';
import { PART_URLS_PER_REQUEST, partNumbers, partPlan } from '../files/parts';
import { abortQuietly, beginMultipart, deleteBytes, partUrlsOf, receivedParts } from '../files/upload-bytes';
import { newDocumentId, now } from '../ids';
import { readVersionTarget, type VersionTarget } from '../items/document';
import { repositoryOfFolder } from '../items/folder';
import { ACCESS_STEP, explainAccess, roleCheck } from '../items/role';
import { newUploadStep, readUpload, recordTtl, type StoredUpload, statusStep, sweptStep, uploadResource } from '../items/upload';
import { addUsageStep, fitsQuota, quotaExceeded, quotaReached, releaseUsageStep, USAGE_STEP } from '../items/usage';
import { uploadLifetimeMs } from '../limits';
import { logger } from '../logger';
import { DEFAULT_FILE_CONTENT_TYPE, type startUploadBody } from '../requests';
import type { Caller, Upload } from '../resources';
import { closed, OPEN_STATUSES, refuseExpired, targetCheck } from './upload-rules';

export { expired, OPEN_STATUSES } from './upload-rules';

/** POST /uploads's body, as validated (a new document, or a new version of one). */
export type StartUpload = z.output<typeof startUploadBody>;

// ---------------------------------------------------------------------------------------------
// Starting

/**
 * POST /uploads. Everything that can be known before any byte is checked here (role, target,
 * name, version, quota); then the bucket's multipart upload is made (for more than one part),
 * and one transaction records the upload, reserves its size and re-checks role and target. A
 * crash between the two leaves only an empty multipart upload, which the bucket's lifecycle
 * rule aborts after a day.
 */
export async function startUpload(caller: Caller, input: StartUpload): Promise<Upload> {
  const kind = input.folderId !== undefined ? 'create' : 'update';
  const versionTarget: VersionTarget =
    kind === 'create'
      ? {
          kind,
          folderId: input.folderId as string,
          name: input.name as string,
          id: input.id ?? newDocumentId(repositoryOfFolder(input.folderId as string)),
        }
      : { kind, documentId: input.documentId as string, ...(input.version === undefined ? {} : { expectedVersion: input.version }) };
  const target = await readVersionTarget(caller, versionTarget);
  const { repositoryId, documentId } = target;
  if (!fitsQuota(target.usage, input.size)) throw quotaExceeded(input.size);
  const id = newDocumentId(repositoryId);
  const objectKey = fileObjectKey(repositoryId, documentId, id);
  const plan = partPlan(input.size);
  const at = now();
  const expiresAt = new Date(Date.parse(at) + uploadLifetimeMs()).toISOString();
  const contentType = input.contentType ?? DEFAULT_FILE_CONTENT_TYPE;
  const s3UploadId = plan.partCount > 1 ? await beginMultipart(objectKey, contentType) : undefined;
  const upload: StoredUpload = {
    id,
    documentId,
    repositoryId,
    folderId: target.folderId,
    name: target.name,
    size: input.size,
    contentType,
    ...(input.sha256 ? { sha256: input.sha256 } : {}),
    partSize: plan.partSize,
    partCount: plan.partCount,
    status: 'open',
    expiresAt,
    createdAt: at,
    createdBy: caller.userId,
    kind,
    ...(input.version === undefined ? {} : { expectedVersion: input.version }),
    objectKey,
    ...(s3UploadId ? { s3UploadId } : {}),
    ttl: recordTtl(expiresAt),
  };
  try {
    await transactWrite({
      upload: newUploadStep(upload, plan.partCount === 1 ? at : expiresAt),
      [USAGE_STEP]: addUsageStep(repositoryId, input.size),
      [ACCESS_STEP]: roleCheck(caller, repositoryId, 'write'),
      target: targetCheck(input, repositoryId),
    });
  } catch (error) {
    if (s3UploadId) await abortQuietly(objectKey, s3UploadId);
    if (!(error instanceof ConditionFailed)) throw error;
    explainAccess(error, caller, 'write', kind === 'create' ? 'Folder' : 'Document');
    if (error.failed.has('target')) {
      if (kind === 'update' && input.version !== undefined)
        throw preconditionFailed('The document is not at the version the upload names.');
      throw notFound(kind === 'create' ? 'Folder' : 'Document');
    }
    if (quotaReached(error)) throw quotaExceeded(input.size);
    throw error;
  }
  return { ...uploadResource(upload), parts: await partUrlsOf(upload, partNumbers(Math.min(plan.partCount, PART_URLS_PER_REQUEST))) };
}

// ---------------------------------------------------------------------------------------------
// Reading, fresh URLs, cancelling

/** GET /uploads/{id}: the upload, with the parts the bucket holds while it is open. */
export async function getUpload(caller: Caller, uploadId: string): Promise<Upload> {
  const { upload } = await readUpload(caller, uploadId);
  refuseExpired(upload);
  const received = upload.status === 'open' ? await receivedParts(upload) : [];
  return { ...uploadResource(upload), received };
}

/** POST /uploads/{id}/parts: fresh URLs for the parts named (each within the upload's part count). */
export async function partUrls(caller: Caller, uploadId: string, numbers: number[]) {
  const { upload } = await readUpload(caller, uploadId);
  refuseExpired(upload);
  if (upload.status !== 'open') throw closed(upload);
  const beyond = numbers.find((n) => n > upload.partCount);
  if (beyond !== undefined) throw invalidField('numbers', `the upload has ${upload.partCount} part(s); there is no part ${beyond}`);
  return { items: await partUrlsOf(upload, numbers) };
}

/** DELETE /uploads/{id}: cancelled, its reservation given back, the bytes sent deleted. */
export async function cancelUpload(caller: Caller, uploadId: string): Promise<void> {
  const { upload } = await readUpload(caller, uploadId);
  refuseExpired(upload);
  if (upload.status === 'cancelled') return;
  if (upload.status !== 'open' && upload.status !== 'verifying') throw closed(upload);
  // Completed or failed meanwhile: say what it is now.
  if (!(await closeUpload(upload, 'cancelled'))) return cancelUpload(caller, uploadId);
  await deleteBytesOrLeaveThem(upload);
}

/**
 * Moves an open upload to `to` (cancelled, failed, expired) and gives its reservation back, in one
 * transaction; false when another request moved it first. The sweeper looks at it from now on,
 * until its bytes are gone. A repository deleted meanwhile has no usage left to give back to.
 */
export async function closeUpload(
  upload: StoredUpload,
  to: 'cancelled' | 'failed' | 'expired',
  problem?: Upload['problem'],
): Promise<boolean> {
  const step = statusStep(upload, OPEN_STATUSES, to, { ...(problem ? { problem } : {}), lookFrom: now() });
  try {
    await transactWrite({ upload: step, [USAGE_STEP]: releaseUsageStep(upload.repositoryId, upload.size) });
    return true;
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    if (error.failed.has('upload')) return false;
  }
  try {
    await transactWrite({ upload: step });
    return true;
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    return false;
  }
}

/**
 * Deletes the bytes of an upload that was just cancelled or failed, then takes it out of the
 * sweep index. The status change is committed already, so the answer stands whatever happens
 * here: bytes the bucket would not delete now are deleted by the sweeper, which the status change
 * asked to look (`lookFrom`).
 */
export async function deleteBytesOrLeaveThem(upload: StoredUpload): Promise<void> {
  try {
    await deleteBytes(upload);
    await transactWrite({ upload: sweptStep(upload) });
  } catch (error) {
    logger.warn('upload: its bytes are left for the sweeper to delete', { error: error as Error, uploadId: upload.id });
  }
}
