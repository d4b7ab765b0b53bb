/**
 * Finishing an upload (docs/api.md: Files), one code path whoever gets there:
 * `POST /uploads/{id}/complete`, the bucket's ObjectCreated notification
 * (functions/uploads/finalise.ts), or the sweeper when either was lost (functions/worker/sweeper.ts).
 * Nothing is visible before the bytes are checked (every part, the size, the SHA-256); the
 * version write turns the upload's reservation into the version's size.
 */

import { fileObjectOf } from '../bucket';
import { ConditionFailed, transactWrite } from '../db/client';
import type { HttpError, ProblemKind } from '../errors';
import { notFound, HttpError as Problem, problems, problemTypePrefix } from '../errors';
import { partLength, partNumbers } from '../files/parts';
import { deleteBytes, hashObject, joinParts, listParts, objectSize } from '../files/upload-bytes';
import { now } from '../ids';
import { ExtraStepFailed, type FileVersion, type VersionTarget, writeFileVersion } from '../items/document';
import {
  isPastExpiry,
  lookAgainStep,
  readUpload,
  readUploadItem,
  type StoredUpload,
  statusStep,
  sweptStep,
  uploadResource,
} from '../items/upload';
import { recordMetric } from '../metrics';
import type { Caller, Document, Upload } from '../resources';
import { OPEN_STATUSES, sweepAction } from './upload-rules';
import { closeUpload, deleteBytesOrLeaveThem, expired } from './uploads';

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

/** What `complete` answers: the Document made, or the upload while it is being verified (202). */
export type Completion = { document: Document } | { verifying: Upload };

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
  const object = fileObjectOf(objectKey);
  if (!object) return undefined;
  const upload = await readUploadItem(object.repositoryId, object.objectId);
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
      const missing = partNumbers(upload.partCount).filter((n) => !parts.some((p) => p.PartNumber === n));
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
      await joinParts(upload, parts);
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
  const action = sweepAction(upload);
  if (action === 'leave-index') {
    await transactWrite({ upload: sweptStep(upload) });
    return;
  }
  if (action === 'expire' || action === 'finish') {
    if (action === 'expire') {
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
