/**
 * Uploads (docs/api.md: Files): a file sent straight to the bucket through presigned URLs, then
 * made a version of a document. The functions sign, check and record; the bytes never pass
 * through them. Finishing an upload is one code path (`finishUpload`), whoever gets there:
 * `POST /uploads/{id}/complete`, the bucket's ObjectCreated notification (./finalise… in
 * functions/uploads/finalise.ts), or the sweeper when either was lost (functions/worker/sweeper.ts).
 *
 * The quota is reserved when the upload starts (the declared size, in the transaction that
 * makes the upload) and given back when it fails, is cancelled or expires; completing turns the
 * reservation into the version's size (items/usage.ts).
 */
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  type Part,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type * as z from 'zod/mini';
import { bucketName, fileKeyPrefix, presignedUrl, s3 } from '../bucket';
import { ConditionFailed, check, transactWrite } from '../db/client';
import {
  type HttpError,
  invalidField,
  notFound,
  HttpError as Problem,
  type ProblemKind,
  preconditionFailed,
  problems,
  problemTypePrefix,
} from '../errors';
import { PART_URLS_PER_REQUEST, partLength, partPlan } from '../files/parts';
import { newDocumentId, now } from '../ids';
import { ExtraStepFailed, type FileVersion, fitsQuota, readVersionTarget, type VersionTarget, writeFileVersion } from '../items/document';
import { liveFolderIn, repositoryOfFolder } from '../items/folder';
import { documentKey, folderKey } from '../items/keys';
import { ACCESS_STEP, explainAccess, roleCheck } from '../items/role';
import {
  isPastExpiry,
  lookAgainStep,
  newUploadStep,
  readUpload,
  readUploadItem,
  recordTtl,
  type StoredUpload,
  statusStep,
  sweptStep,
  uploadResource,
} from '../items/upload';
import { addUsageStep, quotaExceeded, quotaReached, releaseUsageStep, USAGE_STEP } from '../items/usage';
import { uploadLifetimeMs } from '../limits';
import { logger } from '../logger';
import { recordMetric } from '../metrics';
import { DEFAULT_FILE_CONTENT_TYPE, type startUploadBody } from '../requests';
import type { Caller, Document, Upload } from '../resources';

/** A presigned URL for a part lives at most this long (and never past the upload's expiry). */
const PART_URL_SECONDS = 60 * 60;
/**
 * Files up to this size are verified (read back and hashed) inside `complete`, which then
 * answers the Document; larger ones answer 202 while the finaliser verifies them.
 */
export const VERIFY_INLINE_BYTES = 256 * 1024 * 1024;
/** VERIFY_INLINE_BYTES; tests only (where vitest runs) may lower it with UPLOAD_VERIFY_INLINE_BYTES, to see a 202 without a big file. */
function verifyInlineBytes(): number {
  const raw = process.env.UPLOAD_VERIFY_INLINE_BYTES;
  return raw && process.env.VITEST ? Number(raw) : VERIFY_INLINE_BYTES;
}
/** What a 202 tells the client to wait before asking again. */
export const VERIFY_RETRY_SECONDS = 2;
/** The statuses from which an upload may still complete, fail or be cancelled. */
const OPEN_STATUSES = ['open', 'verifying'] as const;

/** POST /uploads's body, as validated (a new document, or a new version of one). */
export type StartUpload = z.output<typeof startUploadBody>;

/** What `complete` answers: the Document made, or the upload while it is being verified (202). */
export type Completion = { document: Document } | { verifying: Upload };

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
  const objectKey = `${fileKeyPrefix}${repositoryId}/${documentId}/${id}`;
  const plan = partPlan(input.size);
  const at = now();
  const expiresAt = new Date(Date.parse(at) + uploadLifetimeMs()).toISOString();
  const contentType = input.contentType ?? DEFAULT_FILE_CONTENT_TYPE;
  const s3UploadId =
    plan.partCount > 1
      ? (await s3().send(new CreateMultipartUploadCommand({ Bucket: bucketName(), Key: objectKey, ContentType: contentType }))).UploadId
      : undefined;
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
  return { ...uploadResource(upload), parts: await partUrlsOf(upload, range(1, Math.min(plan.partCount, PART_URLS_PER_REQUEST))) };
}

/** The transaction step that re-checks the target of an upload's start: its folder, or its document (at `version`). */
function targetCheck(input: StartUpload, repositoryId: string) {
  if (input.folderId !== undefined) return check(folderKey(input.folderId), liveFolderIn(repositoryId));
  const atVersion = input.version !== undefined;
  return check(documentKey(input.documentId as string), {
    expression: `attribute_not_exists(#trash)${atVersion ? ' AND #version = :version' : ''}`,
    names: { '#trash': 'trash', ...(atVersion ? { '#version': 'version' } : {}) },
    ...(atVersion ? { values: { ':version': input.version } } : {}),
  });
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
async function closeUpload(upload: StoredUpload, to: 'cancelled' | 'failed' | 'expired', problem?: Upload['problem']): Promise<boolean> {
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

/** Past its expiry an upload is 410, whatever it became (its record stays a week, then it is 404). */
function refuseExpired(upload: StoredUpload) {
  if (upload.status === 'expired' || isPastExpiry(upload)) throw expired(upload);
}
const expired = (upload: StoredUpload) => new Problem('upload-expired', `The upload expired at ${upload.expiresAt}; start a new one.`);

const closed = (upload: StoredUpload): HttpError =>
  upload.status === 'completed'
    ? new Problem('upload-closed', 'The upload is completed: its document version exists.')
    : new Problem('upload-closed', `The upload is ${upload.status}: start a new one.`);

// ---------------------------------------------------------------------------------------------
// Completing

/** POST /uploads/{id}/complete: safe to repeat and to race; every repeat after success answers the same Document. */
export async function completeUpload(caller: Caller, uploadId: string): Promise<Completion> {
  const { upload } = await readUpload(caller, uploadId);
  return finishUpload(upload, { verifyLarge: false });
}

/**
 * The bucket said the object of an upload is there (ObjectCreated): finish it as `complete`
 * would, as the user who began it. An object that is no upload's (a raw PUT's) is left as it is.
 */
export async function finaliseObject(objectKey: string): Promise<void> {
  const upload = await uploadOfObject(objectKey);
  if (!upload || upload.status === 'completed') return;
  // Bytes that arrived after the upload was cancelled, failed or expired never make a version: they go.
  if (upload.status !== 'open' && upload.status !== 'verifying') return deleteBytes(upload);
  // The parts were joined by a `complete` that verifies a file this small itself (or the sweeper, if it died).
  if (upload.status === 'verifying' && upload.size <= verifyInlineBytes()) return;
  await finishUpload(upload, { verifyLarge: true });
}

/** The upload whose bytes go to `files/<repositoryId>/<documentId>/<uploadId>`, if there is one. */
async function uploadOfObject(objectKey: string): Promise<StoredUpload | undefined> {
  if (!objectKey.startsWith(fileKeyPrefix)) return undefined;
  const [repositoryId, , uploadId, ...rest] = objectKey.slice(fileKeyPrefix.length).split('/');
  if (!repositoryId || !uploadId || rest.length > 0) return undefined;
  const upload = await readUploadItem(repositoryId, uploadId);
  return upload?.objectKey === objectKey ? upload : undefined;
}

/**
 * Finishes an upload as far as it can go now. Checks, before anything becomes visible: every
 * part there (else 409 upload-incomplete, and it stays open), the size, the SHA-256 when one was
 * declared (else it fails: 409 upload-mismatch), then the version write's own checks (role,
 * name, version, trash); a failure other than a missing part fails the upload, deletes its bytes
 * and gives its reservation back. `verifyLarge`: hash a file of any size here (the finaliser);
 * else a large one answers 202 and is left to the finaliser.
 */
export async function finishUpload(upload: StoredUpload, options: { verifyLarge: boolean }): Promise<Completion> {
  switch (upload.status) {
    case 'completed':
      return { document: upload.document as Document };
    case 'failed':
      throw storedProblem(upload);
    case 'cancelled':
      throw new Problem('upload-closed', 'The upload was cancelled.');
    case 'expired':
      throw expired(upload);
  }
  if (isPastExpiry(upload)) throw expired(upload);
  const large = upload.size > verifyInlineBytes() && !options.verifyLarge;
  if (upload.status === 'verifying' && large) return { verifying: uploadResource(upload) };

  const assembled = await assemble(upload);
  if ('problem' in assembled) return failUpload(upload, assembled.problem);
  if ('movedOn' in assembled) return finishUpload(assembled.movedOn, options);
  if (large) return { verifying: { ...uploadResource(upload), status: 'verifying' } };
  const sha256 = await hashObject(upload.objectKey);
  if (upload.sha256 && upload.sha256 !== sha256) {
    return failUpload(upload, new Problem('upload-mismatch', `The bytes' SHA-256 is ${sha256}, not the ${upload.sha256} declared.`));
  }
  return commit(upload, { objectKey: upload.objectKey, size: upload.size, sha256, contentType: upload.contentType });
}

/** The version write, with the upload's move to `completed` in the same transaction. */
async function commit(upload: StoredUpload, file: FileVersion): Promise<Completion> {
  const creator: Caller = { userId: upload.createdBy };
  const target: VersionTarget =
    upload.kind === 'create'
      ? { kind: 'create', folderId: upload.folderId, name: upload.name, id: upload.documentId }
      : {
          kind: 'update',
          documentId: upload.documentId,
          ...(upload.expectedVersion === undefined ? {} : { expectedVersion: upload.expectedVersion }),
        };
  try {
    const document = await writeFileVersion(creator, target, file, {
      reserved: true,
      extra: (made) => ({ upload: statusStep(upload, OPEN_STATUSES, 'completed', { document: made }) }),
    });
    recordMetric('uploadsCompleted');
    recordMetric('bytesUploaded', upload.size);
    return { document };
  } catch (error) {
    if (error instanceof ExtraStepFailed) {
      // Another completion (or a cancellation) got there first: answer what it made.
      const now = await readUploadItem(upload.repositoryId, upload.id);
      if (!now || now.status === 'open') throw error.failure;
      return finishUpload(now, { verifyLarge: false });
    }
    if (error instanceof Problem && error.status < 500 && error.status !== 429) return failUpload(upload, error);
    throw error;
  }
}

/**
 * Joins the parts into the object (multipart) or finds it (one part), and checks its size.
 * A missing part is thrown (409, the upload stays open); a wrong size is returned as the
 * problem that fails the upload.
 */
async function assemble(upload: StoredUpload): Promise<{ size: number } | { problem: HttpError } | { movedOn: StoredUpload }> {
  if (upload.s3UploadId) {
    const parts = await listParts(upload);
    if (parts !== undefined) {
      const missing = range(1, upload.partCount).filter((n) => !parts.some((p) => p.PartNumber === n));
      if (missing.length > 0) throw incomplete(missing);
      const plan = { partSize: upload.partSize, partCount: upload.partCount };
      const wrong = parts.find((p) => p.Size !== partLength(plan, upload.size, p.PartNumber as number));
      if (wrong) {
        return {
          problem: new Problem(
            'upload-mismatch',
            `Part ${wrong.PartNumber} has ${wrong.Size} bytes, not ${partLength(plan, upload.size, wrong.PartNumber as number)}: the file is not ${upload.size} bytes.`,
          ),
        };
      }
      // Verifying from now on: the Object Created event the join brings finds the upload taken
      // care of (finaliseObject), and the sweeper finishes it if this request dies.
      if (upload.status === 'open') {
        try {
          await transactWrite({ upload: statusStep(upload, ['open'], 'verifying', { lookFrom: now() }) });
        } catch (error) {
          if (!(error instanceof ConditionFailed)) throw error;
          const current = await readUploadItem(upload.repositoryId, upload.id);
          if (!current) throw notFound('Upload');
          return { movedOn: current };
        }
      }
      try {
        await s3().send(
          new CompleteMultipartUploadCommand({
            Bucket: bucketName(),
            Key: upload.objectKey,
            UploadId: upload.s3UploadId,
            MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.PartNumber, ETag: p.ETag })) },
          }),
        );
      } catch (error) {
        // Completed by a racing call (or by an earlier call that died after): the object is there.
        if (!isNamed(error, 'NoSuchUpload')) throw error;
      }
    }
  }
  const size = await objectSize(upload.objectKey);
  if (size === undefined) throw incomplete([1]);
  if (size !== upload.size)
    return { problem: new Problem('upload-mismatch', `The file has ${size} bytes, not the ${upload.size} declared.`) };
  return { size };
}

const incomplete = (missing: number[]) =>
  new Problem(
    'upload-incomplete',
    `Part(s) ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ` and ${missing.length - 20} more` : ''} have not arrived: send them, then complete again.`,
  );

/** Fails the upload with `problem` (once: a racing failure or completion wins), gives its reservation back, deletes its bytes. */
async function failUpload(upload: StoredUpload, problem: HttpError): Promise<Completion> {
  const stored = {
    type: problemTypePrefix + problem.kind,
    title: problems[problem.kind].title,
    status: problem.status,
    detail: problem.detail,
  };
  if (!(await closeUpload(upload, 'failed', stored))) {
    // Completed, cancelled or failed by another request first: answer what it is now.
    const current = await readUploadItem(upload.repositoryId, upload.id);
    if (current && current.status !== 'open' && current.status !== 'verifying') return finishUpload(current, { verifyLarge: false });
    throw problem;
  }
  recordMetric('uploadsFailed');
  await deleteBytesOrLeaveThem(upload);
  throw problem;
}

function storedProblem(upload: StoredUpload): HttpError {
  const problem = upload.problem;
  const kind = (
    problem?.type.startsWith(problemTypePrefix) ? problem.type.slice(problemTypePrefix.length) : 'upload-mismatch'
  ) as ProblemKind;
  return new Problem(kind in problems ? kind : 'upload-mismatch', problem?.detail ?? 'The upload failed.');
}

// ---------------------------------------------------------------------------------------------
// The sweeper's part: what a lost notification, a dead request or the clock left to do.

/**
 * An upload in the sweep index whose time has come: past its expiry, an open one expires
 * (reservation back, bytes deleted); a one-part upload whose bytes are there is finished (its
 * ObjectCreated was lost); a large one being verified is verified; a failed, cancelled or
 * expired one has its bytes deleted (again: deleting is idempotent) and leaves the index.
 */
export async function sweepUpload(repositoryId: string, uploadId: string): Promise<void> {
  const upload = await readUploadItem(repositoryId, uploadId);
  if (!upload) return;
  if (upload.status === 'completed') {
    await transactWrite({ upload: sweptStep(upload) });
    return;
  }
  if (upload.status === 'open' || upload.status === 'verifying') {
    if (isPastExpiry(upload)) {
      if (!(await closeUpload(upload, 'expired'))) return sweepUpload(repositoryId, uploadId);
    } else {
      try {
        await finishUpload(upload, { verifyLarge: true });
      } catch (error) {
        // A missing part: nothing to finish yet; look again at its expiry (the client may still send it).
        if (!(error instanceof Problem) || error.kind !== 'upload-incomplete') {
          if (error instanceof Problem && error.status < 500) return;
          throw error;
        }
        await transactWrite({ upload: lookAgainStep(upload, upload.expiresAt) });
      }
      return;
    }
  }
  await deleteBytes(upload);
  await transactWrite({ upload: sweptStep(upload) });
}

// ---------------------------------------------------------------------------------------------
// The bucket

async function partUrlsOf(upload: StoredUpload, numbers: number[]) {
  const seconds = Math.max(1, Math.min(PART_URL_SECONDS, Math.floor((Date.parse(upload.expiresAt) - Date.now()) / 1_000)));
  const expiresAt = new Date(Date.now() + seconds * 1_000).toISOString();
  return Promise.all(
    numbers.map(async (number) => ({
      number,
      url: await presignedUrl(
        upload.s3UploadId
          ? new UploadPartCommand({ Bucket: bucketName(), Key: upload.objectKey, UploadId: upload.s3UploadId, PartNumber: number })
          : new PutObjectCommand({ Bucket: bucketName(), Key: upload.objectKey }),
        seconds,
      ),
      expiresAt,
    })),
  );
}

/** The parts the bucket holds, by number; undefined when the multipart upload is gone (completed or aborted). */
async function listParts(upload: StoredUpload): Promise<Part[] | undefined> {
  const parts: Part[] = [];
  let marker: string | undefined;
  try {
    do {
      const page = await s3().send(
        new ListPartsCommand({ Bucket: bucketName(), Key: upload.objectKey, UploadId: upload.s3UploadId, PartNumberMarker: marker }),
      );
      parts.push(...(page.Parts ?? []));
      marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
    } while (marker);
  } catch (error) {
    if (isNamed(error, 'NoSuchUpload')) return undefined;
    throw error;
  }
  return parts;
}

async function receivedParts(upload: StoredUpload): Promise<{ number: number; size: number }[]> {
  if (upload.s3UploadId) {
    const parts = await listParts(upload);
    if (parts) return parts.map((p) => ({ number: p.PartNumber as number, size: p.Size as number }));
  }
  const size = await objectSize(upload.objectKey);
  return size === undefined || upload.s3UploadId ? [] : [{ number: 1, size }];
}

async function objectSize(key: string): Promise<number | undefined> {
  try {
    return (await s3().send(new HeadObjectCommand({ Bucket: bucketName(), Key: key }))).ContentLength;
  } catch (error) {
    if (isNamed(error, 'NotFound') || isNamed(error, 'NoSuchKey')) return undefined;
    throw error;
  }
}

/** The SHA-256 of an object's bytes, read as a stream (the service checks it itself: S3 keeps no SHA-256 of a whole multipart object). */
async function hashObject(key: string): Promise<string> {
  const { Body } = await s3().send(new GetObjectCommand({ Bucket: bucketName(), Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of Body as AsyncIterable<Uint8Array>) hash.update(chunk);
  return hash.digest('hex');
}

/** An upload's bytes: its multipart upload aborted (the parts go with it) and its object deleted. Idempotent. */
export async function deleteBytes(upload: Pick<StoredUpload, 'objectKey' | 's3UploadId'>): Promise<void> {
  if (upload.s3UploadId) await abortQuietly(upload.objectKey, upload.s3UploadId);
  await s3().send(new DeleteObjectCommand({ Bucket: bucketName(), Key: upload.objectKey }));
}

/**
 * Deletes the bytes of an upload that was just cancelled or failed, then takes it out of the
 * sweep index. The status change is committed already, so the answer stands whatever happens
 * here: bytes the bucket would not delete now are deleted by the sweeper, which the status change
 * asked to look (`lookFrom`).
 */
async function deleteBytesOrLeaveThem(upload: StoredUpload): Promise<void> {
  try {
    await deleteBytes(upload);
    await transactWrite({ upload: sweptStep(upload) });
  } catch (error) {
    logger.warn('upload: its bytes are left for the sweeper to delete', { error: error as Error, uploadId: upload.id });
  }
}

async function abortQuietly(key: string, uploadId: string): Promise<void> {
  try {
    await s3().send(new AbortMultipartUploadCommand({ Bucket: bucketName(), Key: key, UploadId: uploadId }));
  } catch (error) {
    if (!isNamed(error, 'NoSuchUpload')) throw error;
  }
}

const isNamed = (error: unknown, name: string) =>
  typeof error === 'object' && error !== null && ((error as { name?: string }).name === name || (error as { Code?: string }).Code === name);

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
