/**
 * Finishing an upload (docs/api.md: Files), one code path whoever gets there:
 * `POST /uploads/{id}/complete`, the bucket's ObjectCreated notification
 * (functions/uploads/finalise.ts), or the sweeper when either was lost (functions/worker/sweeper.ts).
 * Nothing is visible before the bytes are checked (every part, the size, the SHA-256); the
 * version write turns the upload's reservation into the version's size.
 *
 * A small file is hashed where it is completed. A large one moves to `verifying` together with a
 * `verify-upload` task (items/task.ts), which the worker runs a budget at a time: each step
 * hashes a range and saves the SHA-256's state with the task's progress (a conditional write on
 * its step counter, so two runners never both advance), and the next invocation goes on from
 * there; the last one checks the digest and makes the version or fails the upload. Any size
 * completes, whatever the functions' timeouts.
 */

import { createHash } from 'node:crypto';
import { fileObjectOf } from '../bucket';
import { ConditionFailed, transactWrite } from '../db/client';
import type { HttpError, ProblemKind } from '../errors';
import { notFound, HttpError as Problem, problems, problemTypePrefix } from '../errors';
import { partLength, partNumbers } from '../files/parts';
import { deleteBytes, hashObject, hashOn, joinParts, listParts, objectSize } from '../files/upload-bytes';
import { now } from '../ids';
import { ExtraStepFailed, type FileVersion, type VersionTarget, writeFileVersion } from '../items/document';
import { newTask, type StepBudget, type TaskStep } from '../items/task';
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
import { logger } from '../logger';
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
/**
 * The most one step of a verification reads (one ranged GET); its time budget usually ends it
 * first. Tests only (where vitest runs) may lower it with VERIFY_STEP_BYTES, to see a file
 * verified over several steps without a large one.
 */
const VERIFY_STEP_BYTES = 1024 * 1024 * 1024;
function verifyStepBytes(): number {
  const raw = process.env.VERIFY_STEP_BYTES;
  return raw && process.env.VITEST ? Number(raw) : VERIFY_STEP_BYTES;
}
/** A step called without a budget (alone, in a test) works this long. */
const DEFAULT_STEP_MS = 10_000;

/** What `complete` answers: the Document made, or the upload while it is being verified (202). */
export type Completion = { document: Document } | { verifying: Upload };

/** POST /uploads/{id}/complete: safe to repeat and to race; every repeat after success answers the same Document. */
export async function completeUpload(caller: Caller, uploadId: string): Promise<Completion> {
  const { upload } = await readUpload(caller, uploadId);
  return finishUpload(upload);
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
  // Being verified: by the `complete` that joined the parts (or the sweeper, if it died), or by its task.
  if (upload.status === 'verifying') return;
  await finishUpload(upload);
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
 * and gives its reservation back. A large file answers 202 (`verifying`) and is verified by its
 * task (`verifyUpload`).
 */
export async function finishUpload(upload: StoredUpload): Promise<Completion> {
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
  const large = upload.size > verifyInlineBytes();
  if (upload.status === 'verifying' && large) return { verifying: uploadResource(upload) };

  const assembled = await assemble(upload, large);
  if ('problem' in assembled) return failUpload(upload, assembled.problem);
  if ('movedOn' in assembled) return finishUpload(assembled.movedOn);
  if (large) return { verifying: { ...uploadResource(upload), status: 'verifying' } };
  return settle(upload, await hashObject(upload.objectKey));
}

/** The bytes hashed: the version made when the digest is the one declared (or none was), else the upload failed. */
async function settle(upload: StoredUpload, sha256: string): Promise<Completion> {
  if (upload.sha256 && upload.sha256 !== sha256) {
    return failUpload(upload, new Problem('upload-mismatch', `The bytes' SHA-256 is ${sha256}, not the ${upload.sha256} declared.`));
  }
  return commit(upload, { objectKey: upload.objectKey, size: upload.size, sha256, contentType: upload.contentType });
}

/**
 * The `verify-upload` task's step: hashes the upload's bytes on from where the last step got to
 * (the task's `cursor`, bytes hashed, and `state`, the SHA-256's saved state) until the step's
 * budget ends, and carries both over; once the last byte is hashed, makes the version or fails
 * the upload (`settle`). The first step joins the parts first, if the `complete` that started
 * the task did not live to. An upload no longer being verified (completed by a racing runner,
 * cancelled) ends the task.
 */
export const verifyUpload: TaskStep<'verify-upload'> = async (task, budget?: StepBudget) => {
  const until = budget?.until ?? Date.now() + DEFAULT_STEP_MS;
  const upload = await readUploadItem(task.repositoryId, task.uploadId);
  if (upload?.status !== 'verifying') return { next: 'done' };
  const from = Number(task.cursor ?? 0);
  try {
    if (from === 0 && !task.state) {
      const problem = await joinAndMeasure(upload);
      if (problem) {
        await failUpload(upload, problem);
        return { next: 'done' };
      }
    }
    const progress = await hashOn(
      upload.objectKey,
      upload.size,
      { offset: from, ...(task.state ? { state: task.state } : {}) },
      {
        until,
        maxBytes: verifyStepBytes(),
      },
    );
    logger.info('verify-upload: hashed', { uploadId: upload.id, from, to: progress.offset, size: upload.size });
    if (progress.sha256 === undefined)
      return { next: { cursor: String(progress.offset), ...(progress.state ? { state: progress.state } : {}) } };
    await settle(upload, progress.sha256);
  } catch (error) {
    // The upload's own problem (a mismatch, a name taken): recorded on it, the task is over.
    if (!(error instanceof Problem) || error.status >= 500) throw error;
  }
  return { next: 'done' };
};

/** The id of an upload's verify task: one per upload, made of the upload's, so a second start fails while it runs. */
export const verifyTaskId = (uploadId: string) => createHash('sha256').update(`verify-upload ${uploadId}`).digest('hex').slice(0, 32);

/** The step that starts an upload's verify task. */
const verifyTask = (upload: StoredUpload) =>
  newTask({ kind: 'verify-upload', repositoryId: upload.repositoryId, uploadId: upload.id }, verifyTaskId(upload.id));

/** The verification's start: the parts joined (if they are not yet) and the object's size checked; the problem that fails the upload, if any. */
async function joinAndMeasure(upload: StoredUpload): Promise<HttpError | undefined> {
  if (upload.s3UploadId) {
    const parts = await listParts(upload);
    if (parts !== undefined) await joinParts(upload, parts);
  }
  const size = await objectSize(upload.objectKey);
  if (size === upload.size) return undefined;
  return new Problem(
    'upload-mismatch',
    size === undefined ? 'The file is not in the bucket.' : `The file has ${size} bytes, not the ${upload.size} declared.`,
  );
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
      return finishUpload(now);
    }
    if (error instanceof Problem && error.status < 500 && error.status !== 429) return failUpload(upload, error);
    throw error;
  }
}

/**
 * Joins the parts into the object (multipart) or finds it (one part), and checks its size.
 * A missing part is thrown (409, the upload stays open); a wrong size is returned as the
 * problem that fails the upload. A `large` upload, its parts all there, moves to `verifying`
 * with the task that joins and hashes them (`verifyUpload`) instead.
 */
async function assemble(
  upload: StoredUpload,
  large: boolean,
): Promise<{ size: number } | { problem: HttpError } | { movedOn: StoredUpload }> {
  let joined = false;
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
      // care of (finaliseObject), and the sweeper (a small file) or the task (a large one)
      // finishes it if this request dies.
      if (upload.status === 'open') {
        const movedOn = await startVerifying(upload, large);
        if (movedOn) return { movedOn };
      }
      if (large) return { size: upload.size };
      await joinParts(upload, parts);
      joined = true;
    }
  }
  const size = await objectSize(upload.objectKey);
  if (size === undefined) throw incomplete([1]);
  if (size !== upload.size)
    return { problem: new Problem('upload-mismatch', `The file has ${size} bytes, not the ${upload.size} declared.`) };
  // One part, large: its task hashes it.
  if (large && !joined && upload.status === 'open') {
    const movedOn = await startVerifying(upload, large);
    if (movedOn) return { movedOn };
  }
  return { size };
}

/**
 * Moves an open upload to `verifying`: a small one looked at by the sweeper from now on, a large
 * one with the task that verifies it, in the same transaction (so there is exactly one). Returns
 * the upload as it is now when another request moved it first.
 */
async function startVerifying(upload: StoredUpload, large: boolean): Promise<StoredUpload | undefined> {
  try {
    await transactWrite(
      large
        ? {
            upload: statusStep(upload, ['open'], 'verifying'),
            task: verifyTask(upload),
          }
        : { upload: statusStep(upload, ['open'], 'verifying', { lookFrom: now() }) },
    );
    return undefined;
  } catch (error) {
    if (!(error instanceof ConditionFailed)) throw error;
    const current = await readUploadItem(upload.repositoryId, upload.id);
    if (!current) throw notFound('Upload');
    return current;
  }
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
    if (current && current.status !== 'open' && current.status !== 'verifying') return finishUpload(current);
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
 * (reservation back, bytes deleted; one being verified never does); a one-part upload whose bytes
 * are there is finished (its ObjectCreated was lost); a small one being verified is verified (a
 * large one is its task's, and leaves the index); a failed, cancelled or
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
  if (upload.status === 'verifying' && upload.size > verifyInlineBytes()) {
    // Its task verifies it, and is in the sweep index itself: the upload leaves it. One found here
    // without its task (left by an older service, which hashed it whole) gets one.
    try {
      await transactWrite({ upload: sweptStep(upload), task: verifyTask(upload) });
    } catch (error) {
      if (!(error instanceof ConditionFailed)) throw error;
      await transactWrite({ upload: sweptStep(upload) }); // its task is there
    }
    return;
  }
  if (action === 'expire' || action === 'finish') {
    if (action === 'expire') {
      if (!(await closeUpload(upload, 'expired'))) return sweepUpload(repositoryId, uploadId);
    } else {
      try {
        await finishUpload(upload);
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
